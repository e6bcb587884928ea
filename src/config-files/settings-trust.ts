/**
 * Where a project's settings come from and whether Claude Code would trust them, as
 * `claude -p` 2.1.328 decides (recorded by the conformance scenarios `settings-untrusted` and
 * `settings-subdirectory`, and by hand):
 *
 * - **The project root** is the git repository's top directory (the nearest directory holding a
 *   `.git` entry, a directory or a worktree's file), or, outside a repository, none.
 * - **Trust** is read from `projects[<dir>].hasTrustDialogAccepted` in the Claude config file
 *   (`~/.claude.json`, or `$CLAUDE_CONFIG_DIR/.claude.json`). Inside a repository only the
 *   record of the root counts (a trusted parent or subdirectory does not). Outside one, the
 *   record of the working directory makes the project trusted; that of a directory above it
 *   trusts only its local settings (`settings.local.json`, which a clone does not bring).
 */
import { existsSync, lstatSync, readFileSync, realpathSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * How far the project at a working directory is trusted: `trusted` (all its settings apply),
 * `localOnly` (its `settings.local.json` applies, its `settings.json` does not widen anything),
 * or `untrusted`.
 */
export type ProjectTrust = 'trusted' | 'localOnly' | 'untrusted';

/** The git repository's top directory that holds `dir`, or null outside a repository. */
export function projectRootOf(dir: string): string | null {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    try {
      lstatSync(path.join(d, '.git'));
      return d;
    } catch {
      // not here
    }
    if (path.dirname(d) === d) return null;
  }
}

/** The Claude config file that holds the trust records: `$CLAUDE_CONFIG_DIR/.claude.json`, else `~/.claude.json`. */
export function claudeConfigFile(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string {
  const dir = env['CLAUDE_CONFIG_DIR'];
  return dir ? path.join(path.resolve(dir), '.claude.json') : path.join(home, '.claude.json');
}

/** The directory whose trust record decides for `cwd`: the project root, else `cwd` itself. */
export function trustRecordDir(cwd: string): string {
  return projectRootOf(cwd) ?? path.resolve(cwd);
}

function trustedDirs(file: string): Set<string> {
  if (!existsSync(file)) return new Set();
  try {
    const raw = JSON.parse(readFileSync(file, 'utf8')) as {
      projects?: Record<string, { hasTrustDialogAccepted?: unknown }>;
    };
    const out = new Set<string>();
    for (const [dir, p] of Object.entries(raw.projects ?? {})) {
      if (p?.hasTrustDialogAccepted !== true) continue;
      out.add(path.resolve(dir));
      try {
        out.add(realpathSync(dir));
      } catch {
        // a record of a directory that no longer exists
      }
    }
    return out;
  } catch {
    return new Set();
  }
}

/** How far Claude Code would trust the project at `cwd` (see the module comment). */
export function projectTrust(
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
  home: string = os.homedir(),
): ProjectTrust {
  const trusted = trustedDirs(claudeConfigFile(env, home));
  if (trusted.size === 0) return 'untrusted';
  const spellings = (d: string): string[] => {
    try {
      return [d, realpathSync(d)];
    } catch {
      return [d];
    }
  };
  const isTrusted = (d: string): boolean => spellings(d).some((s) => trusted.has(s));
  const root = projectRootOf(cwd);
  if (root !== null) return isTrusted(root) ? 'trusted' : 'untrusted';
  const dir = path.resolve(cwd);
  if (isTrusted(dir)) return 'trusted';
  for (let d = path.dirname(dir); ; d = path.dirname(d)) {
    if (isTrusted(d)) return 'localOnly';
    if (path.dirname(d) === d) return 'untrusted';
  }
}
