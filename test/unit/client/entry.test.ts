import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..', '..');

/** Modules (paths in require.cache) that `require(entry)` loads in a fresh Node process. */
function loadedBy(entry: string): string[] {
  const file = join(root, entry);
  if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first`);
  const out = execFileSync(
    process.execPath,
    ['-e', `require(${JSON.stringify(file)}); process.stdout.write(JSON.stringify(Object.keys(require.cache)))`],
    { encoding: 'utf8' },
  );
  return JSON.parse(out) as string[];
}

const WORKER_SIDE = [
  /node_modules\/@temporalio\/worker\//,
  /node_modules\/@temporalio\/core-bridge\//,
  /node_modules\/webpack\//,
  /node_modules\/@anthropic-ai\/sdk\//,
  /dist\/src\/worker\//,
  // The local-server wiring, but for the state file the client reads.
  /dist\/src\/host\/(?!server-state\.js$)/,
  /dist\/src\/activities\//,
];

describe('package entry points', () => {
  test('client entry: loads no native worker, bundler, dev-server launcher, activities or Anthropic SDK', () => {
    const loaded = loadedBy('dist/src/client/index.js');
    const heavy = loaded.filter((p) => WORKER_SIDE.some((re) => re.test(p)));
    expect(heavy).toEqual([]);
    expect(loaded.some((p) => p.includes('node_modules/@temporalio/client/'))).toBe(true);
  });

  test('package.json: the exports map names the client, worker and workflows entries, and each exists', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      exports: Record<string, { default: string } | string>;
    };
    for (const sub of ['.', './client', './worker', './workflows']) {
      const target = pkg.exports[sub];
      expect(typeof target === 'object' && target.default).toBeTruthy();
      expect(existsSync(join(root, (target as { default: string }).default))).toBe(true);
    }
  });
});
