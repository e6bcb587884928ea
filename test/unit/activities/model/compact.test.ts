import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import {
  COMPACT_INSTRUCTION,
  contextTokens,
  createCompactContext,
  estimateTokens,
  preservedCopyUuid,
  preservedStart,
} from '../../../../src/activities/model/compact';
import type { CompactInput } from '../../../../src/common/model';
import type { TranscriptEntry } from '../../../../src/common/transcript';
import { findLeaf } from '../../../../src/activities/transcript';
import { buildMessages } from '../../../../src/activities/model/request';
import { startFakeModelServer } from '../../../../src/fake-model';
import type { FakeModelServer, ParsedRequest } from '../../../../src/fake-model';
import { JsonlTranscriptStore } from '../../../../src/store/jsonl-store';

let dir: string;
let store: JsonlTranscriptStore;
let server: FakeModelServer;
let requests: ParsedRequest[];
let failSummaries = false;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'compact-test-'));
  store = new JsonlTranscriptStore(dir);
  requests = [];
  failSummaries = false;
  server = await startFakeModelServer({
    responder: (req) => {
      requests.push(req);
      return failSummaries
        ? { content: [], errors: [{ status: 400, message: 'no' }] }
        : { content: [{ text: 'SUMMARY: files a.ts and b.ts were fixed.' }], usage: { output_tokens: 9 } };
    },
  });
});
afterEach(async () => {
  await server.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

function compactor() {
  const client = new Anthropic({ apiKey: 'test', baseURL: server.baseUrl, maxRetries: 0 });
  return createCompactContext({ store, anthropic: () => client, priceFor: () => null, toolsForModel: () => [] });
}

const base = { v: 1, sessionId: 's', timestamp: '2026-01-01T00:00:00.000Z' };
const usage = (input: number) => ({
  input_tokens: input,
  output_tokens: 10,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
});
/** prompt → (assistant tool_use → tool_result) × n, each result `size` characters. */
function conversation(n: number, size: number): TranscriptEntry[] {
  const lines: TranscriptEntry[] = [
    { ...base, type: 'user', uuid: 'p', parentUuid: null, message: { role: 'user', content: 'fix it' } },
  ];
  for (let i = 0; i < n; i++) {
    const parent = lines[lines.length - 1]?.uuid ?? null;
    lines.push({
      ...base,
      type: 'assistant',
      uuid: `a${i}`,
      parentUuid: parent,
      message: {
        role: 'assistant',
        content: [{ type: 'tool_use', id: `t${i}`, name: 'Bash', input: { command: `step ${i}` } }],
        usage: usage(1000 * (i + 1)),
      },
    });
    lines.push({
      ...base,
      type: 'user',
      uuid: `r${i}`,
      parentUuid: `a${i}`,
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: 'x'.repeat(size) }] },
      toolRun: { tool: 'Bash', outcome: 'ok', shellCwd: i % 2 ? 'sub' : '' },
    });
  }
  return lines;
}
/** Estimated tokens of one step (a tool call and its result; all steps are alike but for digits). */
const stepTokens = (chain: TranscriptEntry[]): number => estimateTokens(chain[1]!) + estimateTokens(chain[2]!);
const input = (over: Partial<CompactInput> = {}): CompactInput => ({
  sessionId: 's',
  turnId: 'turn-1',
  cwd: '/w',
  model: 'claude-sonnet-5-5',
  leafUuid: 'r9',
  boundaryUuid: 'B1',
  summaryUuid: 'S1',
  trigger: 'auto',
  preserveTokens: 5 * stepTokens(conversation(10, 1_000)) + 5,
  ...over,
});

