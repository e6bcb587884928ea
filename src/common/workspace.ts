/**
 * Where a session's working tree is and how to get it back: JSON-safe and small, because it
 * travels in workflow state, activity inputs and results (the content is in the store).
 */

/** The snapshot taken after one tool call (content key `workspace/snapshot/<toolUseId>`). */
export interface SnapshotRef {
  toolUseId: string;
  /** Commit of the snapshot (parent: the base commit), 40 hex. */
  commit: string;
  /** Size of the stored pack, bytes. */
  bytes: number;
}

/** Where a workspace is now: the host that holds it, and its last snapshot. */
export interface WorkspaceRef {
  /** Host name of the worker that holds the tree. */
  host: string;
  /** The host-specific task queue of that worker: tool calls go there while it lives. */
  hostQueue: string;
  /** Working directory on that host (the turn's cwd there). */
  path: string;
  /** Repository root on that host. */
  repoRoot: string;
  /** The base commit every snapshot is relative to, 40 hex. */
  baseCommit: string;
  /** Last snapshot, or null before the first mutating tool call. */
  lastSnapshot: SnapshotRef | null;
  /** Working directories this session had on other hosts (old paths in tool inputs are mapped to `path`). */
  formerPaths: string[];
  /** How many times the workspace moved to another host. */
  moves: number;
  /**
   * Set when the workspace moved to another host during the turn that returned this ref (at its
   * start or mid-turn): where it was before. Cleared at the next turn that does not move it.
   */
  movedFrom?: { host: string; path: string };
  /** How long a tool call waits for this host before it counts as gone (its `workspace.hostTimeoutMs`), ms. */
  hostTimeoutMs?: number;
  /**
   * Set on the ref a subagent with `isolation: "worktree"` runs in: `path` and `repoRoot` are its
   * git worktree on the session's host. Such a tree is not snapshotted and does not move to
   * another host (docs/agents.md, "Worktrees"): when its host is gone the agent's tool calls fail.
   */
  agentWorktree?: { agentId: string };
}

/**
 * The ref of a subagent's worktree on the host of `parent` (the session's tree): rooted at the
 * worktree, with no snapshot and no former roots of its own.
 */
export function agentWorktreeRef(parent: WorkspaceRef, agentId: string, worktreePath: string): WorkspaceRef {
  const { movedFrom: _moved, ...rest } = parent;
  void _moved;
  return {
    ...rest,
    path: worktreePath,
    repoRoot: worktreePath,
    lastSnapshot: null,
    formerPaths: [],
    agentWorktree: { agentId },
  };
}

/**
 * Maps an absolute path under a former root of the workspace (another host's) to the same place
 * under `root`; other paths are returned as they are. Pure: used by the workflow (read-file state
 * keys) and by tool activities (tool inputs).
 */
export function mapFormerPath(p: string, formerRoots: readonly string[], root: string): string {
  for (const old of formerRoots) {
    if (p === old) return root;
    if (p.startsWith(`${old}/`)) return root + p.slice(old.length);
  }
  return p;
}

/** Content key of the origin record of a session. */
export const ORIGIN_KEY = 'workspace/origin';
/** Content key of the ref (JSON) of the snapshot of uncommitted changes the session started with. */
export const INITIAL_SNAPSHOT_KEY = 'workspace/initial.json';
/** Content key of the base bundle (a repository without a usable remote). */
export const BUNDLE_KEY = 'workspace/base.bundle';
/** Content key of the snapshot after a tool call. */
export function snapshotKey(toolUseId: string): string {
  return `workspace/snapshot/${toolUseId}`;
}

/** Snapshot id of the user's own changes found at the start of a turn (the commit names it). */
export function changesSnapshotId(commit: string): string {
  return `changes-${commit}`;
}

/** The ref of a `changes-<commit>` snapshot from its id and size; null for other ids. */
export function changesSnapshotRef(id: string, bytes: number): SnapshotRef | null {
  const m = /^changes-([0-9a-f]{40,64})$/.exec(id);
  return m ? { toolUseId: id, commit: m[1]!, bytes } : null;
}

/** Error types of workspace failures (ApplicationFailure `type`). */
export const WorkspaceErrorType = {
  /** A snapshot is larger than `workspace.maxSnapshotBytes`: the turn stops, nothing is lost. */
  SnapshotTooLarge: 'Workspace.SnapshotTooLarge',
  /** The workspace root of a worker cannot be written. */
  RootNotWritable: 'Workspace.RootNotWritable',
  /** The workspace cannot be materialized (no origin, git failed). */
  Unavailable: 'Workspace.Unavailable',
  /** A local activity ran on a worker that is not the workspace's host: the workflow sends the call to the host. */
  NotOnHost: 'Workspace.NotOnHost',
} as const;
