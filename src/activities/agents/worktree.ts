/**
 * `agentWorktree`: the git worktree of an `Agent` call with `isolation: "worktree"`, as Claude
 * Code 2.1.328 makes it: `<repository root>/.claude/worktrees/agent-<agentId>` on the branch
 * `worktree-agent-<agentId>`, from the parent's `HEAD`; at the end of the run it is removed with
 * its branch when the agent changed nothing, else kept and reported (path, branch). It runs on the
 * workspace's host (the tree is there).
 *
 * Both steps are idempotent, for retries and a worker killed half-way: `create` runs before the
 * child starts, so a retry may reset what a killed attempt left (`git worktree add` half done, a
 * stale registration) to the same start; `finish` asks the tree as it is, and a worktree already
 * removed (or never there) is "unchanged" unless its branch moved.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentWorktree, AgentWorktreeInput, AgentWorktreeResult } from '../../common/agent-worktree';
import { git, gitText } from '../workspace/git';

export type { AgentWorktree, AgentWorktreeInput, AgentWorktreeResult };

/** Where agent worktrees go, under the repository root (Claude Code's place). */
export const AGENT_WORKTREES_DIR = '.claude/worktrees';

/** The worktree path and branch of an agent in the repository at `repoRoot`. */
export function agentWorktreePlace(repoRoot: string, agentId: string): { path: string; branch: string } {
  return { path: path.join(repoRoot, AGENT_WORKTREES_DIR, `agent-${agentId}`), branch: `worktree-agent-${agentId}` };
}

/** The text of an Agent call whose worktree cannot be made (Claude Code refuses outside a repository too). */
export function worktreeUnavailableText(cwd: string): string {
  return `Cannot create agent worktree: ${cwd} is not in a git repository with a commit. Call Agent again without isolation.`;
}

/** Creates `agentWorktree`. */
export function createAgentWorktree(): (input: AgentWorktreeInput) => Promise<AgentWorktreeResult> {
  return async (input) => {
    if (input.op === 'create') return create(input.cwd, input.agentId);
    return { op: 'finish', kept: await finish(input.worktree) };
  };
}

/** The main repository's root around `cwd` (a linked worktree's main checkout), or null. */
async function mainRoot(cwd: string): Promise<string | null> {
  if (!fs.existsSync(cwd)) return null;
  const common = await git(['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd, okCodes: [128] });
  if (common.code !== 0) return null;
  const dir = common.stdout.toString('utf8').trim();
  // A bare common dir has no work tree to hold `.claude/worktrees`: the work tree around cwd does.
  if (path.basename(dir) === '.git') return path.dirname(dir);
  return gitText(['rev-parse', '--show-toplevel'], { cwd });
}

async function create(cwd: string, agentId: string): Promise<AgentWorktreeResult> {
  const repoRoot = await mainRoot(cwd);
  const head = repoRoot
    ? (await git(['rev-parse', '--verify', '-q', 'HEAD^{commit}'], { cwd, okCodes: [1] })).stdout.toString().trim()
    : '';
  if (!repoRoot || !head) return { op: 'create', ok: false, message: worktreeUnavailableText(cwd) };
  const { path: wt, branch } = agentWorktreePlace(repoRoot, agentId);
  // A killed attempt may have left a registration without its directory, or a directory half written.
  await git(['worktree', 'prune'], { cwd: repoRoot });
  if (!(await registered(repoRoot, wt))) {
    fs.rmSync(wt, { recursive: true, force: true });
    fs.mkdirSync(path.dirname(wt), { recursive: true });
    await git(['worktree', 'add', '--no-checkout', '-B', branch, wt, head], { cwd: repoRoot });
  }
  // The child has not started: the tree is (re)set to the start, whatever an attempt left.
  await git(['reset', '--hard', '-q', head], { cwd: wt });
  return { op: 'create', ok: true, worktree: { path: wt, branch, base: head, repoRoot } };
}

/** True when `wt` is a worktree git knows of (after `prune`: its directory exists). */
async function registered(repoRoot: string, wt: string): Promise<boolean> {
  const list = await gitText(['worktree', 'list', '--porcelain'], { cwd: repoRoot });
  const real = fs.existsSync(wt) ? fs.realpathSync(wt) : wt;
  return list.split('\n').some((l) => l.startsWith('worktree ') && [wt, real].includes(l.slice('worktree '.length)));
}

/** True when the worktree has changes (tracked, untracked or commits since `base`); removes it otherwise. */
async function finish(w: AgentWorktree): Promise<boolean> {
  // The session's tree moved to another host (its host was lost): the worktree went with the old host.
  if (!fs.existsSync(w.repoRoot)) return false;
  if (fs.existsSync(w.path) && (await registered(w.repoRoot, w.path))) {
    const status = await gitText(['status', '--porcelain', '--untracked-files=all'], { cwd: w.path });
    const head = await gitText(['rev-parse', 'HEAD'], { cwd: w.path });
    if (status !== '' || head !== w.base) return true;
    await git(['worktree', 'remove', '--force', w.path], { cwd: w.repoRoot });
  } else {
    // Removed by an earlier attempt (or by hand): only the branch may be left.
    await git(['worktree', 'prune'], { cwd: w.repoRoot });
  }
  const tip = await git(['rev-parse', '--verify', '-q', `refs/heads/${w.branch}`], {
    cwd: w.repoRoot,
    okCodes: [1],
  });
  const at = tip.stdout.toString().trim();
  if (at !== '' && at !== w.base) return true;
  if (at !== '') await git(['branch', '-D', w.branch], { cwd: w.repoRoot });
  return false;
}
