import {
  AgentsOptionError,
  catalogAgentType,
  parseAgentsOption,
  sessionAgentTypes,
} from '../../../src/client/agent-types';
import { agentListing, agentTools } from '../../../src/common/agents';

describe('agent types of a session', () => {
  test('parseAgentsOption: --agents JSON becomes agent types with their tools, model and prompt', () => {
    const [a] = parseAgentsOption(
      '{"reviewer":{"description":"Reviews.","prompt":"You review.","tools":["Read","Grep"],"model":"haiku"}}',
      'cli',
    );
    expect(a).toEqual({
      agentType: 'reviewer',
      description: 'Reviews.',
      tools: ['Read', 'Grep'],
      model: 'haiku',
      prompt: { text: 'You review.' },
      source: 'cli',
    });
  });

  test('parseAgentsOption: bad input gets an error naming the agent and the key', () => {
    expect(() => parseAgentsOption('{not json', 'cli')).toThrow(AgentsOptionError);
    expect(() => parseAgentsOption('[]', 'cli')).toThrow(/must be an object/);
    expect(() => parseAgentsOption({ x: { prompt: 'p' } }, 'sdk')).toThrow(/agents: agent "x": "description"/);
    expect(() => parseAgentsOption({ x: { description: 'd', prompt: 'p', tools: 3 } }, 'sdk')).toThrow(/"tools"/);
    expect(() => parseAgentsOption({ x: { description: 'd', prompt: 'p', maxTurns: 0 } }, 'sdk')).toThrow(/"maxTurns"/);
    expect(() => parseAgentsOption('{"":{"description":"d","prompt":"p"}}', 'cli')).toThrow(
      '--agents: an agent name must be a non-empty string',
    );
    expect(() => parseAgentsOption({ ' ': { description: 'd', prompt: 'p' } }, 'sdk')).toThrow(/agent name/);
  });

  test('sessionAgentTypes: built-in types, files, --agents and the SDK merge by precedence, listed as 2.1.328', () => {
    const file = catalogAgentType({
      name: 'reviewer',
      description: 'From the file.',
      tools: ['Read'],
      prompt: 'File prompt.\n',
      path: '/p/.claude/agents/reviewer.md',
      scope: 'project',
    });
    const cli = parseAgentsOption({ reviewer: { description: 'From the flag.', prompt: 'p' } }, 'cli');
    const all = sessionAgentTypes({ catalog: [], cli, env: {} });
    expect(all.map((a) => a.agentType)).toEqual([
      'claude',
      'Explore',
      'general-purpose',
      'Plan',
      'reviewer',
      'statusline-setup',
    ]);
    expect(sessionAgentTypes({ cli: [], env: {}, catalog: [] }).length).toBe(5);
    const merged = sessionAgentTypes({ catalog: [], cli, env: {} }).find((a) => a.agentType === 'reviewer');
    expect(merged?.description).toBe('From the flag.');
    expect(file.prompt).toEqual({ text: 'File prompt.' });
    expect(
      sessionAgentTypes({ env: { CLAUDE_AGENT_SDK_DISABLE_BUILTIN_AGENTS: '1' }, cli }).map((a) => a.agentType),
    ).toEqual(['reviewer']);
    expect(
      sessionAgentTypes({ env: { CLAUDE_CODE_DISABLE_EXPLORE_PLAN_AGENTS: '1' } }).map((a) => a.agentType),
    ).toEqual(['claude', 'general-purpose', 'statusline-setup']);
    expect(agentListing(all)).toContain('\n- reviewer: From the flag. (Tools: *)\n');
  });

  test('agentTools: a type with a tool list gets only those the parent has', () => {
    expect(agentTools({ tools: ['Read', 'Grep', 'WebFetch'] }, ['Bash', 'Grep', 'Read'], 1)).toEqual(['Read', 'Grep']);
  });
});
