import { deniedAgentTypes } from '../../../src/engine/agent-rules';
import { agentTypeDeniedText, decideAgentType } from '../../../src/activities/permissions/agent-type';

describe('Agent(<type>) rules', () => {
  test('deniedAgentTypes: Agent(type) and Task(type) deny rules name types, once each, in rule order', () => {
    expect(
      deniedAgentTypes(['Bash(rm *)', 'Agent(Explore)', 'Task(reviewer)', 'Agent( Explore )', 'Read', 'Agent(Plan)']),
    ).toEqual(['Explore', 'reviewer', 'Plan']);
  });

  test('deniedAgentTypes: a whole-tool Agent rule, an empty pattern and other tools name no type', () => {
    expect(deniedAgentTypes(['Agent', 'Task', 'Agent()', 'AgentX(Explore)', 'mcp__a__Agent(Explore)'])).toEqual([]);
    expect(deniedAgentTypes(undefined)).toEqual([]);
  });

  test("decideAgentType: a named type gets Claude Code 2.1.328's text with the rule's source; others run", () => {
    expect(decideAgentType('Explore', ['Explore'], { Explore: 'projectSettings' })).toBe(
      "Agent type 'Explore' has been denied by permission rule 'Agent(Explore)' from projectSettings.",
    );
    // Names are case-sensitive, as subagent_type is.
    expect(decideAgentType('explore', ['Explore'], undefined)).toBeUndefined();
    expect(decideAgentType('general-purpose', ['Explore'], undefined)).toBeUndefined();
    expect(agentTypeDeniedText('reviewer', undefined)).toBe(
      "Agent type 'reviewer' has been denied by permission rule 'Agent(reviewer)' from settings.",
    );
  });
});
