/** The task tools' definitions against what Claude Code 2.1.328 sent (async recordings). */
import { join } from 'node:path';
import {
  LIST_AGENTS_SPEC,
  SEND_MESSAGE_SPEC,
  TASK_STOP_SPEC,
  agentToolSpec,
} from '../../../../src/activities/agents/tool-specs';
import type { AgentToolSwitches } from '../../../../src/activities/agents/tool-specs';
import { RECORDINGS_DIR, loadRecording } from '../../../conformance/async/recording';

const recorded = (scenario: string, name: string): Record<string, unknown> | undefined =>
  loadRecording(join(RECORDINGS_DIR, scenario)).requests[0]?.body.tools?.find((t) => t.name === name);

describe('task tool specs', () => {
  test.each<[string, AgentToolSwitches]>([
    ['tools-async', {}],
    ['tools-background-disabled', { backgroundTasks: false }],
    ['tools-fork-subagent', { forkSubagent: true }],
    ['tools-no-builtin-agents', { generalPurpose: false }],
  ])('agentToolSpec: %s is byte for byte what 2.1.328 offered', (scenario, switches) => {
    expect(agentToolSpec(switches)).toEqual(recorded(scenario, 'Agent'));
  });

  test('TaskStop and ListAgents are as recorded; SendMessage but for its example ref', () => {
    expect(TASK_STOP_SPEC).toEqual(recorded('tools-async', 'TaskStop'));
    expect(LIST_AGENTS_SPEC).toEqual(recorded('tools-async', 'ListAgents'));
    const send = recorded('tools-async', 'SendMessage')!;
    expect(SEND_MESSAGE_SPEC.input_schema).toEqual(send['input_schema']);
    expect(SEND_MESSAGE_SPEC.description).toBe(String(send['description']).replaceAll('<ref:1>', 'a1b2c3'));
  });
});
