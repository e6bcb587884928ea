import { mkdtempSync, rmSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  microcompactUuid,
  recordedClearings,
  toolResultFacts,
  withMicrocompact,
} from '../../../../src/activities/model/microcompact';
import { buildMessages } from '../../../../src/activities/model/request';
import type { TranscriptEntry } from '../../../../src/common/transcript';
import { CLEARED_TOOL_RESULT_TEXT } from '../../../../src/engine/microcompact';
import { JsonlTranscriptStore } from '../../../../src/store/jsonl-store';

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'microcompact-test-')));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const base = { v: 1, sessionId: 's', timestamp: '2026-01-01T00:00:00.000Z' };

/** A chain of `n` steps, each a Read of the same file (20,000 characters) and its result. */
function readSteps(n: number): TranscriptEntry[] {
  const out: TranscriptEntry[] = [
    { ...base, type: 'user', uuid: 'p', parentUuid: null, message: { role: 'user', content: 'go' } },
  ];
  for (let i = 0; i < n; i++) {
    const a = `a${i}`;
    out.push({
      ...base,
      type: 'assistant',
      uuid: a,
      parentUuid: out[out.length - 1]!.uuid,
      message: {
        role: 'assistant',
        content: [{ type: 'tool_use', id: `t${i}`, name: 'Read', input: { file_path: '/w/a.txt' } }],
      },
    });
    out.push({
      ...base,
      type: 'user',
      uuid: `r${i}`,
      parentUuid: a,
      message: {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: `${i}:${'x'.repeat(20_000)}` }],
      },
    });
  }
  return out;
}

async function storeOf(chain: TranscriptEntry[]): Promise<JsonlTranscriptStore> {
  const store = new JsonlTranscriptStore(join(dir, 'data'));
  for (const e of chain) await store.append(e);
  return store;
}

describe('microcompact in the request', () => {
  test('toolResultFacts: each result with its tool, whole-file reads by path, tokens as chars/4', () => {
    const facts = toolResultFacts(readSteps(2));
    expect(facts).toEqual([
      { toolUseId: 't0', tool: 'Read', wholeFileRead: '/w/a.txt', tokens: 5_001 },
      { toolUseId: 't1', tool: 'Read', wholeFileRead: '/w/a.txt', tokens: 5_001 },
    ]);
  });

  test('withMicrocompact: too little to free (by default 60,000 tokens): no line, nothing cleared', async () => {
    const chain = readSteps(6);
    const store = await storeOf(chain);
    const view = await withMicrocompact(store, { sessionId: 's', assistantUuid: 'next', parentUuid: 'r5' }, chain, {});
    expect(view.line).toBeUndefined();
    expect(view.cleared.size).toBe(0);
    expect(view.parentUuid).toBe('r5');
    expect(await store.get('s', microcompactUuid('next'))).toBeUndefined();
  });

  test('withMicrocompact: repeated reads are cleared, recorded on a microcompact_boundary line; a retry reuses it', async () => {
    const chain = readSteps(6);
    const store = await storeOf(chain);
    const call = { sessionId: 's', assistantUuid: 'next', parentUuid: 'r5' };
    const view = await withMicrocompact(store, call, chain, { minFreedTokens: 20_000 });
    expect(view.line).toEqual({ uuid: microcompactUuid('next'), clearedToolResults: 5, freedTokens: 25_005 });
    expect(view.parentUuid).toBe(microcompactUuid('next'));
    const line = await store.get('s', microcompactUuid('next'));
    expect(line).toMatchObject({
      type: 'system',
      subtype: 'microcompact_boundary',
      parentUuid: 'r5',
      microcompactMetadata: { trigger: 'auto', compactedToolIds: ['t0', 't1', 't2', 't3', 't4'] },
    });
    // A retry (or a resumed session reading the chain) sends exactly the same view.
    const retry = await withMicrocompact(store, call, chain, { enabled: false });
    expect([...retry.cleared]).toEqual([...view.cleared]);
    const chainAfter = await store.chain('s', microcompactUuid('next'));
    expect([...recordedClearings(chainAfter)]).toEqual(['t0', 't1', 't2', 't3', 't4']);
    expect(JSON.stringify(buildMessages(chainAfter, { cleared: recordedClearings(chainAfter) }))).toBe(
      JSON.stringify(buildMessages(view.chain, { cleared: view.cleared })),
    );
  });

  test('buildMessages: a cleared result is sent as the placeholder, the others whole', () => {
    const chain = readSteps(2);
    const messages = buildMessages(chain, { cleared: new Set(['t0']) });
    const results = messages
      .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .filter((b) => b.type === 'tool_result') as Array<{ tool_use_id: string; content: string }>;
    expect(results.map((r) => [r.tool_use_id, r.content.slice(0, 33)])).toEqual([
      ['t0', CLEARED_TOOL_RESULT_TEXT],
      ['t1', `1:${'x'.repeat(31)}`],
    ]);
  });
});
