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
 * `agent-runner interrupt <session>`: asks the session's running turn to stop, and stops its
 * running background tasks. The turn ends with an `error_during_execution` result whose every
 * tool_use has a tool_result, so the next `-p --resume` continues cleanly; a stopped task starts
 * no notification turn. Nothing happens when the session is idle with no task running.
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
      // Background tasks (agents, commands, wake-ups) run while no turn does: an interrupt stops them
      // too (cron jobs stay, as Esc leaves them in Claude Code).
      const tasks = (before.session.tasks ?? []).filter((t) => t.status === 'running' && t.kind !== 'cron').length;
      if (turn || tasks > 0)
        await interruptSession(rt.client, sessionId, flags.reason ?? 'Interrupted by user (agent-runner interrupt)');
      if (flags.json)
        io.stdout(
          JSON.stringify({
            session_id: sessionId,
            interrupted: turn !== null || tasks > 0,
            turn_workflow_id: turn,
            tasks_stopped: tasks,
          }),
        );
      else if (turn) io.stdout(`interrupt sent to ${turn}${tasks > 0 ? ` (and ${tasks} running task(s))` : ''}`);
      else if (tasks > 0) io.stdout(`interrupt sent to session ${sessionId}: stopping ${tasks} running task(s)`);
      else io.stdout(`session ${sessionId} is idle: nothing to interrupt`);
      return 0;
    } finally {
      await rt.close();
    }
  });
}
