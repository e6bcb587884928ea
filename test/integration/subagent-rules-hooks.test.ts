/**
 * Subagents under the session's rules and hooks, as Claude Code 2.1.328: an `Agent(<type>)` deny
 * rule refuses the type (and drops it from the listing); SubagentStart adds context to the
 * agent, SubagentStop fires instead of Stop at the agent's end and a `decision: "block"` makes
 * the agent go on with the reason. Real Temporal, the real SDK against the fake model server,
 * routed by marker; real hook commands.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SDKMessage } from '../../src/common/sdk-messages';
import type { HooksConfig } from '../../src/common/hooks';
import { routeByMarker } from '../../src/fake-model';
import type { MarkedScript } from '../../src/fake-model/router';
import { turnHooks } from '../../src/cli/hook-options';
import { storeHooksConfig } from '../../src/client/stored-config';
import type { TurnOptions } from '../../src/common/turn';
import { makeRepo, startRunnerEnv, testTurnOptions } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';

jest.setTimeout(120_000);

async function collect(gen: AsyncGenerator<SDKMessage>): Promise<SDKMessage[]> {
  const out: SDKMessage[] = [];
  for await (const m of gen) out.push(m);
  return out;
}

/** The text of the tool_result of `toolUseId` among the messages, and whether it is an error. */
function toolResult(messages: readonly SDKMessage[], toolUseId: string): { text: string; isError: boolean } {
  for (const m of messages) {
    if (m.type !== 'user' || !Array.isArray(m.message.content)) continue;
    for (const b of m.message.content as unknown as Array<Record<string, unknown>>) {
      if (b['type'] !== 'tool_result' || b['tool_use_id'] !== toolUseId) continue;
      const c = b['content'];
      const text = typeof c === 'string' ? c : (c as Array<{ text?: string }>).map((x) => x.text ?? '').join('');
      return { text, isError: b['is_error'] === true };
    }
  }
  throw new Error(`no tool_result for ${toolUseId}`);
}

/** The main agent's script: one Agent call with `input`, then a last answer. */
function mainCalling(input: Record<string, unknown>): MarkedScript {
  return {
    marker: '[as:main]',
    steps: [{ content: [{ tool_use: { name: 'Agent', input } }] }, { content: [{ text: 'Main done.' }] }],
  };
}

