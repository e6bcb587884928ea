import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { temporal } from '@temporalio/proto';
import type { Responder } from '../../src/fake-model';
import { makeRepo, startRunnerEnv, testTurnOptions } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';

/**
 * Content never goes into workflow history (DESIGN.md rule 1): with 5 MB of input everywhere a
 * user or a tool can put it (prompts, a file the tools read, command output, a tool input the
 * model writes, a long answer), no payload of any workflow or activity input, output, Update,
 * signal, child workflow or failure in the histories is more than a few KB.
 */
const FIVE_MB = 5 * 1024 * 1024;
/** Largest payload allowed anywhere in the histories, bytes. */
const MAX_PAYLOAD_BYTES = 4096;

/** Every Payload in a history event, found by shape (`data` bytes), with where it sits. */
function payloadsOf(value: unknown, path: string, out: Array<{ path: string; bytes: number }>): void {
  if (value === null || typeof value !== 'object') return;
  if (value instanceof Uint8Array) return;
  const v = value as Record<string, unknown>;
  if (v['data'] instanceof Uint8Array && ('metadata' in v || Object.keys(v).length <= 2)) {
    out.push({ path, bytes: v['data'].length });
    return;
  }
  for (const [k, child] of Object.entries(v)) {
    if (Array.isArray(child)) child.forEach((c, i) => payloadsOf(c, `${path}.${k}[${i}]`, out));
    else payloadsOf(child, `${path}.${k}`, out);
  }
}

function historyPayloads(name: string, history: temporal.api.history.v1.IHistory) {
  const out: Array<{ path: string; bytes: number }> = [];
  for (const e of history.events ?? []) payloadsOf(e, `${name}#${String(e.eventId)}`, out);
  return out;
}

describe('workflow history holds no content', () => {
  let env: RunnerEnv;
  afterEach(async () => env?.close());

  test(`history: with 5 MB prompts, files, command output, tool input and answer, no payload is over ${MAX_PAYLOAD_BYTES} bytes`, async () => {
    const bigText = 'lorem ipsum dolor sit amet\n'.repeat(Math.ceil(FIVE_MB / 27));
    let responses = 0;
    const responder: Responder = (req) => {
      const step = req.messages.filter((m) => m.role === 'assistant').length;
      const turn = req.messages.filter(
        (m) =>
          m.role === 'user' &&
          !(Array.isArray(m.content) && m.content.some((b) => (b as { type?: string }).type === 'tool_result')),
      ).length;
      const steps = [
        { tool_use: { name: 'Read', input: { file_path: '{{cwd}}/big.txt', limit: 50_000 } } },
        { tool_use: { name: 'Bash', input: { command: 'cat big.txt' } } },
        { tool_use: { name: 'Grep', input: { pattern: 'lorem', path: '{{cwd}}', output_mode: 'content' } } },
        { tool_use: { name: 'Write', input: { file_path: '{{cwd}}/copy.txt', content: bigText } } },
      ];
      const perTurn = steps.length + 1;
      const i = step - (turn - 1) * perTurn;
      const tool = steps[i];
      // New tool-use ids on every response, as the real API gives.
      return tool
        ? { content: [{ tool_use: { ...tool.tool_use, id: `toolu_h${++responses}` } }] }
        : { content: [{ text: bigText.slice(0, 1024 * 1024) }] };
    };
    env = await startRunnerEnv({ responder });
    const repo = makeRepo({});
    writeFileSync(join(repo, 'big.txt'), bigText);
    // No proactive compaction: the fake model answers a 1.4M-token context (the real API refuses
    // it), the runner would compact after every 5 MB step, and the responder, which counts the
    // assistant messages it is sent, would start its script over after each summary: an endless
    // turn (a transcript of 1.5 GB in 3 minutes).
    const engine = env.engine({ cwd: repo, defaults: testTurnOptions({ compaction: { autoCompactRatio: 0 } }) });
    const first = await env.runTurn(engine, `first: ${bigText}`);
    expect(first.result).toMatchObject({ subtype: 'success', num_turns: 5 });
    const second = await env.runTurn(engine, `second: ${bigText}`);
    expect(second.result).toMatchObject({ subtype: 'success', num_turns: 5 });
    // The content is in the store: both prompts, whole.
    const lines = await env.store.load(engine.sessionId);
    const prompts = lines.filter((l) => typeof l.message?.content === 'string' && l.type === 'user');
    expect(prompts.map((p) => (p.message?.content as string).length)).toEqual([bigText.length + 7, bigText.length + 8]);

    await engine.end();
    const state = await engine.state();
    const ids = [engine.workflowId, `${engine.workflowId}-turn-1`, state.lastTurnWorkflowId ?? ''];
    const payloads = (
      await Promise.all(
        ids.map(async (id) => historyPayloads(id, await env.client.workflow.getHandle(id).fetchHistory())),
      )
    ).flat();
    expect(payloads.length).toBeGreaterThan(20);
    const largest = [...payloads].sort((a, b) => b.bytes - a.bytes).slice(0, 5);
    console.log(`largest history payloads: ${largest.map((p) => `${p.bytes} B at ${p.path}`).join('; ')}`);
    expect(payloads.filter((p) => p.bytes > MAX_PAYLOAD_BYTES)).toEqual([]);
  }, 300_000);
});
