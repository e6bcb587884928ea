import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildMessages } from '../../../../src/activities/model/request';
import {
  microcompactWithSnip,
  recordedSnips,
  snipRounds,
  snipUuid,
  withSnip,
} from '../../../../src/activities/model/snip';
import type { TranscriptEntry } from '../../../../src/common/transcript';
import { JsonlTranscriptStore } from '../../../../src/store/jsonl-store';

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'snip-test-')));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const base = { v: 1, sessionId: 's', timestamp: '2026-01-01T00:00:00.000Z' };

/** A prompt, then one round per step: a call of `tool` with `input`, answered by `result`. */
function rounds(
  steps: Array<{ tool: string; input: Record<string, unknown>; result: string; isError?: boolean }>,
): TranscriptEntry[] {
  const out: TranscriptEntry[] = [
    { ...base, type: 'user', uuid: 'p', parentUuid: null, message: { role: 'user', content: 'go' } },
  ];
  steps.forEach((s, i) => {
    out.push({
      ...base,
      type: 'assistant',
      uuid: `a${i}`,
      parentUuid: out[out.length - 1]!.uuid,
      message: { role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name: s.tool, input: s.input }] },
    });
    out.push({
      ...base,
      type: 'user',
      uuid: `r${i}`,
      parentUuid: `a${i}`,
      message: {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: `t${i}`, content: s.result, ...(s.isError ? { is_error: true } : {}) },
        ],
      },
    });
  });
  return out;
}

async function storeOf(chain: TranscriptEntry[]): Promise<JsonlTranscriptStore> {
  const store = new JsonlTranscriptStore(join(dir, 'data'));
  for (const e of chain) await store.append(e);
  return store;
}

const steps = [
  { tool: 'Read', input: { file_path: '/w/missing' }, result: 'File does not exist.', isError: true },
  { tool: 'Grep', input: { pattern: 'x' }, result: 'a.ts:1:x'.repeat(400) },
  ...Array.from({ length: 5 }, (_, i) => ({ tool: 'Bash', input: { command: `step ${i}` }, result: `out ${i}` })),
  { tool: 'Grep', input: { pattern: 'x' }, result: 'a.ts:1:x'.repeat(400) },
];

describe('snip in the request', () => {
  test('snipRounds: an assistant line of tool calls and its result lines make a round', () => {
    const r = snipRounds(rounds(steps.slice(0, 2)));
    expect(r).toHaveLength(2);
    expect(r[0]).toMatchObject({ uuids: ['a0', 'r0'], removable: true, calls: [{ tool: 'Read', isError: true }] });
  });

  test('withSnip: stale rounds (a failed Read, a Grep repeated with the same result) left out, recorded; a retry reuses the line', async () => {
    const chain = rounds(steps);
    const store = await storeOf(chain);
    const call = { sessionId: 's', assistantUuid: 'next', parentUuid: 'r7' };
    const view = await withSnip(store, call, chain, { minFreedTokens: 100 }, {});
    expect(view.line).toMatchObject({ uuid: snipUuid('next'), snippedRounds: 2 });
    expect(view.parentUuid).toBe(snipUuid('next'));
    expect(recordedSnips(view.chain)).toEqual(new Set(['a0', 'r0', 'a1', 'r1']));
    expect(view.chain.map((e) => e.uuid).slice(0, 3)).toEqual(['p', 'a2', 'r2']);
    // The request still alternates user and assistant, and every tool_use has its result.
    const messages = buildMessages(view.chain);
    expect(messages.map((m) => m.role)).toEqual(['user', ...Array(6).fill(['assistant', 'user']).flat()]);
    const again = await withSnip(store, call, chain, { minFreedTokens: 1_000_000 }, {});
    expect(again.chain.map((e) => e.uuid)).toEqual(view.chain.map((e) => e.uuid));
  });

  test('withSnip: too little to free and no microcompact batch: no line (the cached prefix stays)', async () => {
    const chain = rounds(steps);
    const store = await storeOf(chain);
    const view = await withSnip(store, { sessionId: 's', assistantUuid: 'n', parentUuid: 'r7' }, chain, {}, {});
    expect(view.line).toBeUndefined();
    expect(view.chain).toHaveLength(chain.length);
    expect(await store.get('s', snipUuid('n'))).toBeUndefined();
  });

  test('withSnip: removals that free the microcompact batch together with its clearings go with it (one rewrite), and that batch is forced', async () => {
    const big = 'x'.repeat(8_000);
    const chain = rounds([
      { tool: 'Read', input: { file_path: '/w/a' }, result: big },
      ...Array.from({ length: 6 }, (_, i) => ({ tool: 'Bash', input: { command: `s${i}` }, result: `${i}${big}` })),
      { tool: 'Read', input: { file_path: '/w/a' }, result: big },
    ]);
    const store = await storeOf(chain);
    const call = { sessionId: 's', assistantUuid: 'joint', parentUuid: 'r7' };
    // Alone the repeated Read frees ~2,000 tokens; with the stale Bash logs microcompact would clear, ~6,000.
    expect(
      (await withSnip(store, { ...call, assistantUuid: 'x' }, chain, {}, { minFreedTokens: 7_000 })).line,
    ).toBeUndefined();
    const view = await withSnip(store, call, chain, {}, { minFreedTokens: 5_000 });
    expect(view.line).toMatchObject({ snippedRounds: 1 });
    expect(microcompactWithSnip({ minFreedTokens: 5_000 }, view)).toEqual({ minFreedTokens: 0 });
    expect(microcompactWithSnip({ enabled: false }, view)).toEqual({ enabled: false });
  });

  test('withSnip: a round that carries a collapse digest stays, and rounds collapse left out are not counted', async () => {
    const collapse = (collapsedUuids: string[], targets: string[]): TranscriptEntry => ({
      ...base,
      type: 'system',
      subtype: 'collapse_boundary',
      uuid: 'cl',
      parentUuid: 'r7',
      collapseMetadata: {
        collapsedUuids,
        digests: targets.map((targetUuid) => ({ targetUuid, text: 'digest', calls: [] })),
        rounds: 1,
        tokensFreed: 0,
      },
    });
    const call = { sessionId: 's', parentUuid: 'cl' };
    // The repeated Grep's round carries a digest: only the failed Read goes.
    const kept = [...rounds(steps), collapse([], ['r1'])];
    const one = await withSnip(await storeOf(kept), { ...call, assistantUuid: 'k1' }, kept, { minFreedTokens: 1 }, {});
    expect(recordedSnips(one.chain)).toEqual(new Set(['a0', 'r0']));
    // The failed Read was collapsed away as well: nothing left to snip.
    rmSync(join(dir, 'data'), { recursive: true, force: true });
    const both = [...rounds(steps), collapse(['a0', 'r0'], ['r1'])];
    const two = await withSnip(await storeOf(both), { ...call, assistantUuid: 'k2' }, both, { minFreedTokens: 1 }, {});
    expect(two.line).toBeUndefined();
  });
});
