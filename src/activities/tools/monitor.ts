/**
 * `Monitor` (Claude Code 2.1.328): starts a command whose stdout lines are events the session
 * gets while it runs, and answers with 2.1.328's start text. The command runs as a background
 * command does (`runBackgroundShell` in monitor mode, a task of the session); the model sees
 * 2.1.328's spec (`src/activities/monitor/tool-spec.ts`), this zod schema only checks the input.
 * The `ws` source is not built: a call with it is an error result.
 */
import { z } from 'zod';
import { MONITOR_TOOL, monitorTimeoutMs } from '../../common/monitor';
import { prepareBackground } from '../background/launch';
import { monitorStartedText } from '../monitor/texts';
import { errorOutput } from './format';
import { shellStart } from './shell-cwd';
import type { ToolDefinition, ToolOutput } from './types';

export const MonitorInputSchema = z.object({
  description: z.string(),
  timeout_ms: z.number().optional(),
  command: z.string().optional(),
  ws: z.object({ url: z.string(), protocols: z.array(z.string()).optional() }).optional(),
  persistent: z.boolean().optional(),
});
export type MonitorInput = z.infer<typeof MonitorInputSchema>;

/** The `tool_use_result` of a started monitor, as 2.1.328's. */
export interface MonitorStructured {
  taskId: string;
  timeoutMs: number;
  persistent: false;
}

async function runMonitor(input: MonitorInput, ctx: Parameters<ToolDefinition['run']>[1]): Promise<ToolOutput> {
  if (input.ws !== undefined) {
    return errorOutput('The ws source of Monitor is not available in this runner; use command (e.g. websocat).');
  }
  if (input.command === undefined || input.command.trim() === '') {
    return errorOutput('Monitor needs a command: a shell command whose stdout lines are the events.');
  }
  const start = await shellStart(ctx);
  const timeoutMs = monitorTimeoutMs(input.timeout_ms);
  const launch = await prepareBackground(
    { command: input.command, description: input.description },
    timeoutMs,
    ctx,
    start.dir,
  );
  if ('content' in launch) return launch;
  const structured: MonitorStructured = { taskId: launch.taskId, timeoutMs, persistent: false };
  return {
    content: monitorStartedText(launch.taskId, timeoutMs),
    isError: false,
    structured,
    background: { ...launch, monitor: true },
  };
}

/** The Monitor tool. Not idempotent (it starts a command). */
export const MonitorTool: ToolDefinition<MonitorInput> = {
  name: MONITOR_TOOL,
  description: 'Start a background monitor that streams events from a long-running script.',
  inputSchema: MonitorInputSchema,
  readOnly: false,
  idempotent: false,
  run: runMonitor,
};
