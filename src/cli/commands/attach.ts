/**
 * `agent-runner attach <session>`: re-attaches to a session's latest (or given) turn, running or
 * finished, from any process, and prints its stream and result as `-p` would have.
 */
import type { Config } from '../../config';
import type { SDKResultMessage } from '../../common/sdk-messages';
import { QueryEngine } from '../../client/query-engine';
import { turnWorkflowId } from '../../common/ids';
import { openRuntime } from '../../host/runtime';
import type { Runtime } from '../../host/runtime';
import type { OutputFormat } from '../output';
import { EXIT, describeMessage, exitCodeFor, textOutput } from '../output';
import type { ServerModeFlags } from '../server-mode';
import { serverModeOptions } from '../server-mode';
import { UsageError, turnOptionsFrom } from '../turn-options';
import { SessionNotFoundError } from '../../client/session-control';
import { withControlErrors } from './control-errors';

/** Flags of `agent-runner attach`. */
export interface AttachFlags extends ServerModeFlags {
  outputFormat: OutputFormat;
  turn?: string;
  verbose?: boolean;
}

/** Where `attach` writes. */
export interface AttachIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

/**
 * The workflow id of the session's most recently started turn, or null when it has none (found
 * through visibility, which lists the most recent first).
 */
export async function latestTurnWorkflowId(rt: Runtime, sessionId: string): Promise<string | null> {
  const prefix = turnWorkflowId(sessionId, 0).replace(/0$/, '');
  const query = `WorkflowType = 'turnWorkflow' AND WorkflowId STARTS_WITH '${prefix.replace(/'/g, "\\'")}'`;
  let best: { id: string; n: number } | null = null;
  for await (const w of rt.client.workflow.list({ query, pageSize: 100 })) {
    const n = Number(w.workflowId.slice(prefix.length));
    if (Number.isInteger(n) && (best === null || n > best.n)) best = { id: w.workflowId, n };
  }
  return best?.id ?? null;
}

/**
 * Prints the stream and result of a session's turn. Exit code as `-p`: 0 success, 1 error result,
 * 1 no such session or turn (as `status` and the other control commands), 2 usage (a bad flag).
 */
export async function runAttach(config: Config, sessionId: string, flags: AttachFlags, io: AttachIo): Promise<number> {
  return withControlErrors(io, () => attach(config, sessionId, flags, io));
}

async function attach(config: Config, sessionId: string, flags: AttachFlags, io: AttachIo): Promise<number> {
  if (flags.turn !== undefined && !/^[1-9]\d*$/.test(flags.turn)) {
    throw new UsageError(`--turn must be a positive integer, got "${flags.turn}"`);
  }
  const log = flags.verbose ? (l: string) => io.stderr(l) : () => undefined;
  // Attaching calls no model: no key needed, and a shared server is used as it is (never restarted).
  const rt = await openRuntime({
    config,
    ...serverModeOptions(flags),
    worker: false,
    callsModel: false,
    log,
    notice: io.stderr,
  });
  try {
    const turnId =
      flags.turn !== undefined
        ? turnWorkflowId(sessionId, Number(flags.turn))
        : await latestTurnWorkflowId(rt, sessionId);
    if (turnId === null) throw new SessionNotFoundError(sessionId, 'not_found');
    if (flags.turn !== undefined) {
      try {
        await rt.client.workflow.getHandle(turnId).describe();
      } catch {
        io.stderr(`agent-runner: attach: session ${sessionId} has no turn ${flags.turn} on ${rt.address}`);
        return EXIT.error;
      }
    }
    if (rt.mode === 'embedded' && !rt.worker) {
      // A private dev server without a worker (no server ran, and no model key to start one):
      // a finished turn can be read, a running one would never move.
      const status = (await rt.client.workflow.getHandle(turnId).describe()).status.name;
      if (status === 'RUNNING') {
        throw new UsageError(
          `attach: turn ${turnId} is still running, and no agent-runner server runs to carry it on: ` +
            `set ${config.model.apiKeyEnv} (attach then starts the background server, whose worker continues the turn), ` +
            'or start `agent-runner server`',
        );
      }
    }
    if (flags.verbose) io.stderr(`attached to ${turnId}`);
    const engine = new QueryEngine({
      client: rt.client,
      store: rt.store,
      taskQueue: rt.taskQueue,
      cwd: process.cwd(),
      defaults: turnOptionsFrom(config, {}),
      sessionId,
      outage: {
        timeoutMs: config.temporal.outageTimeoutMs,
        notice: (l) => io.stderr(l),
        onUnreachable: () => rt.recover(),
      },
      // A turn that shows nothing new for a few seconds: what it waits for, on stderr.
      stallNotice: (l) => io.stderr(l),
    });
    let result: SDKResultMessage | undefined;
    // As `-p`, the stream opens with `system/init` (the options the turn runs with).
    for await (const msg of engine.attach(turnId)) {
      if (flags.outputFormat === 'stream-json') io.stdout(JSON.stringify(msg));
      else if (flags.verbose) {
        const line = describeMessage(msg);
        if (line) io.stderr(line);
      }
      if (msg.type === 'result') result = msg;
    }
    if (result && flags.outputFormat === 'json') io.stdout(JSON.stringify(result));
    if (result && flags.outputFormat === 'text') {
      const out = textOutput(result);
      if (out.stdout) io.stdout(out.stdout);
      if (out.stderr) io.stderr(out.stderr);
    }
    return result ? exitCodeFor(result) : EXIT.error;
  } finally {
    await rt.close();
  }
}
