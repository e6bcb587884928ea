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
    const engine = new QueryEngine({
      client,
      store,
      taskQueue: 'q',
      cwd: '/tmp',
      defaults: {} as never,
      sessionId: 's1',
      pollIntervalMs: 5,
    });
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
