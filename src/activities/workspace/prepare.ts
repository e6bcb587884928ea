/**
 * The `prepareWorkspace` activity: finds or makes the working tree of a session on the worker
 * that runs it, and tells the workflow where it is (host, host queue, path). It runs on the
 * shared task queue, so any live worker can take it: at the start of a turn, and when the host
 * that held the tree is gone.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import type { WorkspaceConfig } from '../../config';
import {
  INITIAL_SNAPSHOT_KEY,
  ORIGIN_KEY,
  changesSnapshotId,
  WorkspaceErrorType,
  mapFormerPath,
  type SnapshotRef,
  type WorkspaceRef,
} from '../../common/workspace';
import type { TranscriptStore } from '../../store/transcript-store';
import { lastSnapshot } from './export';
import { git } from './git';
import {
  materialize,
  recordOrigin,
  repoOf,
  snapshotCommit,
  storeSnapshot,
  treeOf,
  workingTree,
  type Origin,
} from './snapshot';
import { AgentRunnerError } from '../../common/errors';

/** Input of `prepareWorkspace`. */
export interface PrepareWorkspaceInput {
  sessionId: string;
  /** The turn's working directory as the client gave it (on the origin host). */
  cwd: string;
  /** Where the workspace was last (null at the first turn of a session). */
  current: WorkspaceRef | null;
}

/** What a worker knows of itself, for workspaces. */
export interface WorkspaceHost {
  /** This worker's own task queue (the worker-specific task queue pattern). */
  hostQueue: string;
  /** Host name shown to users. */
  host: string;
  config: WorkspaceConfig;
}

/**
 * Thrown at worker start when the workspace root cannot be created or written: the worker could
 * not take over a workspace, so it refuses to start (the CLI exits 2).
 */
export class WorkspaceRootError extends AgentRunnerError {
  override readonly name = 'WorkspaceRootError';
  readonly kind = 'usage';
}

/**
 * Checks that `root` can hold workspaces: creates it and writes a probe file.
 * @throws WorkspaceRootError naming the path, the setting and the system error.
 */
export function checkWorkspaceRoot(root: string): void {
  try {
    // Workspaces hold checkouts of the sessions' repositories: what this creates is owner-only.
    fs.mkdirSync(root, { recursive: true, mode: 0o700 });
    const probe = path.join(root, `.probe-${process.pid}`);
    fs.writeFileSync(probe, 'ok');
    fs.rmSync(probe);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new WorkspaceRootError(
      `the workspace root ${root} cannot be written (${code}): set workspace.root in temporal.yaml or ` +
        'AGENT_RUNNER_WORKSPACE_ROOT to a writable directory (or workspace.follow: false)',
    );
  }
}

/**
 * Creates `prepareWorkspace` for this worker. Where the turn runs (docs/deploy.md, "Where a turn
 * runs"):
 *
 * 1. The first turn of a session records the origin in place (uncommitted changes are the first
 *    snapshot).
 * 2. The tree where the session left it, still on this host: in place, as the user left it (their
 *    own edits between turns included: they become a snapshot, so a later move carries them).
 * 3. A resumed session (its workflow rebuilt from the store, so where the tree was is not known):
 *    the client's directory when it is in a repository that has the session's base commit, in
 *    place, whatever its state; another directory on the origin host runs the turn there, not
 *    followed (as `claude -p --resume` runs in its cwd).
 * 4. Otherwise the host that held the tree is gone: the last snapshot is re-materialized under
 *    this worker's root (a move: `moves` + 1, `movedFrom` set), unless the client's directory is
 *    here and holds exactly that snapshot.
 */
