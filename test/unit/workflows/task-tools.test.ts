import type { TurnOptions } from '../../../src/common/turn';
import { agentListingInput, modelToolNames, offeredTools } from '../../../src/workflows/task-tools';

const base: TurnOptions = { model: 'm', maxTokens: 100, limits: {}, permissionMode: 'default' };

describe('task tools: the tool names a turn gives callModel', () => {
  test('modelToolNames: none for the default set without subagents (the activity uses its own default)', () => {
    expect(modelToolNames(base)).toBeUndefined();
  });
  test('modelToolNames: the default set with subagents keeps Skill and ToolSearch, so deferral and skills still apply', () => {
    expect(modelToolNames({ ...base, subagents: {} })).toEqual([
      'Read',
      'Write',
      'Edit',
      'Bash',
      'Glob',
      'Grep',
      'WebSearch',
      'WebFetch',
      'Agent',
      'SendMessage',
      'TaskStop',
      'ListAgents',
      'Skill',
      'ToolSearch',
    ]);
  });
  test('modelToolNames: a --tools list is given as listed (a list without ToolSearch defers nothing)', () => {
    expect(modelToolNames({ ...base, tools: ['Read', 'Agent'], subagents: {} })).toEqual(['Read', 'Agent']);
    expect(modelToolNames({ ...base, tools: ['Read', 'Agent'] })).toEqual(['Read']);
  });
  test('offeredTools: an agent at the spawn-depth limit is not offered Agent', () => {
    expect(offeredTools({ ...base, subagents: { depth: 1, maxSpawnDepth: 1 } })).not.toContain('Agent');
    expect(modelToolNames({ ...base, subagents: { depth: 1, maxSpawnDepth: 1 } })).toContain('ToolSearch');
  });
  test('agentListingInput: the own agent and a fork in the environment, a subagent after its first results, none without Agent', () => {
    expect(agentListingInput({ ...base, subagents: {} })).toEqual({ agentTypes: {} });
    expect(agentListingInput({ ...base, subagents: { depth: 1, fork: true } })).toEqual({ agentTypes: {} });
    expect(agentListingInput({ ...base, subagents: { depth: 1 } })).toEqual({
      agentTypes: { afterFirstResults: true },
    });
    expect(agentListingInput({ ...base, tools: ['Read'], subagents: { depth: 1 } })).toEqual({});
    expect(agentListingInput(base)).toEqual({});
  });
});
