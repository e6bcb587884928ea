/**
 * The one turn-result builder (src/client/turn-result.ts), as a specification: what a finished
 * turn and a failed turn workflow report, read from a real store.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, RetryState, TerminatedFailure } from '@temporalio/common';
import { failedTurnOutcome, outcomeOfFailure, turnResultMessage } from '../../../src/client/turn-result';
import type { TranscriptEntry } from '../../../src/common/transcript';
import { TRANSCRIPT_SCHEMA_VERSION } from '../../../src/common/transcript';
import type { TurnOutcome, TurnSpend } from '../../../src/common/turn';
import { emptyUsage } from '../../../src/common/usage';
import { JsonlTranscriptStore } from '../../../src/store';

let dataDir: string;
let store: JsonlTranscriptStore;
beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-result-'));
  store = new JsonlTranscriptStore(dataDir);
});
afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const line = (uuid: string, over: Partial<TranscriptEntry>): TranscriptEntry => ({
  v: TRANSCRIPT_SCHEMA_VERSION,
  parentUuid: null,
  sessionId: 's',
  timestamp: '2026-01-01T00:00:00.000Z',
  uuid,
  type: 'assistant',
  ...over,
});

const usage = { ...emptyUsage(), input_tokens: 120, output_tokens: 30 };
const spend: TurnSpend = {
  numTurns: 2,
  durationApiMs: 900,
  usage,
  modelUsage: {
    m: {
      inputTokens: 120,
      outputTokens: 30,
      cacheReadInputTokens: 0,
      cacheCreationInputTokens: 0,
      webSearchRequests: 0,
      costUSD: 0.0042,
      contextWindow: 200_000,
      maxOutputTokens: 8192,
    },
  },
  costUsd: 0.0042,
  costKnown: true,
  permissionDenials: [{ tool_name: 'Bash', tool_use_id: 't1', tool_input: { command: 'rm -rf /' } }],
};

function success(over: Partial<TurnOutcome> = {}): TurnOutcome {
  return {
    ...failedTurnOutcome(new WorkflowFailedError('x', undefined, RetryState.NON_RETRYABLE_FAILURE), 0, spend),
    subtype: 'success',
    isError: false,
    terminalReason: 'completed',
    durationMs: 1500,
    stopReason: 'end_turn',
    errors: [],
    ...over,
  };
}

describe('failed turn workflows', () => {
  const storeFailure = new WorkflowFailedError(
    'Workflow execution failed',
    ApplicationFailure.create({ type: 'TranscriptError.Storage', message: 'ENOSPC: no space left on device' }),
    RetryState.NON_RETRYABLE_FAILURE,
  );

  test('failedTurnOutcome: what the turn spent before it failed is reported, with its cost known', () => {
    const o = failedTurnOutcome(storeFailure, 2500, spend);
    expect(o).toMatchObject({
      subtype: 'error_during_execution',
      isError: true,
      numTurns: 2,
      durationMs: 2500,
      durationApiMs: 900,
      usage,
      costUsd: 0.0042,
      costKnown: true,
      permissionDenials: spend.permissionDenials,
      errors: ['Transcript store error: ENOSPC: no space left on device (TranscriptError.Storage)'],
    });
  });

  test('failedTurnOutcome: without the spend (no worker answered) the cost is unknown, not $0 known', () => {
    const o = failedTurnOutcome(storeFailure, 10, undefined);
    expect(o).toMatchObject({ numTurns: 0, costUsd: 0, costKnown: false, usage: emptyUsage() });
  });

  test('failedTurnOutcome: the error names the first application failure on the cause chain, else the cause', () => {
    const wrapped = new WorkflowFailedError(
      'Workflow execution failed',
      ApplicationFailure.create({
        type: 'ModelError.Authentication',
        message: 'invalid x-api-key',
        cause: new Error('401'),
      }),
      RetryState.NON_RETRYABLE_FAILURE,
    );
    expect(failedTurnOutcome(wrapped, 0).errors).toEqual([
      'The turn failed: invalid x-api-key (ModelError.Authentication)',
    ]);
    const terminated = new WorkflowFailedError(
      'Workflow execution terminated',
      new TerminatedFailure('stopped by the operator'),
      RetryState.NON_RETRYABLE_FAILURE,
    );
    expect(failedTurnOutcome(terminated, 0).errors).toEqual(['The turn failed: stopped by the operator']);
  });

  test('outcomeOfFailure: an error that is not a failed workflow (the connection) is thrown, not reported', async () => {
    const lost = new Error('14 UNAVAILABLE: connection refused');
    await expect(outcomeOfFailure({} as WorkflowHandle, lost, Date.now())).rejects.toBe(lost);
  });
});

describe('turnResultMessage', () => {
  test('turnResultMessage: a success carries the last assistant line as its result text, and the figures', async () => {
    await store.append(line('a1', { message: { role: 'assistant', content: [{ type: 'text', text: 'All done.' }] } }));
    const r = await turnResultMessage(store, 's', success({ lastAssistantUuid: 'a1' }), 'u1');
    expect(r).toMatchObject({
      type: 'result',
      subtype: 'success',
      uuid: 'u1',
      session_id: 's',
      result: 'All done.',
      num_turns: 2,
      total_cost_usd: 0.0042,
      total_cost_usd_known: true,
      usage,
    });
  });

  test('turnResultMessage: structured output comes from the line the outcome names', async () => {
    await store.append(line('a1', { message: { role: 'assistant', content: [{ type: 'text', text: 'x' }] } }));
    await store.append(
      line('r1', {
        type: 'user',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'ok' }] },
        structuredOutput: { todos: 3 },
      } as Partial<TranscriptEntry>),
    );
    const r = await turnResultMessage(
      store,
      's',
      success({ lastAssistantUuid: 'a1', structuredOutputUuid: 'r1' }),
      'u2',
    );
    expect(r).toMatchObject({ structured_output: { todos: 3 }, result: '{"todos":3}' });
  });

  test('turnResultMessage: a failed turn is an error result with its errors and spend, and no result text', async () => {
    const o = failedTurnOutcome(
      new WorkflowFailedError('failed', new TerminatedFailure('test'), RetryState.NON_RETRYABLE_FAILURE),
      5,
      spend,
    );
    const r = await turnResultMessage(store, 's', o, 'u3');
    expect(r).toMatchObject({
      subtype: 'error_during_execution',
      is_error: true,
      errors: ['The turn failed: test'],
      total_cost_usd: 0.0042,
      total_cost_usd_known: true,
      permission_denials: spend.permissionDenials,
    });
    expect(r).not.toHaveProperty('result');
  });
});
