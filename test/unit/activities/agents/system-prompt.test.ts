/** Subagent system prompts against the requests Claude Code 2.1.328 sent (async recordings). */
import { join } from 'node:path';
import { builtInAgents, findAgent } from '../../../../src/common/agents';
import { agentSystemPrompt } from '../../../../src/activities/agents/system-prompt';
import { RECORDINGS_DIR, loadRecording } from '../../../conformance/async/recording';

function recordedSystem(scenario: string, route: string): { text: string; model: string } {
  const q = loadRecording(join(RECORDINGS_DIR, scenario)).requests.find((r) => r.route === route && r.step === 0)!;
  const system = q.body.system as unknown as Array<{ text: string }>;
  return { text: system[2]!.text, model: q.body.model };
}

const noRef = (): Promise<string> => Promise.reject(new Error('no ref expected'));

describe('agentSystemPrompt', () => {
  test.each([
    ['agent-types', 'explore', 'Explore'],
    ['agent-types', 'plan', 'Plan'],
    ['agent-types', 'statusline', 'statusline-setup'],
    ['agent-types', 'claude', 'claude'],
    ['agent-types', 'haiku', 'general-purpose'],
    ['agent-foreground', 'helper', 'general-purpose'],
  ])('agentSystemPrompt: %s/%s (%s) is byte for byte what 2.1.328 sent', async (scenario, route, type) => {
    const want = recordedSystem(scenario, route);
    expect(await agentSystemPrompt(findAgent(builtInAgents(), type)!, want.model, noRef)).toBe(want.text);
  });

  test('agentSystemPrompt: a custom type is its body and the common suffix (Haiku: the context line)', async () => {
    const want = recordedSystem('agent-custom-flag', 'rev');
    const got = await agentSystemPrompt(
      { prompt: { text: 'You are the reviewer agent. Report mistakes only.' } },
      want.model,
      noRef,
    );
    expect(got).toBe(want.text);
    const lint = recordedSystem('agent-custom-file', 'lint');
    expect(
      await agentSystemPrompt({ prompt: { ref: { key: 'k', bytes: 1, sha256: '0'.repeat(64) } } }, lint.model, () =>
        Promise.resolve('You are the linter agent. Report style problems only.\n'),
      ),
    ).toBe(lint.text);
  });
});
