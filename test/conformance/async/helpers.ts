/** Building blocks the scenario files share: steps, Agent calls, the subagent tool set, task fields. */
import type { StepSpec } from '../../../src/fake-model';
import { pick } from './checks';
import { marker, say, text, tool } from './scenario';

/** A step answering after `ms`. */
export const slow = (ms: number, step: StepSpec): StepSpec => ({ ...step, delay_ms: ms });
/** An Agent call. */
export const agent = (input: Record<string, unknown>): ReturnType<typeof tool> => tool('Agent', input);
/** A prompt for conversation `name`. */
export const ask = (name: string, task: string): string => `${marker(name)} ${task}`;
/** Text answers, one per step (later turns started by notifications take the next). */
export const texts = (...ts: string[]): StepSpec[] => ts.map((t) => say(text(t)));

/** What a subagent of the main session is offered with the async tool set: all but ScheduleWakeup. */
export const SUBAGENT_TOOLS = [
  'Agent',
  'Bash',
  'CronCreate',
  'CronDelete',
  'CronList',
  'Edit',
  'Glob',
  'Grep',
  'ListAgents',
  'Monitor',
  'Read',
  'SendMessage',
  'TaskStop',
  'DeferredToolPlaceholder',
  'Write',
];

/** The fields of the stream's task messages (besides type, subtype, uuid, session_id). */
export const TASK_FIELDS = {
  startedAgent: [
    'description',
    'is_backgrounded',
    'prompt',
    'run_id',
    'spawn_depth',
    'subagent_type',
    'task_id',
    'task_type',
    'tool_use_id',
  ],
  progress: ['description', 'last_tool_name', 'run_id', 'subagent_type', 'task_id', 'tool_use_id', 'usage'],
  updated: ['patch', 'run_id', 'task_id'],
};
/** Fields every stream message has. */
export const BASE_FIELDS = ['session_id', 'subtype', 'type', 'uuid'];
/** `fields` and {@link BASE_FIELDS}, sorted (what `fieldsOf` returns). */
export const withBase = (fields: readonly string[]): string[] => [...fields, ...BASE_FIELDS].sort();

/** A result line of a turn a notification started. */
export function expectNotificationTurn(
  result: Record<string, unknown> | undefined,
  index: number,
  runId?: string,
): void {
  expect(pick(result, ['result_index', 'origin'])).toEqual({
    result_index: index,
    origin: { kind: 'task-notification', producer: 'session-task', ...(runId !== undefined ? { runId } : {}) },
  });
}
