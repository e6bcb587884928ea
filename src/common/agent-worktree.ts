/**
 * Wire types of `agentWorktree` (src/activities/agents/worktree.ts): an agent's git worktree for
 * `isolation: "worktree"`. Small and JSON-safe: they travel in workflow history.
 */

/** Input of `agentWorktree`. */
export type AgentWorktreeInput =
  /** Make the worktree of agent `agentId` from the `HEAD` of the repository around `cwd`. */
  | { op: 'create'; cwd: string; agentId: string }
  /** The run ended: remove the worktree (and its branch) when unchanged since `base`. */
  | { op: 'finish'; worktree: AgentWorktree };

/** An agent's worktree. */
export interface AgentWorktree {
  /** Absolute path of the worktree (the agent's cwd). */
  path: string;
  branch: string;
  /** The commit it started from, 40 hex. */
  base: string;
  /** The main repository's root (where `git worktree` commands run). */
  repoRoot: string;
}

/** What `agentWorktree` did. */
export type AgentWorktreeResult =
  | { op: 'create'; ok: true; worktree: AgentWorktree }
  /** Not made (`cwd` is not in a git repository with a commit): `message` is the tool error. */
  | { op: 'create'; ok: false; message: string }
  /** `kept`: the agent changed something, the worktree and branch stay; else both are removed. */
  | { op: 'finish'; kept: boolean };
