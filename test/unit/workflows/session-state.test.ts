import type { SessionInput, StoredSessionSummary } from '../../../src/common/session';
import type { TurnOutcome } from '../../../src/common/turn';
import { WORKFLOW_STATE_VERSION } from '../../../src/common/turn';
import { emptyUsage } from '../../../src/common/usage';
import type { Usage } from '../../../src/common/usage';
import { MAX_DENIALS, SessionLedger, emptyState } from '../../../src/workflows/session-state';

const input: SessionInput = {
  v: WORKFLOW_STATE_VERSION,
  sessionId: 's',
  cwd: '/repo',
  defaults: { model: 'claude-sonnet-4-5', maxTokens: 100, limits: { maxTurns: 3 }, permissionMode: 'default' },
};

const usage = (output: number): Usage => ({ ...emptyUsage(), input_tokens: 10, output_tokens: output });
const modelUsage = (output: number, costUSD: number | null) => ({
  'claude-sonnet-4-5': {
    inputTokens: 10,
    outputTokens: output,
    cacheReadInputTokens: 0,
    cacheCreationInputTokens: 0,
    webSearchRequests: 0,
    costUSD,
    contextWindow: 200_000,
    maxOutputTokens: 100,
  },
});

const outcome = (over: Partial<TurnOutcome> = {}): TurnOutcome => ({
  subtype: 'success',
  isError: false,
  terminalReason: 'completed',
  numTurns: 1,
  durationMs: 5,
  durationApiMs: 3,
  usage: usage(5),
  modelUsage: modelUsage(5, 0.01),
  costUsd: 0.01,
  costKnown: true,
  stopReason: 'end_turn',
  lastAssistantUuid: 'a1',
  errors: [],
  permissionDenials: [],
  leafUuid: 'leaf-1',
  events: ['p', 'a1'],
  readFileState: { '/repo/a': { mtimeMs: 1, size: 1, sha256: 'x' } },
  apiErrorStatus: null,
  structuredOutputUuid: null,
  ...over,
});

const stored = (over: Partial<StoredSessionSummary> = {}): StoredSessionSummary => ({
  exists: true,
  leafUuid: 'stored-leaf',
  usage: usage(50),
  modelUsage: modelUsage(50, 0.5),
  turnCount: 4,
  ...over,
});

