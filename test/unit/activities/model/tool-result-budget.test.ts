import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { largeResultKey } from '../../../../src/activities/large-result';
import { buildMessages } from '../../../../src/activities/model/request';
import {
  budgetedMessages,
  recordedReplacements,
  toolResultBudgetUuid,
  withToolResultBudget,
} from '../../../../src/activities/model/tool-result-budget';
import type { TranscriptEntry } from '../../../../src/common/transcript';
import { JsonlTranscriptStore } from '../../../../src/store/jsonl-store';

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'tool-result-budget-test-')));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const base = { v: 1, sessionId: 's', timestamp: '2026-01-01T00:00:00.000Z' };

/** A prompt, then one step of parallel Bash calls whose outputs have the given sizes. */
function parallelStep(sizes: number[], prefix = 's0'): TranscriptEntry[] {
  return [
    { ...base, type: 'user', uuid: 'p', parentUuid: null, message: { role: 'user', content: 'go' } },
    {
      ...base,
      type: 'assistant',
      uuid: `${prefix}a`,
      parentUuid: 'p',
      message: {
        role: 'assistant',
        content: sizes.map((_, i) => ({
          type: 'tool_use',
          id: `${prefix}t${i}`,
          name: 'Bash',
          input: { command: `c${i}` },
        })),
      },
    },
    ...sizes.map((n, i): TranscriptEntry => ({
      ...base,
      type: 'user',
      uuid: `${prefix}r${i}`,
      parentUuid: i === 0 ? `${prefix}a` : `${prefix}r${i - 1}`,
      message: {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: `${prefix}t${i}`, content: `${i}:`.padEnd(n, 'y') }],
      },
    })),
  ];
}

async function storeOf(chain: TranscriptEntry[]): Promise<JsonlTranscriptStore> {
  const store = new JsonlTranscriptStore(join(dir, 'data'));
  for (const e of chain) await store.append(e);
  return store;
}

describe('tool-result budget in the request', () => {
  test('budgetedMessages: the results after one assistant line are one message; sent once an assistant line follows', () => {
    const chain = parallelStep([10, 20]);
    expect(budgetedMessages(chain)).toEqual([
      {
        sent: false,
        results: [
          { toolUseId: 's0t0', tool: 'Bash', chars: 10 },
          { toolUseId: 's0t1', tool: 'Bash', chars: 20 },
        ],
      },
    ]);
    const answered: TranscriptEntry = {
      ...base,
      type: 'assistant',
      uuid: 'z',
      parentUuid: 's0r1',
      message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
    };
    expect(budgetedMessages([...chain, answered])[0]?.sent).toBe(true);
  });

  test('withToolResultBudget: an over-budget message sends its largest result by reference, persisted and recorded; a retry reuses the line', async () => {
    const chain = parallelStep([12_000, 25_000, 8_000]);
    const store = await storeOf(chain);
    const call = { sessionId: 's', assistantUuid: 'next', parentUuid: 's0r2' };
    const view = await withToolResultBudget(store, call, chain, { perMessageChars: 30_000 }, dir);
    expect(view.line).toMatchObject({ uuid: toolResultBudgetUuid('next'), replacedToolResults: 1 });
    expect(view.line?.freedTokens).toBeGreaterThan(5_000);
    expect(view.parentUuid).toBe(toolResultBudgetUuid('next'));
    const replacement = view.replaced.get('s0t1')!;
    expect(replacement).toMatch(/^<persisted-output>\nOutput too large \(24\.4KB\)\. Full output saved to: \//);
    // The whole result is in the store and in the file the reference names.
    expect((await store.getContent('s', largeResultKey('s0t1')))?.toString('utf8')).toBe('1:'.padEnd(25_000, 'y'));
    const file = /saved to: (\S+)/.exec(replacement)![1]!;
    expect(readFileSync(file, 'utf8')).toBe('1:'.padEnd(25_000, 'y'));
    // The request sends the reference; the other results whole.
    const messages = buildMessages(view.chain, { replaced: view.replaced });
    const results = (messages[2]!.content as Array<{ type: string; content: unknown }>).filter(
      (b) => b.type === 'tool_result',
    );
    expect(results.map((b) => (typeof b.content === 'string' ? b.content.slice(0, 18) : ''))).toEqual([
      '0:yyyyyyyyyyyyyyyy',
      '<persisted-output>',
      '2:yyyyyyyyyyyyyyyy',
    ]);
    // A retry (same call) finds the line and sends the same bytes without deciding again.
    const again = await withToolResultBudget(store, call, chain, { perMessageChars: 1 }, dir);
    expect([...again.replaced]).toEqual([...view.replaced]);
    // The next call's chain holds the line: the replacement is re-applied.
    expect(recordedReplacements(view.chain).get('s0t1')).toBe(replacement);
  });

  test('withToolResultBudget: a message within the budget writes no line', async () => {
    const chain = parallelStep([1_000, 2_000]);
    const store = await storeOf(chain);
    const view = await withToolResultBudget(
      store,
      { sessionId: 's', assistantUuid: 'n', parentUuid: 's0r1' },
      chain,
      {},
      dir,
    );
    expect(view.line).toBeUndefined();
    expect(view.replaced.size).toBe(0);
    expect(await store.get('s', toolResultBudgetUuid('n'))).toBeUndefined();
  });
});