describe('compactContext', () => {
  test('preservedStart: the earliest assistant line from which the rest fits, never the whole chain', () => {
    const chain = conversation(5, 400);
    expect(chain[preservedStart(chain, 2 * stepTokens(chain) + 5)]?.uuid).toBe('a3');
    expect(chain[preservedStart(chain, 2 * stepTokens(chain) - 5)]?.uuid).toBe('a4');
    expect(preservedStart(chain, 50)).toBe(-1);
    expect(preservedStart(chain, 1_000_000)).toBe(1); // all but the prompt
  });

  test('contextTokens: the last response input and output plus what follows it', () => {
    const chain = conversation(3, 40);
    expect(contextTokens(chain)).toBe(3000 + 10 + Math.ceil(JSON.stringify(chain[6]?.message).length / 4));
  });

  test('compactContext: a summary, the recent messages verbatim, then the boundary that refers to them', async () => {
    const original = conversation(10, 1_000);
    await store.appendMany(original);
    const out = await compactor()(input());
    const lines = await store.load('s');
    const preTokens = 10_000 + 10 + estimateTokens(original[20]!); // last response, plus the result after it
    const written = lines.slice(21);
    // Order on disk: the summary, the copies, the boundary last.
    expect(written.map((l) => l.uuid)).toEqual([
      'S1',
      ...['a5', 'r5', 'a6', 'r6', 'a7', 'r7', 'a8', 'r8', 'a9', 'r9'].map((u) => preservedCopyUuid('B1', u)),
      'B1',
    ]);
    const boundary = written[written.length - 1] as Record<string, unknown>;
    expect(boundary).toMatchObject({
      type: 'system',
      subtype: 'compact_boundary',
      parentUuid: 'r9',
      compactMetadata: { trigger: 'auto', pre_tokens: preTokens },
      preservedSegment: { headUuid: preservedCopyUuid('B1', 'a5'), tailUuid: preservedCopyUuid('B1', 'r9'), count: 10 },
      shellCwd: 'sub',
    });
    expect(out).toMatchObject({
      leafUuid: preservedCopyUuid('B1', 'r9'),
      preTokens,
      preserved: 10,
      fallback: false,
    });
    // What the next call sends: the summary, then the kept messages, tool_use before tool_result.
    const chain = await store.chain('s', out.leafUuid);
    expect(chain.map((l) => (l as Record<string, unknown>)['preservedFrom'] ?? l.uuid)).toEqual([
      'S1',
      'a5',
      'r5',
      'a6',
      'r6',
      'a7',
      'r7',
      'a8',
      'r8',
      'a9',
      'r9',
    ]);
    const messages = buildMessages(chain);
    expect(String(messages[0]?.content && JSON.stringify(messages[0].content))).toContain(
      'SUMMARY: files a.ts and b.ts were fixed.',
    );
    expect(messages[1]?.role).toBe('assistant');
    // The summarizing call saw what was summarized, not what was kept.
    const asked = JSON.stringify(requests[0]?.messages);
    expect(asked).toContain(COMPACT_INSTRUCTION);
    expect(asked).toContain('step 4');
    expect(asked).not.toContain('step 5');
    expect(findLeaf(await store.load('s'))).toBe(out.leafUuid);
  });

  test('compactContext: a retry after the boundary returns the same compaction and calls nothing', async () => {
    await store.appendMany(conversation(10, 1_000));
    const first = await compactor()(input());
    const again = await compactor()(input());
    expect(again).toMatchObject({ leafUuid: first.leafUuid, preTokens: first.preTokens, preserved: first.preserved });
    expect(requests).toHaveLength(1);
    expect((await store.load('s')).filter((l) => l.subtype === 'compact_boundary')).toHaveLength(1);
  });

  test('compactContext: a crash between the summary and the boundary: the retry reuses the summary (no second call); until then resume sees the old conversation', async () => {
    await store.appendMany(conversation(10, 1_000));
    const lines = conversation(10, 1_000);
    // The first attempt wrote its summary and died.
    await compactor()(input({ boundaryUuid: 'B0', summaryUuid: 'S0', leafUuid: 'r9', preserveTokens: 0 }));
    const summary = await store.get('s', 'S0');
    rmSync(dir, { recursive: true, force: true });
    store = new JsonlTranscriptStore(dir);
    await store.appendMany([...lines, summary as TranscriptEntry]);
    expect(findLeaf(await store.load('s'))).toBe('r9'); // the summary hangs from a boundary not yet written
    requests.length = 0;
    const out = await compactor()(input({ boundaryUuid: 'B0', summaryUuid: 'S0', preserveTokens: 0 }));
    expect(requests).toHaveLength(0);
    expect(out.leafUuid).toBe('S0');
    expect(findLeaf(await store.load('s'))).toBe('S0');
  });

  test('compactContext: /compact instructions guide the summary; a failed summarizing call falls back to the text itself', async () => {
    await store.appendMany([
      ...conversation(3, 100),
      {
        ...base,
        type: 'user',
        uuid: 'cmd',
        parentUuid: 'r2',
        message: { role: 'user', content: '/compact keep the SQL' },
      },
    ]);
    await compactor()(input({ leafUuid: 'r2', instructionsUuid: 'cmd', trigger: 'manual', preserveTokens: 0 }));
    expect(JSON.stringify(requests[0]?.messages)).toContain('Additional instructions:\\nkeep the SQL');
    failSummaries = true;
    const out = await compactor()(
      input({ leafUuid: 'r2', boundaryUuid: 'B2', summaryUuid: 'S2', trigger: 'manual', preserveTokens: 0 }),
    );
    expect(out).toMatchObject({ fallback: true, costUsd: 0, leafUuid: 'S2' });
    expect(JSON.stringify((await store.get('s', 'S2'))?.message)).toContain('step 2');
  });
});
