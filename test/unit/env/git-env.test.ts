import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { safeGitEnvironment, withGitConfigScan } from '../../../src/env/git-env';

let dir: string;

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'git-env-')));
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir });
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Defines a filter driver `name` in the repository's own config. */
const defineFilter = (name: string): void =>
  fs.appendFileSync(path.join(dir, '.git', 'config'), `[filter "${name}"]\n\tclean = cat\n`);

/** The config keys `env` empties (`GIT_CONFIG_KEY_n` whose value is ''). */
function emptied(env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  for (let i = 0; i < Number(env['GIT_CONFIG_COUNT']); i++) {
    if (env[`GIT_CONFIG_VALUE_${i}`] === '') out.push(String(env[`GIT_CONFIG_KEY_${i}`]));
  }
  return out.filter((k) => k.startsWith('filter.'));
}

describe('git-env', () => {
  test('git-env: outside a scan scope every command lists the repository’s drivers itself', async () => {
    defineFilter('one');
    expect(emptied(await safeGitEnvironment(dir))).toEqual(['filter.one.clean']);
    defineFilter('two');
    expect(emptied(await safeGitEnvironment(dir))).toEqual(['filter.one.clean', 'filter.two.clean']);
  });

  test('git-env: withGitConfigScan lists a directory’s drivers once for every command inside it', async () => {
    defineFilter('one');
    await withGitConfigScan(async () => {
      expect(emptied(await safeGitEnvironment(dir))).toEqual(['filter.one.clean']);
      defineFilter('two');
      // The listing is reused: no `git config` run before this command.
      expect(emptied(await safeGitEnvironment(dir, { GIT_INDEX_FILE: 'x' }))).toEqual(['filter.one.clean']);
      // A nested scope shares it.
      await withGitConfigScan(async () => {
        expect(emptied(await safeGitEnvironment(dir))).toEqual(['filter.one.clean']);
      });
    });
    // The next activity lists again.
    await withGitConfigScan(async () => {
      expect(emptied(await safeGitEnvironment(dir))).toEqual(['filter.one.clean', 'filter.two.clean']);
    });
  });

  test('git-env: a scan scope lists each directory on its own, and never for another base environment', async () => {
    const other = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'git-env-other-')));
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: other });
    fs.appendFileSync(path.join(other, '.git', 'config'), '[filter "there"]\n\tclean = cat\n');
    try {
      await withGitConfigScan(async () => {
        expect(emptied(await safeGitEnvironment(dir))).toEqual([]);
        expect(emptied(await safeGitEnvironment(other))).toEqual(['filter.there.clean']);
        defineFilter('late');
        expect(emptied(await safeGitEnvironment(dir, {}, { ...process.env }))).toEqual(['filter.late.clean']);
      });
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });
});