describe('subagent rules and hooks', () => {
  let env: RunnerEnv;
  /** The messages of each routed request (JSON), by `<script>#<step>`. */
  const requests = new Map<string, string>();
  let scripts: MarkedScript[] = [];

  beforeAll(async () => {
    env = await startRunnerEnv({
      // The scripts of the running test (one server for the suite).
      responder: (req, ctx) =>
        routeByMarker(scripts, {
          onRoute: (r, c) => requests.set(`${c.script}#${c.scriptStep}`, JSON.stringify(r.messages)),
        })(req, ctx),
    });
  });

  afterAll(async () => {
    await env?.close();
  });

  test("subagent rules: an Agent(Explore) deny rule refuses the type in Claude Code's words and drops it from the listing", async () => {
    scripts = [
      mainCalling({
        subagent_type: 'Explore',
        description: 'Search',
        prompt: '[as:bad] Search.',
        run_in_background: false,
      }),
      { marker: '[as:bad]', steps: [{ content: [{ text: 'A denied agent ran.' }] }] },
    ];
    requests.clear();
    const repo = makeRepo({ 'a.txt': 'a' });
    const e = env.engine({
      cwd: repo,
      defaults: testTurnOptions({
        subagents: {},
        disallowedTools: ['Agent(Explore)'],
        agentRuleSources: { Explore: 'cliArg' },
      }),
    });
    const messages = await collect(e.submitMessage('[as:main] Search the repo.'));
    expect(toolResult(messages, 'toolu_as_main_0_0')).toEqual({
      text: "Agent type 'Explore' has been denied by permission rule 'Agent(Explore)' from cliArg.",
      isError: true,
    });
    expect([...requests.keys()]).toEqual(['[as:main]#0', '[as:main]#1']);
    const listing = requests.get('[as:main]#0') ?? '';
    expect(listing).toContain('Available agent types for the Agent tool:');
    expect(listing).toContain('- general-purpose:');
    expect(listing).not.toContain('- Explore:');
    // Not a permission denial: Claude Code's call fails after its permission check.
    const result = messages.find((m) => m.type === 'result') as { permission_denials?: unknown[] } | undefined;
    expect(result?.permission_denials ?? []).toEqual([]);
  });

  test("subagent hooks: SubagentStart adds context, SubagentStop (not Stop) fires with Claude Code's fields and its block makes the agent go on with the reason", async () => {
    scripts = [
      mainCalling({ description: 'Check', prompt: '[as:helper] Check the file.', run_in_background: false }),
      {
        marker: '[as:helper]',
        steps: [{ content: [{ text: 'First answer.' }] }, { content: [{ text: 'Second answer.' }] }],
      },
    ];
    requests.clear();
    const repo = makeRepo({ 'a.txt': 'a' });
    const log = join(repo, '..', `hooks-${randomUUID()}.jsonl`);
    writeFileSync(log, '');
    // Blocks the agent's first stop; lets the second one (stop_hook_active: true) through.
    const stopHook =
      `input=$(cat); printf '%s\\n' "$input" >> '${log}'; ` +
      `case "$input" in *'"stop_hook_active":false'*) echo '{"decision":"block","reason":"Check again."}';; esac`;
    const startHook =
      `cat >> '${log}'; echo >> '${log}'; ` +
      `echo '{"hookSpecificOutput":{"hookEventName":"SubagentStart","additionalContext":"Be brief."}}'`;
    const hooks: HooksConfig = {
      SubagentStart: [{ matcher: 'general-purpose', command: startHook, source: 'test: hooks.SubagentStart[0]' }],
      SubagentStop: [{ matcher: 'general-purpose', command: stopHook, source: 'test: hooks.SubagentStop[0]' }],
      Stop: [{ matcher: '', command: `cat >> '${log}'; echo >> '${log}'`, source: 'test: hooks.Stop[0]' }],
    };
    const sessionId = randomUUID();
    const configRef = await storeHooksConfig(env.store, sessionId, hooks, repo);
    const options: TurnOptions = testTurnOptions({ subagents: {}, hooks: turnHooks(hooks, configRef) });
    const e = env.engine({ cwd: repo, sessionId, defaults: options });
    const messages = await collect(e.submitMessage('[as:main] Run the check.'));
    expect([...requests.keys()]).toEqual(['[as:main]#0', '[as:helper]#0', '[as:helper]#1', '[as:main]#1']);
    expect(requests.get('[as:helper]#0')).toContain('SubagentStart hook additional context: Be brief.');
    expect(requests.get('[as:helper]#1')).toContain(
      JSON.stringify(`SubagentStop hook blocking error from command: "${stopHook}": Check again.`).slice(1, -1),
    );
    expect(toolResult(messages, 'toolu_as_main_0_0').text).toContain('Second answer.');
    const events = readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.map((x) => x['hook_event_name'])).toEqual(['SubagentStart', 'SubagentStop', 'SubagentStop', 'Stop']);
    const [start, firstStop, secondStop, mainStop] = events;
    expect(start).toMatchObject({ session_id: sessionId, agent_type: 'general-purpose' });
    expect(start).not.toHaveProperty('permission_mode');
    expect(start!['agent_id']).toMatch(/^a[0-9a-f]{16}$/);
    expect(firstStop).toMatchObject({
      agent_id: start!['agent_id'],
      agent_type: 'general-purpose',
      stop_hook_active: false,
      last_assistant_message: 'First answer.',
    });
    expect(String(firstStop!['agent_transcript_path'])).toMatch(/\.output$/);
    expect(secondStop).toMatchObject({ stop_hook_active: true, last_assistant_message: 'Second answer.' });
    expect(mainStop).not.toHaveProperty('agent_id');
  });
});
