/**
 * The environment of every git command the runner itself runs (workspace snapshots and restores,
 * the git status context): git must never run a program that a repository's config names, and
 * never see the runner's secrets. A repository is input the model may have shaped (its files, and
 * with Bash its config), so its `.git/config` is not trusted:
 *
 * - the environment is {@link gitEnvironment}'s allowlist (no API keys);
 * - config given in command scope (`GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`,
 *   which wins over every config file and reaches the git processes git itself starts, e.g. in
 *   submodules) turns off what git runs on its own: `core.fsmonitor`, hooks (`core.hooksPath` →
 *   /dev/null), `core.sshCommand`, `core.pager`, `core.askPass`, credential helpers, signing
 *   (`commit.gpgSign`, `tag.gpgSign`, `log.showSignature`), the `ext::` transport, and submodule
 *   recursion;
 * - the filter, diff and merge drivers the repository's own config (local and worktree scope,
 *   with its includes) defines (`filter.<name>.clean/smudge/process`, `diff.<name>.textconv/command`,
 *   `merge.<name>.driver`) are emptied, and `filter.<name>.required` turned off, so that
 *   `.gitattributes` (in the tree, which anyone may edit) can select none of them. The names are
 *   read with `git config --get-regexp`, which runs nothing. Drivers of the user's global and
 *   system config (git-lfs) keep working unless the repository redefines them.
 * - `safe.directory=*` (honoured in command scope): a repository owned by another user (a mounted
 *   volume) is read as well; it is safe because nothing from its config runs.
 *
 * The drivers are listed once per directory and activity ({@link withGitConfigScan}), not before
 * every command. Config written after the listing (a background command rewriting `.git/config`
 * during the activity) could slip through the rest of that activity's commands; such a command
 * already runs code, and git gets no secret.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { execFile } from 'node:child_process';
import { gitEnvironment } from './child-env';

/** Config every runner git gets, in command scope (later entries win). */
export const GIT_SAFE_CONFIG: ReadonlyArray<readonly [string, string]> = [
  ['core.fsmonitor', 'false'],
  ['core.hooksPath', '/dev/null'],
  ['core.sshCommand', 'ssh'],
  ['core.pager', 'cat'],
  ['core.askPass', ''],
  ['credential.helper', ''],
  ['commit.gpgSign', 'false'],
  ['tag.gpgSign', 'false'],
  ['log.showSignature', 'false'],
  ['protocol.ext.allow', 'never'],
  ['submodule.recurse', 'false'],
  ['status.submoduleSummary', 'false'],
  ['diff.ignoreSubmodules', 'all'],
  ['safe.directory', '*'],
];

/** Keys of a repository's config that name programs git runs for attributes (`.gitattributes`). */
const DRIVER_KEYS = /^(filter|diff|merge)\.(.+)\.(clean|smudge|process|textconv|command|driver)$/;

/** How long listing a repository's drivers may take (ms). */
const LIST_TIMEOUT_MS = 10_000;

/** `env` with `pairs` appended to its command-scope config (`GIT_CONFIG_COUNT`…). */
export function withCommandConfig(
  env: NodeJS.ProcessEnv,
  pairs: ReadonlyArray<readonly [string, string]>,
): NodeJS.ProcessEnv {
  const out = { ...env };
  let n = Number.parseInt(out['GIT_CONFIG_COUNT'] ?? '0', 10);
  if (!Number.isFinite(n) || n < 0) n = 0;
  for (const [k, v] of pairs) {
    out[`GIT_CONFIG_KEY_${n}`] = k;
    out[`GIT_CONFIG_VALUE_${n}`] = v;
    n++;
  }
  out['GIT_CONFIG_COUNT'] = String(n);
  return out;
}

/**
 * The driver keys (`filter.x.clean`, …) that the repository around `cwd` defines in its own
 * config (local and worktree scope, includes followed). Empty outside a repository or when git
 * fails. Runs `git config`, which starts no other program.
 */
export function repositoryDriverKeys(cwd: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  return new Promise((resolve) => {
    execFile(
      'git',
      ['config', '--includes', '--show-scope', '--name-only', '--get-regexp', DRIVER_KEYS.source],
      { cwd, env, timeout: LIST_TIMEOUT_MS, maxBuffer: 1024 * 1024 },
      (err, stdout) => {
        // Exit 1: no such key. Any other failure (not a repository): nothing to neutralize there.
        if (err) return resolve([]);
        const keys = new Set<string>();
        for (const line of stdout.split('\n')) {
          const tab = line.indexOf('\t');
          if (tab < 0) continue;
          const scope = line.slice(0, tab);
          const key = line.slice(tab + 1);
          if ((scope === 'local' || scope === 'worktree') && DRIVER_KEYS.test(key)) keys.add(key);
        }
        resolve([...keys]);
      },
    );
  });
}

/** Command-scope config that empties `keys` (and makes their filters optional). */
export function neutralizedDrivers(keys: readonly string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const key of keys) {
    out.push([key, '']);
    const m = DRIVER_KEYS.exec(key);
    if (m?.[1] === 'filter') out.push([`filter.${m[2] ?? ''}.required`, 'false']);
  }
  return out;
}

/** Driver keys listed so far in the running scan scope, by directory. */
const scans = new AsyncLocalStorage<Map<string, Promise<string[]>>>();

/**
 * Runs `fn` (one activity's git work) listing each directory's drivers once: every runner git
 * command inside it reuses the keys the first command in the same directory listed. Nested
 * calls share the outer scope. Outside a scope every command lists them itself.
 */
export function withGitConfigScan<T>(fn: () => Promise<T>): Promise<T> {
  return scans.getStore() ? fn() : scans.run(new Map(), fn);
}

/**
 * The environment for a runner git command in `cwd`: {@link gitEnvironment} of `base`, the
 * {@link GIT_SAFE_CONFIG}, the repository's drivers emptied, then `extra` (e.g. `GIT_INDEX_FILE`).
 * Inside {@link withGitConfigScan} (and with the process environment as `base`) the drivers of
 * a directory are listed once.
 */
export async function safeGitEnvironment(
  cwd: string,
  extra: NodeJS.ProcessEnv = {},
  base: NodeJS.ProcessEnv = process.env,
): Promise<NodeJS.ProcessEnv> {
  const env = withCommandConfig({ ...gitEnvironment(base), LC_ALL: 'C' }, GIT_SAFE_CONFIG);
  const listed = base === process.env ? scans.getStore() : undefined;
  let keys = listed?.get(cwd);
  if (!keys) {
    keys = repositoryDriverKeys(cwd, env);
    listed?.set(cwd, keys);
  }
  return { ...withCommandConfig(env, neutralizedDrivers(await keys)), ...extra };
}
