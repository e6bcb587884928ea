import type { CallModelSummary } from '../../../src/common/model';
import type { RunToolSummary } from '../../../src/common/tools';
import type { TurnInput } from '../../../src/common/turn';
import { WORKFLOW_STATE_VERSION } from '../../../src/common/turn';
import type { PoolMember } from '../../../src/workflows/pool-member';
import { TurnState } from '../../../src/workflows/turn-state';

const input: TurnInput = {
  v: WORKFLOW_STATE_VERSION,
  sessionId: 's',
  turnId: 's-turn-1',
  turnNumber: 1,
  cwd: '/repo',
  prompt: 'hi',
  promptUuid: 'p',
  parentUuid: null,
  options: { model: 'm', maxTokens: 100, limits: { maxTurns: 3 }, permissionMode: 'default' },
  readFileState: {},
};

const call = (over: Partial<CallModelSummary> = {}): CallModelSummary => ({
  model: 'm',
  stopReason: 'tool_use',
  usage: { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  costUsd: 0.01,
  contextWindow: 200_000,
  maxOutputTokens: 100,
  toolUses: [{ id: 't1', name: 'Read', filePath: '/repo/a' }],
  contentTypes: ['tool_use'],
  durationMs: 7,
  replayed: false,
  ...over,
});

const noPool = { status: null, sync: { seq: -1, ack: -1, rev: -1, reachable: true } } as unknown as PoolMember;

describe('TurnState', () => {
  test('TurnState: a new turn starts at its prompt with nothing spent', () => {
    const s = new TurnState(input);
    expect(s.leaf).toBe('p');
    expect(s.data).toMatchObject({ numTurns: 0, events: [], lastMessageType: 'none', limits: { maxTurns: 3 } });
    expect(s.cost()).toEqual({ usd: 0, known: true });
  });

  test('TurnState: a model call moves the leaf to its line and adds its usage and cost', () => {
    const s = new TurnState(input);
    s.recordModelCall('a1', call());
    s.recordModelCall('a2', call({ costUsd: 0.02, stopReason: 'end_turn', contentTypes: ['text'] }));
    expect(s.leaf).toBe('a2');
    expect(s.data.events).toEqual(['a1', 'a2']);
    expect(s.data.numTurns).toBe(2);
    expect(s.data.usage.input_tokens).toBe(20);
    expect(s.cost().usd).toBeCloseTo(0.03, 12);
    expect(s.data.durationApiMs).toBe(14);
    expect(s.successInput()).toEqual({
      lastMessageType: 'assistant',
      lastContentTypes: ['text'],
      stopReason: 'end_turn',
    });
    expect(s.limitState(noPool)).toEqual({ modelCalls: 2, costUsd: s.cost().usd, poolExhausted: false });
  });

  test('TurnState: a model without a price makes the cost unknown, never 0', () => {
    const s = new TurnState(input);
    s.recordModelCall('a1', call({ costUsd: null }));
    expect(s.cost()).toEqual({ usd: 0, known: false });
  });

  test('TurnState: a tool result records read-file state (newest last) and permission denials', () => {
    const s = new TurnState({
      ...input,
      readFileState: {
        '/repo/a': { mtimeMs: 1, size: 1, sha256: 'x' },
        '/repo/b': { mtimeMs: 1, size: 1, sha256: 'y' },
      },
    });
    const ok: RunToolSummary = {
      toolUseId: 't1',
      resultUuid: 'r1',
      isError: false,
      outcome: 'ok',
      fileState: { path: '/repo/a', state: { mtimeMs: 2, size: 2, sha256: 'z' } },
      resultBytes: 3,
      replayed: false,
    };
    s.recordToolResult(ok, { id: 't1', name: 'Read' });
    expect(Object.keys(s.data.readFileState)).toEqual(['/repo/b', '/repo/a']);
    expect(s.readStateOf('/repo/a')?.sha256).toBe('z');
    expect(s.readStateOf(undefined)).toBeNull();
    s.recordToolResult(
      { ...ok, toolUseId: 't2', resultUuid: 'r2', outcome: 'denied', deniedInput: { command: 'rm -rf /' } },
      { id: 't2', name: 'Bash' },
    );
    expect(s.data.denials).toEqual([{ tool_name: 'Bash', tool_use_id: 't2', tool_input: { command: 'rm -rf /' } }]);
    expect(s.data.events).toEqual(['r1', 'r2']);
    expect(s.data.lastMessageType).toBe('user');
  });

  test('TurnState: the outcome carries totals, denials, the leaf and the events; the state is then done', () => {
    const s = new TurnState(input);
    s.recordModelCall('a1', call({ stopReason: 'end_turn', contentTypes: ['text'], toolUses: [] }));
    const o = s.outcome('success', 'completed', []);
    expect(s.done).toBe(true);
    expect(o).toMatchObject({
      subtype: 'success',
      isError: false,
      numTurns: 1,
      leafUuid: 'a1',
      events: ['a1'],
      lastAssistantUuid: 'a1',
      costKnown: true,
      apiErrorStatus: null,
    });
    expect(s.outcome('error_max_turns', 'max_turns', ['x']).isError).toBe(true);
  });

  test('TurnState: continue-as-new carries the whole state, and the next run starts from it', () => {
    const s = new TurnState(input);
    s.recordModelCall('a1', call());
    s.recordCompaction({
      boundaryUuid: 'boundary',
      summaryUuid: 'summary',
      leafUuid: 'kept',
      preTokens: 1200,
      preserved: 2,
      fallback: false,
      usage: call().usage,
      costUsd: 0,
      model: 'm',
    });
    const carried = s.carry(noPool);
    expect(carried).toMatchObject({
      runs: 1,
      leaf: 'kept',
      numTurns: 1,
      compactions: 1,
      compactedContextTokens: 1200,
      compactedSinceCall: true,
      pool: null,
    });
    const next = new TurnState({ ...input, carry: carried });
    expect(next.leaf).toBe('kept');
    expect(next.data.events).toEqual(['a1', 'boundary', 'summary']);
    expect(next.carry(noPool).runs).toBe(2);
    // The next run's state is its own copy.
    next.appendLine('x', 'user');
    expect(carried.events).toHaveLength(3);
  });
});
