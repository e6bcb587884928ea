import Anthropic from '@anthropic-ai/sdk';
import type { FakeModelServer } from '../../../src/fake-model';
import { startFakeModelServer } from '../../../src/fake-model';

const params = (who: string): Anthropic.MessageCreateParamsNonStreaming => ({
  model: 'claude-sonnet-4-5',
  max_tokens: 100,
  metadata: { user_id: who },
  messages: [{ role: 'user', content: `hello from ${who}` }],
});

async function waitEnded(client: Anthropic, id: string): Promise<Anthropic.Messages.MessageBatch> {
  for (;;) {
    const b = await client.messages.batches.retrieve(id);
    if (b.processing_status === 'ended') return b;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function resultsOf(client: Anthropic, id: string): Promise<Map<string, Anthropic.Messages.MessageBatchResult>> {
  const out = new Map<string, Anthropic.Messages.MessageBatchResult>();
  for await (const line of await client.messages.batches.results(id)) out.set(line.custom_id, line.result);
  return out;
}

describe('fake model: Message Batches API', () => {
  let server: FakeModelServer;
  let client: Anthropic;
  beforeEach(async () => {
    server = await startFakeModelServer({
      batchProcessingMs: 150,
      responder: (req, ctx) => {
        const who = ctx.conversationKey;
        if (who === 'err') return { content: [{ text: 'x' }], errors: [{ status: 529 }] };
        if (who === 'exp') return { content: [{ text: 'late' }], errors: [{ batch_result: 'expired' }] };
        return { content: [{ text: `hi ${who} (${req.messages.length})` }], usage: { output_tokens: 7 } };
      },
    });
    client = new Anthropic({ apiKey: 'test', baseURL: server.baseUrl, maxRetries: 0 });
  });
  afterEach(() => server.close());

  test('batches: create is in_progress until the processing delay, then results answer each custom_id by the scripts', async () => {
    const created = await client.messages.batches.create({
      requests: [
        { custom_id: 'a', params: params('alice') },
        { custom_id: 'b', params: params('bob') },
        { custom_id: 'c', params: params('err') },
        { custom_id: 'd', params: params('exp') },
      ],
    });
    expect(created).toMatchObject({
      type: 'message_batch',
      processing_status: 'in_progress',
      results_url: null,
      ended_at: null,
      request_counts: { processing: 4, succeeded: 0, errored: 0, canceled: 0, expired: 0 },
    });
    expect(created.id).toMatch(/^msgbatch_/);
    await expect(client.messages.batches.results(created.id)).rejects.toThrow(/results_url/);
    const ended = await waitEnded(client, created.id);
    expect(Date.parse(ended.ended_at ?? '') - Date.parse(ended.created_at)).toBeGreaterThanOrEqual(140);
    expect(ended.request_counts).toEqual({ processing: 0, succeeded: 2, errored: 1, canceled: 0, expired: 1 });
    const results = await resultsOf(client, created.id);
    const a = results.get('a');
    expect(a?.type === 'succeeded' && a.message.content[0]).toMatchObject({ type: 'text', text: 'hi alice (1)' });
    expect(a?.type === 'succeeded' && a.message.usage.output_tokens).toBe(7);
    expect(results.get('c')).toMatchObject({
      type: 'errored',
      error: { type: 'error', error: { type: 'overloaded_error' } },
    });
    expect(results.get('d')).toEqual({ type: 'expired' });
    // The batch's requests are in the request log like synchronous calls, tagged with the batch.
    const logged = server.requests().filter((e) => e.batch?.id === created.id);
    expect(logged.map((e) => e.batch?.customId).sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(logged.find((e) => e.batch?.customId === 'd')?.outcome).toBe('batch_unprocessed');
    expect(server.batches()).toEqual([
      expect.objectContaining({ id: created.id, processing_status: 'ended', custom_ids: ['a', 'b', 'c', 'd'] }),
    ]);
  });

  test('batches: a fault of kind batch_result is skipped by a synchronous call', async () => {
    const m = await client.messages.create(params('exp'));
    expect(m.content[0]).toMatchObject({ type: 'text', text: 'late' });
  });

  test('batches: cancel before processing cancels every request', async () => {
    server.configureBatches({ processingMs: 10_000 });
    const created = await client.messages.batches.create({ requests: [{ custom_id: 'x', params: params('alice') }] });
    const canceling = await client.messages.batches.cancel(created.id);
    expect(canceling.cancel_initiated_at).not.toBeNull();
    const ended = await waitEnded(client, created.id);
    expect(ended.request_counts.canceled).toBe(1);
    expect((await resultsOf(client, created.id)).get('x')).toEqual({ type: 'canceled' });
    expect(server.requests()).toHaveLength(0);
  });

  test('batches: requests not processed by expires_after expire', async () => {
    server.configureBatches({ processingMs: 10_000, expiresAfterMs: 100 });
    const created = await client.messages.batches.create({ requests: [{ custom_id: 'x', params: params('alice') }] });
    const ended = await waitEnded(client, created.id);
    expect(ended.request_counts.expired).toBe(1);
    expect((await resultsOf(client, created.id)).get('x')).toEqual({ type: 'expired' });
  });

  test('batches: bad input gets 400 invalid_request_error naming the field; unknown ids 404', async () => {
    await expect(client.messages.batches.create({ requests: [] })).rejects.toMatchObject({ status: 400 });
    await expect(
      client.messages.batches.create({
        requests: [
          { custom_id: 'same', params: params('a') },
          { custom_id: 'same', params: params('b') },
        ],
      }),
    ).rejects.toThrow(/requests\.1\.custom_id: duplicate/);
    await expect(
      client.messages.batches.create({ requests: [{ custom_id: 'has space', params: params('a') }] }),
    ).rejects.toThrow(/custom_id: must match/);
    await expect(client.messages.batches.retrieve('msgbatch_nope')).rejects.toMatchObject({ status: 404 });
  });

  test('batches: the processing delay is adjustable over HTTP', async () => {
    const res = await fetch(`${server.baseUrl}/_fake/batches/config`, {
      method: 'POST',
      body: JSON.stringify({ processing_ms: 0 }),
    });
    expect(await res.json()).toEqual({ processing_ms: 0, expires_after_ms: 86_400_000 });
    const bad = await fetch(`${server.baseUrl}/_fake/batches/config`, {
      method: 'POST',
      body: JSON.stringify({ processing_ms: -1 }),
    });
    expect(bad.status).toBe(400);
    const created = await client.messages.batches.create({ requests: [{ custom_id: 'x', params: params('bob') }] });
    await waitEnded(client, created.id);
    const list = await client.messages.batches.list();
    expect(list.data.map((b) => b.id)).toEqual([created.id]);
  });
});
