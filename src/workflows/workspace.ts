import {
  ActivityFailure,
  ApplicationFailure,
  TimeoutFailure,
  isCancellation,
  proxyActivities,
} from '@temporalio/workflow';
import { summarized } from './activity-summary';
import type { Activities } from '../activities/types';
import type { RunToolInput, RunToolSummary } from '../common/tools';
import type { ActivityTimeouts } from '../common/turn';
import { WorkspaceErrorType, mapFormerPath, type WorkspaceRef } from '../common/workspace';
import { activityTimeouts } from './timeouts';
import { toolCancellationType } from './turn-activities';

/**
 * How long a tool call waits on a host queue before the host counts as gone, when the worker
 * did not say (`workspace.hostTimeoutMs` of the worker that holds the tree travels in the ref).
 */
const DEFAULT_HOST_TIMEOUT_MS = 30_000;

/** Activities that act on the working tree: they run on the host that holds it. */
export type HostActivities = Pick<
  Activities,
  'runTool' | 'runHooks' | 'connectMcpServers' | 'prepareCommand' | 'agentWorktree'
>;

/** `terminal_reason` of an agent whose worktree's host is gone (the worktree is not rebuilt elsewhere). */
export const WORKTREE_HOST_LOST = 'agent_worktree_host_lost';

/** Thrown by {@link WorkspaceFollower.runTool} when the turn must stop for its workspace (a snapshot over the limit). */
export class WorkspaceStop extends Error {
  override readonly name = 'WorkspaceStop';
  constructor(
    message: string,
    /** `terminal_reason` of the result. */
    readonly terminalReason: string,
  ) {
    super(message);
  }
}

/**
 * The workspace side of a turn (DESIGN.md rule 7): where the working tree is, tool calls sent to
 * the host that holds it (its own task queue, with a schedule-to-start timeout), and, when that
 * host is gone, the tree re-materialized by any live worker and the call sent there.
 *
 * Deterministic: the state is the {@link WorkspaceRef} the activities return.
 */
export class WorkspaceFollower {
  private readonly prepareAct: Activities['prepareWorkspace'];
  private readonly hostProxies = new Map<string, HostActivities>();
  private recovering: Promise<void> | null = null;