export function createPrepareWorkspace(
  store: TranscriptStore,
  me: WorkspaceHost,
): (input: PrepareWorkspaceInput) => Promise<WorkspaceRef | null> {
  return async ({ sessionId, cwd, current }) => {
    if (!me.config.follow) return null;
    const stored = await store.getContent(sessionId, ORIGIN_KEY);
    let origin: Origin | null = stored ? (JSON.parse(stored.toString('utf8')) as Origin) : null;

    if (!origin) {
      const repo = await repoOf(cwd);
      if (!repo) return null; // not a git work tree with a commit: not followed
      const recorded = await recordOrigin(store, sessionId, cwd, repo);
      const put = await store.putContent(sessionId, ORIGIN_KEY, JSON.stringify(recorded));
      origin = put.created
        ? recorded
        : (JSON.parse((await store.getContent(sessionId, ORIGIN_KEY))!.toString()) as Origin);
      // Uncommitted changes the user started with are the first snapshot.
      const tree = await workingTree(repo.root, origin.baseCommit, sessionId);
      const initial =
        tree === (await treeOf(repo.root, origin.baseCommit))
          ? null
          : await storeSnapshot({
              store,
              sessionId,
              toolUseId: 'initial',
              root: repo.root,
              base: origin.baseCommit,
              maxBytes: me.config.maxSnapshotBytes,
            });
      if (initial) await store.putContent(sessionId, INITIAL_SNAPSHOT_KEY, JSON.stringify(initial));
      return here(me, cwd, repo.root, origin.baseCommit, initial, current);
    }
    const base = origin.baseCommit;
    const onOriginHost = origin.host === me.host;

    if (current?.agentWorktree) return agentWorktreeHere(me, current);
    if (current) {
      // The tree where the session left it, on this host: in place, never moved.
      const left = current.host === me.host ? await sessionRepo(current.path, base) : null;
      if (left) {
        if (current.hostQueue === me.hostQueue && left.root === current.repoRoot && !current.movedFrom) return current;
        const snapshot = await userChanges(store, me, sessionId, left.root, base, current.lastSnapshot);
        return here(me, current.path, left.root, base, snapshot, current);
      }
      // Its host is gone: the client's directory only when it holds exactly the last snapshot.
      const repo = await sessionRepo(cwd, base);
      if (repo && (await holds(repo.root, base, current.lastSnapshot, sessionId))) {
        return here(me, cwd, repo.root, base, current.lastSnapshot, current);
      }
      return move(store, me, sessionId, origin, current.lastSnapshot, current);
    }

    // A resumed session: the client's directory, as the user has it, when it is the session's repository.
    const expected = await lastSnapshot(store, sessionId);
    const repo = await sessionRepo(cwd, base);
    if (repo && (onOriginHost || (await holds(repo.root, base, expected, sessionId)))) {
      const snapshot = await userChanges(store, me, sessionId, repo.root, base, expected);
      return here(me, cwd, repo.root, base, snapshot, null);
    }
    // Another directory on the origin host: the turn runs there, not followed.
    if (onOriginHost && fs.existsSync(cwd)) return null;
    return move(store, me, sessionId, origin, expected, null);
  };
}

/**
 * A subagent's worktree (`isolation: "worktree"`) stays on its host: in place there, refused on
 * any other worker, since it is not snapshotted and cannot be rebuilt (docs/agents.md,
 * "Worktrees"). The workflow does not ask (its follower never prepares a worktree's ref): a guard.
 */
function agentWorktreeHere(me: WorkspaceHost, current: WorkspaceRef): WorkspaceRef {
  if (current.host === me.host && fs.existsSync(current.path)) {
    return { ...current, hostQueue: me.hostQueue, hostTimeoutMs: me.config.hostTimeoutMs };
  }
  throw ApplicationFailure.create({
    type: WorkspaceErrorType.Unavailable,
    message:
      `the worktree of agent ${current.agentWorktree?.agentId ?? ''} (${current.path}) is on host ${current.host}, ` +
      `not on ${me.host}: an agent's worktree does not move to another host`,
    nonRetryable: true,
  });
}

/** The repository around `dir` when it is a work tree that has the commit `base`; null otherwise. */
async function sessionRepo(dir: string, base: string): Promise<{ root: string } | null> {
  const repo = await repoOf(dir);
  if (!repo) return null;
  const found = await git(['cat-file', '-e', `${base}^{commit}`], { cwd: repo.root, okCodes: [1, 128] });
  return found.code === 0 ? { root: repo.root } : null;
}

/**
 * The snapshot of the tree at `root` as it is now: `expected` when the tree still holds it, else
 * a new snapshot of what the user changed since (`changes-<commit>`, content-addressed, so a
 * retried attempt stores nothing new); null when the tree is the base and nothing was expected.
 */
async function userChanges(
  store: TranscriptStore,
  me: WorkspaceHost,
  sessionId: string,
  root: string,
  base: string,
  expected: SnapshotRef | null,
): Promise<SnapshotRef | null> {
  const tree = await workingTree(root, base, sessionId);
  if (expected && tree === (await treeOf(root, expected.commit).catch(() => null))) return expected;
  if (!expected && tree === (await treeOf(root, base))) return null;
  const commit = await snapshotCommit(root, base, tree);
  if (expected?.commit === commit) return expected;
  return storeSnapshot({
    store,
    sessionId,
    toolUseId: changesSnapshotId(commit),
    root,
    base,
    maxBytes: me.config.maxSnapshotBytes,
  });
}

