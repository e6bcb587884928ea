import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  collapseRounds,
  collapseUuid,
  recordedCollapses,
  withCollapse,
} from '../../../../src/activities/model/collapse';
import { buildMessages } from '../../../../src/activities/model/request';
import type { TranscriptEntry } from '../../../../src/common/transcript';
import { JsonlTranscriptStore } from '../../../../src/store/jsonl-store';

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'collapse-test-')));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const base = { v: 1, sessionId: 's', timestamp: '2026-01-01T00:00:00.000Z' };

/** A prompt, then `n` rounds: a Bash call `step i` answered by `out i` (ids a<i>, r<i>, t<i>). */
function rounds(n: number, from = 0, parent = 'p'): TranscriptEntry[] {
  const out: TranscriptEntry[] =
    from === 0
      ? [{ ...base, type: 'user', uuid: 'p', parentUuid: null, message: { role: 'user', content: 'go' } }]
      : [];
  let last = parent;
  for (let i = from; i < from + n; i++) {
    out.push({
      ...base,
      type: 'assistant',
      uuid: `a${i}`,
      parentUuid: last,
      message: {
        role: 'assistant',
        content: [{ type: 'tool_use', id: `t${i}`, name: 'Bash', input: { command: `step ${i}` } }],
      },
    });
    out.push({
      ...base,
      type: 'user',
      uuid: `r${i}`,
      parentUuid: `a${i}`,
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: `out ${i}` }] },
    });
    last = `r${i}`;
  }
  return out;
}

async function storeOf(chain: TranscriptEntry[]): Promise<JsonlTranscriptStore> {
  const store = new JsonlTranscriptStore(join(dir, 'data'));
  for (const e of chain) await store.append(e);
  return store;
}

const allCleared = (n: number): Set<string> => new Set(Array.from({ length: n }, (_, i) => `t${i}`));
const uuids = (chain: readonly TranscriptEntry[]): string[] => chain.map((e) => e.uuid);

describe('context collapse in the request', () => {
  test('withCollapse: old cleared rounds left out, a digest after the kept result, recorded; a retry and the next call send the same view', async () => {
    const chain = rounds(8);
    const store = await storeOf(chain);
    const call = { sessionId: 's', assistantUuid: 'next', parentUuid: 'r7' };
    const view = await withCollapse(store, call, chain, allCleared(8), {}, true);
    expect(view.line).toMatchObject({ uuid: collapseUuid('next'), collapsedRounds: 2 });
    expect(view.parentUuid).toBe(collapseUuid('next'));
    expect(uuids(view.chain).slice(0, 3)).toEqual(['p', 'a2', 'r2']);
    const messages = buildMessages(view.chain, { cleared: allCleared(8) });
    expect(messages.map((m) => m.role)).toEqual(['user', ...Array(6).fill(['assistant', 'user']).flat()]);
    const kept = messages[2]!.content as unknown as Array<Record<string, unknown>>;
    expect(kept.map((b) => b['type'])).toEqual(['tool_result', 'text']);
    expect(kept[1]!['text']).toBe(
      '<system-reminder>\nBefore the tool call above, you made 2 more tool calls, collapsed here (their results were cleared): Bash(step 0), Bash(step 1)\n</system-reminder>',
    );
    // The store keeps the full history, unchanged.
    expect((await store.get('s', 'r2'))!.message!.content).toHaveLength(1);
    expect((await store.chain('s', 'r7')).map((e) => e.uuid)).toEqual(uuids(chain));
    // A retry reuses the line (whatever it would decide now).
    const again = await withCollapse(store, call, chain, allCleared(8), { enabled: false }, false);
    expect(buildMessages(again.chain, { cleared: allCleared(8) })).toEqual(messages);
    // The next call, without a batch, replays the recorded line.
    const line = (await store.get('s', collapseUuid('next')))!;
    const next = await withCollapse(
      store,
      { ...call, assistantUuid: 'n2' },
      [...chain, line],
      allCleared(8),
      {},
      false,
    );
    expect(next.line).toBeUndefined();
    expect(buildMessages(next.chain, { cleared: allCleared(8) })).toEqual(messages);
  });

  test('withCollapse: no microcompact batch in this call, or results not cleared: no line', async () => {
    const chain = rounds(8);
    const store = await storeOf(chain);
    const call = { sessionId: 's', assistantUuid: 'n', parentUuid: 'r7' };
    expect((await withCollapse(store, call, chain, allCleared(8), {}, false)).line).toBeUndefined();
    const some = new Set(['t0', 't2']);
    const view = await withCollapse(store, call, chain, some, {}, true);
    expect(view.line).toBeUndefined();
    expect(uuids(view.chain)).toEqual(uuids(chain));
    expect(await store.get('s', collapseUuid('n'))).toBeUndefined();
  });

  test('withCollapse: a later collapse folds the earlier digest into its own (one digest per run)', async () => {
    const first = rounds(8);
    const store = await storeOf(first);
    const one = await withCollapse(
      store,
      { sessionId: 's', assistantUuid: 'c1', parentUuid: 'r7' },
      first,
      allCleared(8),
      {},
      true,
    );
    const line1 = (await store.get('s', one.parentUuid))!;
    const more = rounds(3, 8, line1.uuid);
    for (const e of more) await store.append(e);
    const chain = [...first, line1, ...more];
    const two = await withCollapse(
      store,
      { sessionId: 's', assistantUuid: 'c2', parentUuid: 'r10' },
      chain,
      allCleared(11),
      {},
      true,
    );
    expect(two.line).toMatchObject({ collapsedRounds: 3 });
    const rec = recordedCollapses(two.chain);
    expect(rec.digests.get('r5')!.calls).toEqual([0, 1, 2, 3, 4].map((i) => `Bash(step ${i})`));
    // Only the last digest is sent: r2 left the view with its digest.
    expect(uuids(two.chain).filter((u) => u.startsWith('r'))).toEqual(['r5', 'r6', 'r7', 'r8', 'r9', 'r10']);
    expect(JSON.stringify(buildMessages(two.chain))).toContain('you made 5 more tool calls');
  });

  test('collapseRounds: a line the request sends between rounds breaks a run; a round that moves the shell is kept', () => {
    const chain = rounds(4);
    const note: TranscriptEntry = {
      ...base,
      type: 'user',
      uuid: 'u',
      parentUuid: 'r1',
      message: { role: 'user', content: 'hi' },
    };
    const sys: TranscriptEntry = {
      ...base,
      type: 'system',
      uuid: 'sy',
      parentUuid: 'r2',
      subtype: 'microcompact_boundary',
    };
    const moved = { ...chain[4]!, shellCwd: 'sub' } as TranscriptEntry; // r1
    const view = [...chain.slice(0, 4), moved, note, chain[5]!, chain[6]!, sys, ...chain.slice(7)];
    const r = collapseRounds(view, allCleared(4));
    expect(r.map((x) => [x.adjacent, x.removable])).toEqual([
      [false, true],
      [true, false],
      [false, true],
      [true, true],
    ]);
  });
});
