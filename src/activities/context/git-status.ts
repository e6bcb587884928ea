/**
 * The git status snapshot a session starts with (Claude Code's `gitStatus` context): branch,
 * main branch, short status and recent commits of the working directory's repository.
 */
import { execFile } from 'node:child_process';
import { safeGitEnvironment } from '../../env/git-env';

/** Characters of `git status --short` kept in the snapshot. */
export const MAX_GIT_STATUS_CHARS = 2000;
/** How long one git command may take (ms). */
const GIT_TIMEOUT_MS = 5000;

function git(cwd: string, env: NodeJS.ProcessEnv, args: string[]): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(
      'git',
      ['--no-optional-locks', ...args],
      { cwd, timeout: GIT_TIMEOUT_MS, maxBuffer: 1024 * 1024, env },
      (err, stdout) => resolve(err ? null : stdout.trim()),
    );
  });
}

/**
 * The snapshot text, or null when `cwd` is not in a git work tree (or git is missing).
 * Unborn branches (no commit yet) and detached heads are described as such.
 */
export async function gitStatusSnapshot(cwd: string): Promise<string | null> {
  // The runner's own git: no secrets, nothing from the repository's config runs (git-env.ts).
  const env = await safeGitEnvironment(cwd);
  if ((await git(cwd, env, ['rev-parse', '--is-inside-work-tree'])) !== 'true') return null;
  const [branch, head, originHead, status, log, user] = await Promise.all([
    git(cwd, env, ['branch', '--show-current']),
    git(cwd, env, ['rev-parse', '--short', 'HEAD']),
    git(cwd, env, ['symbolic-ref', '--short', 'refs/remotes/origin/HEAD']),
    git(cwd, env, ['status', '--short']),
    git(cwd, env, ['log', '--oneline', '-n', '5']),
    git(cwd, env, ['config', 'user.name']),
  ]);
  const current = branch || (head ? `(detached at ${head})` : '(unknown)');
  const main = originHead ? originHead.replace(/^origin\//, '') : 'main';
  let shortStatus = status ?? '';
  if (shortStatus.length > MAX_GIT_STATUS_CHARS) {
    shortStatus =
      `${shortStatus.slice(0, MAX_GIT_STATUS_CHARS)}\n` +
      '... (cut at 2000 characters; run "git status" with Bash for the rest)';
  }
  return [
    'This is the git status at the start of the conversation. Note that this status is a snapshot in time, and will not update during the conversation.',
    `Current branch: ${current}`,
    `Main branch (you will usually use this for PRs): ${main}`,
    ...(user ? [`Git user: ${user}`] : []),
    `Status:\n${shortStatus || '(clean)'}`,
    `Recent commits:\n${log || '(none yet)'}`,
  ].join('\n\n');
}