/**
 * Re-materializes the workspace under this worker's own root from the origin and `snapshot`:
 * the host that held it is gone. The ref says so (`moves` + 1, `movedFrom`).
 */
async function move(
  store: TranscriptStore,
  me: WorkspaceHost,
  sessionId: string,
  origin: Origin,
  snapshot: SnapshotRef | null,
  current: WorkspaceRef | null,
): Promise<WorkspaceRef> {
  const dir = path.join(me.config.root ?? path.join(os.tmpdir(), 'agent-runner-workspaces'), sessionId);
  try {
    checkWorkspaceRoot(path.dirname(dir));
  } catch (err) {
    throw ApplicationFailure.create({
      type: WorkspaceErrorType.RootNotWritable,
      message: (err as Error).message,
      nonRetryable: false,
    });
  }
  try {
    await materialize({ store, sessionId, origin, snapshot, dir });
  } catch (err) {
    throw ApplicationFailure.create({
      type: WorkspaceErrorType.Unavailable,
      message: `cannot rebuild the workspace of session ${sessionId} at ${dir}: ${(err as Error).message}`,
    });
  }
  const from = current ?? { host: origin.host, path: path.join(origin.repoRoot, origin.cwdRel) };
  const moved = here(me, path.join(dir, origin.cwdRel), dir, origin.baseCommit, snapshot, current);
  return { ...moved, moves: (current?.moves ?? 0) + 1, movedFrom: { host: from.host, path: from.path } };
}

function here(
  me: WorkspaceHost,
  cwd: string,
  repoRoot: string,
  baseCommit: string,
  lastSnapshot: SnapshotRef | null,
  current: WorkspaceRef | null,
): WorkspaceRef {
  const former = new Set(current?.formerPaths ?? []);
  if (current && current.repoRoot !== repoRoot) former.add(current.repoRoot);
  former.delete(repoRoot);
  return {
    host: me.host,
    hostQueue: me.hostQueue,
    path: cwd,
    repoRoot,
    baseCommit,
    lastSnapshot,
    formerPaths: [...former],
    moves: current?.moves ?? 0,
    hostTimeoutMs: me.config.hostTimeoutMs,
  };
}

/** True when the work tree at `root` is on `base` and holds exactly the expected snapshot (or the base). */
async function holds(root: string, base: string, expected: SnapshotRef | null, sessionId: string): Promise<boolean> {
  try {
    const tree = await workingTree(root, base, sessionId);
    const want = expected ? await treeOf(root, expected.commit).catch(() => null) : await treeOf(root, base);
    if (want === null) return false;
    if (expected) {
      // The snapshot commit must be the one this tree would make (same base, same tree).
      return tree === want && (await snapshotCommit(root, base, tree)) === expected.commit;
    }
    return tree === want;
  } catch {
    return false;
  }
}

/**
 * Maps absolute paths of a former host to this one: a tool input path under a former repository
 * root is moved under the current root. Bash commands get the same replacement (a former root
 * is a long absolute path, so a plain replacement is safe enough for commands the model wrote
 * with the old location).
 */
export function mapFormerPaths(
  toolName: string,
  input: unknown,
  formerRoots: readonly string[],
  root: string,
): unknown {
  if (formerRoots.length === 0 || typeof input !== 'object' || input === null) return input;
  const mapPath = (p: string): string => mapFormerPath(p, formerRoots, root);
  const out: Record<string, unknown> = { ...(input as Record<string, unknown>) };
  for (const key of ['file_path', 'path', 'notebook_path']) {
    const v = out[key];
    if (typeof v === 'string') out[key] = mapPath(v);
  }
  if (toolName === 'Bash' && typeof out['command'] === 'string') {
    let cmd = out['command'];
    for (const old of formerRoots) {
      // Only whole paths: `/a/repo` in `/a/repo/x` or `/a/repo "`, not in `/a/repository`.
      const re = new RegExp(`${old.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?=$|[/\\s'"\x60;:|&)<>])`, 'g');
      cmd = cmd.replace(re, () => root);
    }
    out['command'] = cmd;
  }
  return out;
}
