import { assembleStream } from '../../../../src/activities/model/stream';
import { StreamInterruptedError } from '../../../../src/activities/model/errors';

async function* events(list: unknown[]): AsyncGenerator<never> {
  for (const e of list) yield e as never;
}

const start = { type: 'message_start', message: { id: 'm', model: 'x', usage: { input_tokens: 5, output_tokens: 1 } } };

describe('stream assembly', () => {
  test('assembleStream: joins text and tool input deltas; usage from message_delta is cumulative', async () => {
    const msg = await assembleStream(
      events([
        start,
        { type: 'ping' },
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'he' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'llo' } },
        { type: 'content_block_stop', index: 0 },
        {
          type: 'content_block_start',
          index: 1,
          content_block: { type: 'tool_use', id: 't', name: 'Read', input: {} },
        },
        { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"file_' } },
        { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: 'path":"/a"}' } },
        { type: 'content_block_stop', index: 1 },
        { type: 'a_future_event_type' },
        {
          type: 'message_delta',
          delta: { stop_reason: 'tool_use', stop_sequence: null },
          usage: { output_tokens: 42 },
        },
        { type: 'message_stop' },
      ]),
      () => undefined,
    );
    expect(msg.content).toEqual([
      { type: 'text', text: 'hello' },
      { type: 'tool_use', id: 't', name: 'Read', input: { file_path: '/a' } },
    ]);
    expect(msg.stop_reason).toBe('tool_use');
    expect(msg.usage).toMatchObject({ input_tokens: 5, output_tokens: 42 });
  });

  test('assembleStream: invalid tool input JSON is kept aside, not thrown', async () => {
    const msg = await assembleStream(
      events([
        start,
        {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'tool_use', id: 'bad', name: 'Bash', input: {} },
        },
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"command": ' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 3 } },
        { type: 'message_stop' },
      ]),
      () => undefined,
    );
    expect(msg.content[0]).toMatchObject({ id: 'bad', input: {} });
    expect(msg.invalidToolInputs).toEqual({ bad: '{"command": ' });
  });

  test('assembleStream: a stream that ends before message_stop is an interruption', async () => {
    await expect(assembleStream(events([start]), () => undefined)).rejects.toBeInstanceOf(StreamInterruptedError);
  });

  test('assembleStream: the message is complete at message_delta; a stream cut after it still yields it', async () => {
    const seen: string[] = [];
    async function* cut(): AsyncGenerator<never> {
      yield start as never;
      yield { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } as never;
      yield { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hi' } } as never;
      yield { type: 'content_block_stop', index: 0 } as never;
      yield { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } } as never;
      throw new Error('terminated');
    }
    const msg = await assembleStream(cut(), {
      onStart: async (m) => {
        seen.push(`start:${m.usage.input_tokens}`);
      },
      onComplete: async (m) => {
        seen.push(`complete:${m.stop_reason}:${m.usage.output_tokens}`);
      },
    });
    expect(seen).toEqual(['start:5', 'complete:end_turn:2']);
    expect(msg.content).toEqual([{ type: 'text', text: 'hi' }]);
  });

  test('assembleStream: an error before message_delta is thrown even after message_start', async () => {
    async function* cut(): AsyncGenerator<never> {
      yield start as never;
      throw new Error('terminated');
    }
    await expect(assembleStream(cut(), {})).rejects.toThrow('terminated');
  });
});
