import Anthropic from '@anthropic-ai/sdk';
import { startFakeModelServer } from '../../../src/fake-model';
import type { FakeModelServer } from '../../../src/fake-model';
import { thinkingSignature } from '../../../src/fake-model/thinking-signatures';

const REDACTED = 'RkFLRS1SRURBQ1RFRC1USElOS0lORw==';

describe('fake model: thinking blocks must come back unchanged', () => {
  let server: FakeModelServer;
  let client: Anthropic;
  beforeAll(async () => {
    server = await startFakeModelServer({
      responder: (_req, ctx) =>
        ctx.step === 0
          ? { content: [{ thinking: 'Plan.' }, { redacted_thinking: REDACTED }, { text: 'First.' }] }
          : { content: [{ text: 'Second.' }] },
    });
    client = new Anthropic({ apiKey: 'k', baseURL: server.baseUrl, maxRetries: 0 });
  });
  afterAll(() => server.close());

  async function first(): Promise<Anthropic.ContentBlockParam[]> {
    const m = await client.messages.create({
      model: 'm',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
    });
    return m.content as unknown as Anthropic.ContentBlockParam[];
  }
  const again = (assistant: unknown[]): Promise<unknown> =>
    client.messages.create({
      model: 'm',
      max_tokens: 100,
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: assistant as Anthropic.ContentBlockParam[] },
        { role: 'user', content: 'more' },
      ],
    });

  test('thinking signatures: blocks sent back as they came are accepted', async () => {
    const content = await first();
    expect(content[0]).toEqual({ type: 'thinking', thinking: 'Plan.', signature: thinkingSignature('Plan.') });
    await expect(again(content)).resolves.toBeDefined();
  });

  test('thinking signatures: a changed thinking text, a changed signature or made-up redacted data get the API 400', async () => {
    const content = (await first()) as unknown as Array<Record<string, unknown>>;
    const changed = (i: number, patch: Record<string, unknown>): unknown[] =>
      content.map((b, j) => (j === i ? { ...b, ...patch } : b));
    await expect(again(changed(0, { thinking: 'Plan!' }))).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('messages.1.content.0: Invalid `signature` in `thinking` block'),
    });
    await expect(again(changed(0, { signature: 'fake-sig-000' }))).rejects.toMatchObject({ status: 400 });
    await expect(again(changed(1, { data: 'bWFkZS11cA==' }))).rejects.toMatchObject({
      message: expect.stringContaining('messages.1.content.1: Invalid `data` in `redacted_thinking` block'),
    });
  });

  test('thinking budget: budget_tokens must be at least 1024 and below max_tokens', async () => {
    const call = (budget: number, max: number): Promise<unknown> =>
      client.messages.create({
        model: 'm',
        max_tokens: max,
        thinking: { type: 'enabled', budget_tokens: budget },
        messages: [{ role: 'user', content: 'hi' }],
      });
    await expect(call(2048, 2048)).rejects.toMatchObject({ status: 400 });
    await expect(call(512, 4096)).rejects.toMatchObject({ status: 400 });
    await expect(call(2048, 4096)).resolves.toBeDefined();
  });
});
