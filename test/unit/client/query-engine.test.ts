import type { Client } from '@temporalio/client';
import { QueryEngine } from '../../../src/client/query-engine';
import type { TranscriptEntry } from '../../../src/common/transcript';
import type { TurnOutcome, TurnProgress } from '../../../src/common/turn';
import type { TranscriptStore } from '../../../src/store/transcript-store';

const base = { v: 1, parentUuid: null, sessionId: 's1', timestamp: '2026-01-01T00:00:00.000Z' };
const assistant = (uuid: string, text: string): TranscriptEntry => ({
  ...base,
  type: 'assistant',
  uuid,
  message: { role: 'assistant', id: `msg_${uuid}`, content: [{ type: 'text', text }], stop_reason: 'end_turn' },
});

function outcome(events: string[]): TurnOutcome {
  const usage = { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  return {
    subtype: 'success',
    isError: false,
    terminalReason: 'completed',
    numTurns: events.length,
    durationMs: 1,
    durationApiMs: 1,
    usage,
    modelUsage: {},
    costUsd: 0,
    costKnown: true,
    stopReason: 'end_turn',
    lastAssistantUuid: events.at(-1) ?? null,
    errors: [],
    permissionDenials: [],
    leafUuid: events.at(-1) ?? '',
    events,
    readFileState: {},
    apiErrorStatus: null,
  } as TurnOutcome;
}

/** An engine on stub Temporal and store objects, polling every 5 ms. */
function engineOn(client: Client, store: TranscriptStore): QueryEngine {
  return new QueryEngine({
    client,
    store,
    taskQueue: 'q',
    cwd: '/tmp',
    defaults: {} as never,
    sessionId: 's1',
    pollIntervalMs: 5,
  });
}

describe('QueryEngine.follow', () => {
  test('follow: a turn that ends while the lines of its last progress are read still streams every line', async () => {
    const lines = new Map([
      ['a1', assistant('a1', 'First.')],
      ['a2', assistant('a2', 'Done.')],
    ]);
    let finish: (o: TurnOutcome) => void = () => undefined;
    const result = new Promise<TurnOutcome>((r) => (finish = r));
    const store = {
      get: (_session: string, uuid: string): Promise<TranscriptEntry | undefined> => {
        // The turn records its last line and ends while the client reads the first one.
        if (uuid === 'a1') finish(outcome(['a1', 'a2']));
        return Promise.resolve(lines.get(uuid));
      },
    } as unknown as TranscriptStore;
    const handle = {
      query: (): Promise<Partial<TurnProgress>> => Promise.resolve({ events: ['a1'], done: false, modelCall: null }),
      result: () => result,
    };
    const client = { workflow: { getHandle: () => handle } } as unknown as Client;
    const engine = engineOn(client, store);
    const out: Array<{ type: string; text?: string }> = [];
    for await (const m of engine.follow({ turnWorkflowId: 'turn-1', offset: 0 })) {
      const content = m.type === 'assistant' ? (m.message['content'] as Array<{ text: string }>) : [];
      out.push({ type: m.type, ...(content[0] ? { text: content[0].text } : {}) });
    }
    expect(out).toEqual([
      { type: 'assistant', text: 'First.' },
      { type: 'assistant', text: 'Done.' },
      { type: 'result' },
    ]);
  });
});

describe('QueryEngine.state', () => {
  /** An engine whose session answers `sessionStates` in order (the last one repeats). */
  function engineWithSession(sessionStates: Array<Record<string, unknown>>): {
    engine: QueryEngine;
    queries: () => number;
  } {
    let queries = 0;
    const turnHandle = {
      query: () => Promise.resolve({ events: [], done: true, modelCall: null }),
      result: () => Promise.resolve(outcome([])),
    };
    const sessionHandle = {
      query: () => Promise.resolve(sessionStates[Math.min(queries++, sessionStates.length - 1)]),
    };
    const client = {
      workflow: { getHandle: (id: string) => (id.startsWith('turn') ? turnHandle : sessionHandle) },
    } as unknown as Client;
    const store = { get: () => Promise.resolve(undefined) } as unknown as TranscriptStore;
    const engine = engineOn(client, store);
    return { engine, queries: () => queries };
  }
  // As -p follows a turn it submitted: the session's spend before it came with the submit answer,
  // so following asks the session nothing (these tests count the state queries of state()).
  const started = {
    turnWorkflowId: 'turn-1',
    offset: 0,
    sessionBefore: { costUsd: 0, costKnown: true, modelUsage: {} },
  };
  const before = {
    turnCount: 0,
    totalCostUsd: 0,
    lastTurnWorkflowId: null,
    currentTurnWorkflowId: 'turn-1',
    busy: true,
  };
  const after = {
    turnCount: 1,
    totalCostUsd: 0.5,
    lastTurnWorkflowId: 'turn-1',
    currentTurnWorkflowId: null,
    busy: false,
  };

  test('state: after the engine yielded a turn result, state includes that turn even while the session has not folded it in yet', async () => {
    const { engine, queries } = engineWithSession([before, before, before, after]);
    for await (const m of engine.follow(started)) void m;
    const s = await engine.state();
    expect(s).toMatchObject({ turnCount: 1, totalCostUsd: 0.5, lastTurnWorkflowId: 'turn-1' });
    expect(queries()).toBe(4);
  });

  test('state: during a turn (no result yielded yet) state answers at once with the running turn', async () => {
    const { engine, queries } = engineWithSession([before, after]);
    const s = await engine.state();
    expect(s).toMatchObject({ turnCount: 0, currentTurnWorkflowId: 'turn-1' });
    expect(queries()).toBe(1);
  });

  test('state: a later turn started elsewhere does not make state wait', async () => {
    const { engine, queries } = engineWithSession([
      { ...after, lastTurnWorkflowId: 'turn-0', currentTurnWorkflowId: 'turn-2' },
    ]);
    for await (const m of engine.follow(started)) void m;
    await engine.state();
    expect(queries()).toBe(1);
  });
});