describe('SessionLedger', () => {
  test('SessionLedger: a fresh session is empty until the store says otherwise; a new one stays empty', () => {
    const fresh = new SessionLedger(input);
    expect(fresh.state).toEqual(emptyState(input));
    fresh.load(stored({ exists: false }));
    expect(fresh.state).toEqual(emptyState(input));
    fresh.load(stored());
    expect(fresh.state).toMatchObject({ leafUuid: 'stored-leaf', turnCount: 4, totalCostUsd: 0.5, costKnown: true });
  });

  test('SessionLedger: the next turn continues from the leaf with the submit on top of the defaults', () => {
    const l = new SessionLedger(input);
    l.recordTurn(outcome(), 'agent-session-s-turn-1');
    const turn = l.nextTurn();
    expect(turn).toEqual({ number: 2, id: 'agent-session-s-turn-2' });
    const t = l.turnInput(
      {
        prompt: { key: 'prompt/x', bytes: 3, sha256: 'x' },
        promptLine: 'fix it',
        options: { limits: { maxBudgetUsd: 1 }, model: 'claude-opus-4-1' },
      },
      turn,
      'p2',
      'agent-session-s',
    );
    expect(t).toMatchObject({
      turnId: 'agent-session-s-turn-2',
      turnNumber: 2,
      promptRef: { key: 'prompt/x' },
      promptLine: 'fix it',
      promptUuid: 'p2',
      parentUuid: 'leaf-1',
      readFileState: { '/repo/a': { mtimeMs: 1, size: 1, sha256: 'x' } },
      sessionWorkflowId: 'agent-session-s',
      options: { model: 'claude-opus-4-1', limits: { maxTurns: 3, maxBudgetUsd: 1 } },
    });
    expect(t.prompt).toBeUndefined();
  });

  test('SessionLedger: turns add up; denials are capped to the most recent', () => {
    const l = new SessionLedger(input);
    const denial = (i: number) => ({ tool_name: 'Bash', tool_use_id: `t${i}`, tool_input: {} });
    l.recordTurn(outcome({ permissionDenials: Array.from({ length: MAX_DENIALS }, (_, i) => denial(i)) }), 'turn-1');
    l.recordTurn(outcome({ permissionDenials: [denial(999)], leafUuid: 'leaf-2' }), 'turn-2');
    const s = l.state;
    expect(s).toMatchObject({ turnCount: 2, leafUuid: 'leaf-2', lastTurnWorkflowId: 'turn-2', totalCostUsd: 0.02 });
    expect(s.usage.output_tokens).toBe(10);
    expect(s.permissionDenials).toHaveLength(MAX_DENIALS);
    expect(s.permissionDenials.at(-1)?.tool_use_id).toBe('t999');
  });

  test('SessionLedger: a failed turn counts the store totals (never fewer than counted), or only its leaf before the patch', () => {
    const counted = new SessionLedger(input);
    counted.recordFailedTurn(stored(), 'turn-1', true);
    expect(counted.state).toMatchObject({ turnCount: 1, leafUuid: 'stored-leaf', totalCostUsd: 0.5 });

    const legacy = new SessionLedger(input);
    legacy.recordFailedTurn(stored(), 'turn-1', false);
    expect(legacy.state).toMatchObject({ turnCount: 1, leafUuid: 'stored-leaf', totalCostUsd: 0 });

    const ahead = new SessionLedger(input);
    ahead.recordTurn(outcome({ costUsd: 1, modelUsage: modelUsage(500, 1), usage: usage(500) }), 'turn-1');
    ahead.recordFailedTurn(stored({ leafUuid: null }), 'turn-2', true);
    expect(ahead.state).toMatchObject({ turnCount: 2, leafUuid: 'leaf-1', totalCostUsd: 1 });
  });

  test('SessionLedger: limits changed by signal reach later turns and the status; continue-as-new carries both whole', () => {
    const l = new SessionLedger(input);
    l.setLimits({ maxTurns: null, maxBudgetUsd: 2 });
    expect(l.defaults.limits).toEqual({ maxBudgetUsd: 2 });
    expect(l.status({ busy: true, currentTurnWorkflowId: 't', queued: 1 })).toMatchObject({
      busy: true,
      limits: { maxBudgetUsd: 2 },
      budgetPoolId: null,
      queued: 1,
    });
    l.recordTurn(outcome(), 'turn-1');
    const next = new SessionLedger({ ...input, ...l.carry() });
    expect(next.state).toEqual(l.state);
    expect(next.defaults).toEqual(l.defaults);
  });

  test('SessionLedger: a state of a newer version is refused (this code would drop what it does not know)', () => {
    const newer = { ...emptyState(input), v: WORKFLOW_STATE_VERSION + 1 };
    expect(() => new SessionLedger({ ...input, state: newer })).toThrow(/newer than this worker/);
  });

  test('SessionLedger: a batch response no turn counted joins the totals once per custom_id, also across continue-as-new', () => {
    const l = new SessionLedger(input);
    l.recordTurn(outcome(), 'turn-1');
    const spend = { customId: 'abc_1', turnId: 'turn-1', usage: usage(7), modelUsage: modelUsage(7, 0.002) };
    expect(l.settleBatchSpend(spend)).toBe(true);
    expect(l.state.totalCostUsd).toBeCloseTo(0.012, 10);
    expect(l.state.usage.output_tokens).toBe(12);
    expect(l.settleBatchSpend(spend)).toBe(false);
    const next = new SessionLedger({ ...input, ...l.carry() });
    expect(next.settleBatchSpend(spend)).toBe(false);
    expect(next.state.totalCostUsd).toBeCloseTo(0.012, 10);
    expect(next.settleBatchSpend({ ...spend, customId: 'abc_2' })).toBe(true);
    expect(next.state.totalCostUsd).toBeCloseTo(0.014, 10);
  });
});
