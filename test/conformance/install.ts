/**
 * Installs the pinned real Claude Code CLI and Claude Agent SDK on demand into
 * `<repo>/.cache/claude-code` (git-ignored; never a dependency of this package). Idempotent: a
 * stamp file records what was installed, so later runs start at once; a lock directory keeps two
 * test processes from installing at the same time.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Version of `@anthropic-ai/claude-code` the harness compares against. */
export const CLAUDE_CODE_VERSION = '2.1.328';
/** Version of `@anthropic-ai/claude-agent-sdk` used as a client (bundles CLI 2.1.328). */
export const AGENT_SDK_VERSION = '0.3.328';

/** The project root. */
export const REPO_ROOT = resolve(__dirname, '..', '..');
/** Where the pinned packages are installed. */
export const CACHE_DIR = join(REPO_ROOT, '.cache', 'claude-code');

/** What {@link ensureClaudeCode} returns. */
export interface InstalledClaudeCode {
  /** The native `claude` executable. */
  claudeBin: string;
  /** `sdk.mjs` of the Agent SDK (load it with a dynamic `import()`). */
  sdkEntry: string;
}

/** npm name of the native CLI package for this machine, e.g. `@anthropic-ai/claude-code-linux-x64`. */
export function nativePackageName(): string {
  let key = `${process.platform}-${process.arch}`;
  if (process.platform === 'linux') {
    const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
    if (!header?.glibcVersionRuntime) key += '-musl';
  }
  return `@anthropic-ai/claude-code-${key}`;
}

function paths(): InstalledClaudeCode & { stamp: string; manifest: Record<string, string> } {
  const native = nativePackageName();
  const exe = process.platform === 'win32' ? 'claude.exe' : 'claude';
  return {
    claudeBin: join(CACHE_DIR, 'node_modules', ...native.split('/'), exe),
    sdkEntry: join(CACHE_DIR, 'node_modules', '@anthropic-ai', 'claude-agent-sdk', 'sdk.mjs'),
    stamp: join(CACHE_DIR, 'installed.json'),
    // The native package is listed explicitly so that `--omit=optional` keeps it while leaving
    // out the SDK's own bundled copy of the CLI (another ~370 MB, never used here).
    manifest: {
      '@anthropic-ai/claude-code': CLAUDE_CODE_VERSION,
      [native]: CLAUDE_CODE_VERSION,
      '@anthropic-ai/claude-agent-sdk': AGENT_SDK_VERSION,
    },
  };
}

function isInstalled(p: ReturnType<typeof paths>): boolean {
  if (!existsSync(p.stamp) || !existsSync(p.claudeBin) || !existsSync(p.sdkEntry)) return false;
  try {
    return JSON.stringify(JSON.parse(readFileSync(p.stamp, 'utf8'))) === JSON.stringify(p.manifest);
  } catch {
    return false;
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Takes `<dir>.lock` (waiting for another installer, or breaking a lock older than 10 minutes). */
function withLock<T>(dir: string, fn: () => T): T {
  const lock = `${dir}.lock`;
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      const age = existsSync(lock) ? Date.now() - statSync(lock).mtimeMs : 0;
      if (age > 10 * 60_000) rmSync(lock, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`timed out waiting for the install lock ${lock}`);
      else sleepSync(500);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * Makes sure the pinned CLI and SDK are installed in {@link CACHE_DIR} and returns their paths.
 * Needs the npm registry the first time (about 200 MB); later calls only check the stamp.
 * @throws Error with npm's output when the install fails
 */
export function ensureClaudeCode(log: (line: string) => void = () => undefined): InstalledClaudeCode {
  const p = paths();
  if (isInstalled(p)) return { claudeBin: p.claudeBin, sdkEntry: p.sdkEntry };
  mkdirSync(CACHE_DIR, { recursive: true });
  withLock(CACHE_DIR, () => {
    if (isInstalled(p)) return;
    log(
      `installing ${Object.entries(p.manifest)
        .map(([n, v]) => `${n}@${v}`)
        .join(', ')} into ${CACHE_DIR}`,
    );
    rmSync(p.stamp, { force: true });
    writeFileSync(
      join(CACHE_DIR, 'package.json'),
      `${JSON.stringify({ name: 'conformance-cache', private: true, dependencies: p.manifest }, null, 2)}\n`,
    );
    // --ignore-scripts: the CLI's postinstall only copies the native binary, which is used in place.
    const r = spawnSync(
      'npm',
      ['install', '--no-audit', '--no-fund', '--omit=optional', '--ignore-scripts', '--loglevel=error'],
      { cwd: CACHE_DIR, encoding: 'utf8', timeout: 10 * 60_000, shell: process.platform === 'win32' },
    );
    if (r.status !== 0 || !existsSync(p.claudeBin) || !existsSync(p.sdkEntry)) {
      throw new Error(
        `npm install in ${CACHE_DIR} failed (exit ${String(r.status)}${r.error ? `, ${r.error.message}` : ''}):\n${r.stdout}\n${r.stderr}`,
      );
    }
    writeFileSync(p.stamp, `${JSON.stringify(p.manifest, null, 2)}\n`);
  });
  return { claudeBin: p.claudeBin, sdkEntry: p.sdkEntry };
}