  constructor(
    private readonly sessionId: string,
    /** The working directory the client gave (on the origin host). */
    private readonly originCwd: string,
    private readonly timeouts: ActivityTimeouts | undefined,
    /** Holds where the workspace is (the turn's carried state); updated in place. */
    private readonly holder: { workspace?: WorkspaceRef | null },
  ) {
    const t = activityTimeouts(timeouts);
    this.prepareAct = proxyActivities<Activities>({
      startToCloseTimeout: t.toolStartToCloseMs,
      heartbeatTimeout: t.toolHeartbeatMs,
      retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 20 },
    }).prepareWorkspace;
  }

  /** True while the workspace moves to a live worker because its host is gone. */
  get moving(): boolean {
    return this.recovering !== null;
  }

  /** Where the workspace is (null: not followed). */
  get ref(): WorkspaceRef | null {
    return this.holder.workspace ?? null;
  }

  set ref(ref: WorkspaceRef | null) {
    this.holder.workspace = ref;
  }

  /** The working directory tools and the system prompt use now. */
  get cwd(): string {
    return this.ref?.path ?? this.originCwd;
  }

  /**
   * An absolute path as it is now: a path the model took from an earlier host (under a former
   * root) is mapped under the current root, as the tool activities map tool inputs.
   */
  currentPath(p: string): string {
    const ref = this.ref;
    return ref ? mapFormerPath(p, ref.formerPaths, ref.repoRoot) : p;
  }

  /**
   * Where the workspace is, for a model call (see `CallModelInput.workspace`): its host queue,
   * root and former roots; empty when it is not followed.
   */
  forModelCall(): { workspace?: { hostQueue: string; repoRoot: string; formerRoots?: string[] } } {
    const ref = this.ref;
    if (!ref) return {};
    return {
      workspace: {
        hostQueue: ref.hostQueue,
        repoRoot: ref.repoRoot,
        ...(ref.formerPaths.length > 0 ? { formerRoots: ref.formerPaths } : {}),
      },
    };
  }

  /** Finds or makes the workspace on a live worker (shared queue); null when it is not followed. */
  async prepare(): Promise<void> {
    // An agent's worktree was made on its host just before the agent started: it is in place.
    if (this.ref?.agentWorktree) return;
    this.ref = await summarized(
      this.prepareAct,
      this.ref ? 'move the workspace to a live worker' : 'prepare the workspace',
      {
        sessionId: this.sessionId,
        cwd: this.originCwd,
        current: this.ref,
      },
    );
  }

  /**
   * Runs a tool call on the workspace's host. When the host does not pick it up in time (it is
   * gone), the workspace is re-materialized on a live worker and the same call (same uuids, so
   * a non-idempotent call that had started reports an unknown outcome) goes there.
   * @throws WorkspaceStop when the snapshot after the call is over the limit.
   */
  async runTool(input: RunToolInput, shared: Activities['runTool'], label?: string): Promise<RunToolSummary> {
    for (;;) {
      const ref = this.ref;
      if (!ref || input.skipReason !== undefined) return summarized(shared, label, { ...input, cwd: this.cwd });
      try {
        const summary = await summarized(this.onHost(ref).runTool, label, {
          ...input,
          cwd: ref.path,
          ...snapshotted(ref),
        });
        if (summary.snapshot && this.ref === ref) this.ref = { ...ref, lastSnapshot: summary.snapshot };
        return summary;
      } catch (err) {
        if (hostGone(err)) {
          await this.recover(ref);
          continue;
        }
        const app = err instanceof ActivityFailure && err.cause instanceof ApplicationFailure ? err.cause : null;
        if (app?.type === WorkspaceErrorType.SnapshotTooLarge) {
          throw new WorkspaceStop(app.message, 'workspace_snapshot_too_large');
        }
        throw err;
      }
    }
  }

  /**
   * Runs another host-bound activity (hooks, MCP servers) where the workspace is: on its host's
   * queue while the host lives; when the host is gone the workspace is re-materialized on a live
   * worker and the call goes there. Without a followed workspace it runs on the shared queue.
   * `call` gets the activities to use and the working directory on that host.
   */
  async onWorkspaceHost<T>(
    call: (acts: HostActivities, cwd: string) => Promise<T>,
    shared: HostActivities,
  ): Promise<T> {
    for (;;) {
      const ref = this.ref;
      if (!ref) return call(shared, this.cwd);
      try {
        return await call(this.onHost(ref), ref.path);
      } catch (err) {
        if (!hostGone(err)) throw err;
        await this.recover(ref);
      }
    }
  }

  /**
   * Runs a short read-only tool call as a local activity (in the worker running this workflow
   * task); when that worker is not the workspace's host, or the local attempts fail, the call
   * goes the normal way ({@link runTool}). Same uuids both ways: the result line is written once.
   */
  async runToolLocal(
    input: RunToolInput,
    local: Activities['runTool'],
    shared: Activities['runTool'],
    summary?: string,
  ): Promise<RunToolSummary> {
    const ref = this.ref;
    const localInput: RunToolInput = ref
      ? {
          ...input,
          cwd: ref.path,
          ...snapshotted(ref),
          expectHostQueue: ref.hostQueue,
        }
      : { ...input, cwd: this.cwd };
    try {
      return await summarized(local, summary, localInput);
    } catch (err) {
      if (isCancellation(err)) throw err;
      return this.runTool(input, shared, summary);
    }
  }

  /** One recovery for all the calls that found the same host gone. */
  private async recover(gone: WorkspaceRef): Promise<void> {
    if (this.ref !== gone) return; // another call already moved it
    if (gone.agentWorktree) {
      // Not snapshotted, so not rebuilt elsewhere: the agent stops, its parent hears why (docs/agents.md).
      throw new WorkspaceStop(
        `the host ${gone.host} of this agent's worktree ${gone.path} is gone: an agent's worktree does not move to another host`,
        WORKTREE_HOST_LOST,
      );
    }
    this.recovering ??= this.prepare().finally(() => {
      this.recovering = null;
    });
    await this.recovering;
  }

  private onHost(ref: WorkspaceRef): HostActivities {
    let acts = this.hostProxies.get(ref.hostQueue);
    if (!acts) {
      const t = activityTimeouts(this.timeouts);
      const proxies = proxyActivities<Activities>({
        taskQueue: ref.hostQueue,
        cancellationType: toolCancellationType(),
        scheduleToStartTimeout: ref.hostTimeoutMs ?? DEFAULT_HOST_TIMEOUT_MS,
        startToCloseTimeout: t.toolStartToCloseMs,
        heartbeatTimeout: t.toolHeartbeatMs,
        retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 20 },
      });
      acts = {
        runTool: proxies.runTool,
        runHooks: proxies.runHooks,
        connectMcpServers: proxies.connectMcpServers,
        prepareCommand: proxies.prepareCommand,
        agentWorktree: proxies.agentWorktree,
      };
      this.hostProxies.set(ref.hostQueue, acts);
    }
    return acts;
  }
}

/**
 * What a tool call on the host gets of the workspace (its snapshot after the call, former paths
 * mapped); nothing for an agent's worktree, which is not snapshotted.
 */
function snapshotted(ref: WorkspaceRef): Pick<RunToolInput, 'workspace'> {
  if (ref.agentWorktree) return {};
  return { workspace: { repoRoot: ref.repoRoot, baseCommit: ref.baseCommit, formerPaths: ref.formerPaths } };
}

/** True when an activity was not picked up from its queue in time: its host is gone. */
function hostGone(err: unknown): boolean {
  return (
    err instanceof ActivityFailure &&
    err.cause instanceof TimeoutFailure &&
    err.cause.timeoutType === 'SCHEDULE_TO_START'
  );
}
