import type { Config } from '../../config';
import { interruptSession, sessionStatus } from '../../client/session-control';
import type { ControlIo } from '../control';
import { openControlRuntime } from '../control';
import { withControlErrors } from './control-errors';

/** Flags of `agent-runner interrupt`. */
export interface InterruptFlags {
  reason?: string;
  json?: boolean;
}

/**
 * `agent-runner interrupt <session>`: asks the session's running turn to stop. The turn ends with
 * an `error_during_execution` result whose every tool_use has a tool_result, so the next `-p
 * --resume` continues cleanly. Nothing happens when the session is idle.
 */
export async function runInterrupt(
  config: Config,
  sessionId: string,
  flags: InterruptFlags,
  io: ControlIo,
): Promise<number> {
  return withControlErrors(io, async () => {
    const rt = await openControlRuntime(config, 'interrupt');
    try {
      const before = await sessionStatus(rt.client, sessionId);
      const turn = before.session.currentTurnWorkflowId;
      if (turn)
        await interruptSession(rt.client, sessionId, flags.reason ?? 'Interrupted by user (agent-runner interrupt)');
      if (flags.json)
        io.stdout(JSON.stringify({ session_id: sessionId, interrupted: turn !== null, turn_workflow_id: turn }));
      else io.stdout(turn ? `interrupt sent to ${turn}` : `session ${sessionId} is idle: nothing to interrupt`);
      return 0;
    } finally {
      await rt.close();
    }
  });
}
