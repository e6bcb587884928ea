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
  WorkspaceErrorType,
  mapFormerPath,
  type SnapshotRef,
  type WorkspaceRef,
} from '../../common/workspace';
import type { TranscriptStore } from '../../store/transcript-store';
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
export class WorkspaceRootError extends Error {
  override readonly name = 'WorkspaceRootError';
}

/**
 * Checks that `root` can hold workspaces: creates it and writes a probe file.
 * @throws WorkspaceRootError naming the path, the setting and the system error.
 */
export function checkWorkspaceRoot(root: string): void {
  try {
    fs.mkdirSync(root, { recursive: true });
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

/** Creates `prepareWorkspace` for this worker. */
export function createPrepareWorkspace(
  store: TranscriptStore,
  me: WorkspaceHost,
): (input: PrepareWorkspaceInput) => Promise<WorkspaceRef | null> {
  return async ({ sessionId, cwd, current }) => {
    if (!me.config.follow) return null;
    const stored = await store.getContent(sessionId, ORIGIN_KEY);
    let origin: Origin | null = stored ? (JSON.parse(stored.toString('utf8')) as Origin) : null;
    const expected = current?.lastSnapshot ?? null;

    // Same worker, tree still there: nothing to do.
    if (current && current.hostQueue === me.hostQueue && fs.existsSync(current.path)) return current;

    // Adopt a tree in place when it is here and holds exactly the expected state.
    const candidate = current?.path ?? cwd;
    const repo = await repoOf(candidate);
    if (!origin) {
      if (!repo) return null; // not a git work tree with a commit: not followed
      const recorded = await recordOrigin(store, sessionId, candidate, repo);
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
      return here(me, candidate, repo.root, origin.baseCommit, initial, current);
    }
    if (repo && (await holds(repo.root, origin.baseCommit, expected, sessionId))) {
      return here(me, candidate, repo.root, origin.baseCommit, expected, current);
    }

    // Re-materialize under this worker's own root.
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
      await materialize({ store, sessionId, origin, snapshot: expected, dir });
    } catch (err) {
      throw ApplicationFailure.create({
        type: WorkspaceErrorType.Unavailable,
        message: `cannot rebuild the workspace of session ${sessionId} at ${dir}: ${(err as Error).message}`,
      });
    }
    const moved = here(me, path.join(dir, origin.cwdRel), dir, origin.baseCommit, expected, current);
    return { ...moved, moves: (current?.moves ?? 0) + 1 };
  };
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
