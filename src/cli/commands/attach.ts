/**
 * `agent-runner attach <session>`: re-attaches to a session's latest (or given) turn, running or
 * finished, from any process, and prints its stream and result as `-p` would have.
 */
import type { Config } from '../../config';
import type { SDKResultMessage } from '../../common/sdk-messages';
import { QueryEngine } from '../../client/query-engine';
import { turnWorkflowId } from '../../workflows/ids';
import { openRuntime } from '../../worker/runtime';
import type { Runtime } from '../../worker/runtime';
import type { OutputFormat } from '../output';
import { EXIT, describeMessage, exitCodeFor, textOutput } from '../output';
import type { ServerModeFlags } from '../server-mode';
import { serverModeOptions } from '../server-mode';
import { UsageError, turnOptionsFrom } from '../turn-options';

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
 * 2 usage (no such session or turn).
 */
export async function runAttach(config: Config, sessionId: string, flags: AttachFlags, io: AttachIo): Promise<number> {
  if (flags.turn !== undefined && !/^[1-9]\d*$/.test(flags.turn)) {
    throw new UsageError(`--turn must be a positive integer, got "${flags.turn}"`);
  }
  const log = flags.verbose ? (l: string) => io.stderr(l) : () => undefined;
  const rt = await openRuntime({ config, ...serverModeOptions(flags), worker: false, log, notice: io.stderr });
  try {
    const turnId =
      flags.turn !== undefined
        ? turnWorkflowId(sessionId, Number(flags.turn))
        : await latestTurnWorkflowId(rt, sessionId);
    if (turnId === null) throw new UsageError(`attach: session ${sessionId} has no turn on ${rt.address}`);
    if (flags.turn !== undefined) {
      try {
        await rt.client.workflow.getHandle(turnId).describe();
      } catch {
        throw new UsageError(`attach: session ${sessionId} has no turn ${flags.turn} on ${rt.address}`);
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
