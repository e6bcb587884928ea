/**
 * Agent definitions against what Claude Code 2.1.328 sent (recordings of the async conformance
 * scenarios): the listing of the built-in types, the tools each type is offered, precedence.
 */
import { join } from 'node:path';
import type { AgentDefinition } from '../../../src/common/agents';
import {
  agentListing,
  agentTools,
  agentToolsLabel,
  builtInAgents,
  findAgent,
  mergeAgentDefinitions,
} from '../../../src/common/agents';
import { RECORDINGS_DIR, loadRecording } from '../../conformance/async/recording';

const rec = (name: string): ReturnType<typeof loadRecording> => loadRecording(join(RECORDINGS_DIR, name));
const toolNames = (r: ReturnType<typeof loadRecording>, route: string): string[] =>
  (r.requests.find((q) => q.route === route && q.step === 0)?.body.tools ?? []).map((t) => String(t.name));

/** The listing section of the first main request's context message. */
function recordedListing(name: string): string {
  const main = rec(name).requests.find((q) => q.route === 'main')!.body;
  const texts = main.messages.flatMap((m) =>
    typeof m.content === 'string' ? [m.content] : m.content.map((b) => String(b['text'] ?? '')),
  );
  const t = texts.find((x) => x.includes('Available agent types for the Agent tool:')) ?? '';
  const from = t.slice(t.indexOf('Available agent types'));
  return from.slice(0, from.indexOf('\n\nToday'));
}

describe('agent definitions', () => {
  test('agentListing: the built-in types are listed as 2.1.328 lists them', () => {
    expect(agentListing(builtInAgents())).toBe(recordedListing('agent-types'));
  });

  test('agentListing: custom types slot in by name, with their tool labels', () => {
    const custom: AgentDefinition[] = [
      { agentType: 'planner', description: 'Plans work.', tools: ['Read'], prompt: { text: 'x' }, source: 'project' },
      {
        agentType: 'reviewer',
        description: 'Reviews a file for mistakes.',
        tools: ['Read', 'Grep'],
        prompt: { text: 'x' },
        source: 'cli',
      },
      {
        agentType: 'writer',
        description: 'Writes files.',
        disallowedTools: ['Bash'],
        prompt: { text: 'x' },
        source: 'cli',
      },
    ];
    expect(agentListing(mergeAgentDefinitions([builtInAgents(), custom]))).toBe(recordedListing('tools-custom-agents'));
  });

  test('agentListing: without Explore and Plan (CLAUDE_CODE_DISABLE_EXPLORE_PLAN_AGENTS)', () => {
    expect(agentListing(builtInAgents({ explorePlan: false }))).toBe(recordedListing('tools-no-explore-plan'));
  });

  test('agentTools: each built-in type gets the tools 2.1.328 offered it', () => {
    const r = rec('agent-types');
    const parent = toolNames(r, 'main');
    const gp = findAgent(builtInAgents(), 'general-purpose')!;
    for (const [route, type] of [
      ['explore', 'Explore'],
      ['plan', 'Plan'],
      ['statusline', 'statusline-setup'],
      ['claude', 'claude'],
    ] as const) {
      const offered = agentTools(findAgent(builtInAgents(), type)!, parent, 1);
      // The placeholder of deferred tools sits second to last in Claude Code's lists; compare without it.
      const recorded = toolNames(r, route).filter((t) => t !== 'DeferredToolPlaceholder');
      expect(offered.filter((t) => t !== 'DeferredToolPlaceholder').sort()).toEqual([...recorded].sort());
    }
    expect(agentTools(gp, parent, 1)).not.toContain('ScheduleWakeup');
  });

  test('agentTools: a custom type gets exactly its listed tools, in its order', () => {
    const parent = toolNames(rec('agent-custom-flag'), 'main');
    expect(agentTools({ tools: ['Read', 'Grep'] }, parent, 1)).toEqual(toolNames(rec('agent-custom-flag'), 'rev'));
    expect(agentTools({ tools: ['Read', 'Nope'] }, parent, 1)).toEqual(['Read']);
  });

  test('agentTools: an agent at the spawn-depth limit is not offered Agent', () => {
    const parent = ['Agent', 'Bash', 'Read'];
    expect(agentTools({ tools: ['*'] }, parent, 2, 3)).toContain('Agent');
    expect(agentTools({ tools: ['*'] }, parent, 3, 3)).toEqual(['Bash', 'Read']);
    expect(agentTools({ tools: ['*'] }, parent, 1, 1)).toEqual(['Bash', 'Read']);
  });

  test('agentToolsLabel: *, a deny list, an allow list', () => {
    expect(agentToolsLabel({ tools: ['*'] })).toBe('*');
    expect(agentToolsLabel({})).toBe('*');
    expect(agentToolsLabel({ disallowedTools: ['Bash'] })).toBe('All tools except Bash');
    expect(agentToolsLabel({ tools: ['Read', 'Grep'], disallowedTools: ['Grep'] })).toBe('Read');
  });

  test('mergeAgentDefinitions: a later source of the same name wins; sorted case-insensitively', () => {
    const mine: AgentDefinition = { agentType: 'Plan', description: 'mine', prompt: { text: 'p' }, source: 'project' };
    const merged = mergeAgentDefinitions([builtInAgents(), [mine]]);
    expect(findAgent(merged, 'Plan')?.description).toBe('mine');
    expect(merged.map((a) => a.agentType)).toEqual([
      'claude',
      'Explore',
      'general-purpose',
      'Plan',
      'statusline-setup',
    ]);
  });
});
