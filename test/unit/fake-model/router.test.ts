import Anthropic from '@anthropic-ai/sdk';
import type { ParsedRequest, RouteContext } from '../../../src/fake-model';
import { matchMarker, routeByMarker, startFakeModelServer } from '../../../src/fake-model';

const req = (...messages: ParsedRequest['messages']): ParsedRequest => ({ model: 'm', max_tokens: 1, messages });
const scripts = [
  { marker: '[as:main]', steps: [{ content: [{ text: 'main 0' }] }, { content: [{ text: 'main 1' }] }] },
  { marker: '[as:fork]', steps: [{ content: [{ text: 'fork 0' }] }] },
];

describe('fake model router', () => {
  test('matchMarker: the latest user message with a marker wins (a fork repeats its parent, then its directive)', () => {
    const parent = req(
      { role: 'user', content: '[as:main] go' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Agent', input: { prompt: '[as:fork] x' } }] },
    );
    expect(matchMarker(scripts, parent)?.script.marker).toBe('[as:main]');
    const fork = req(...parent.messages, {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 't1', content: 'Fork started' },
        { type: 'text', text: 'Your directive: [as:fork] x' },
      ],
    });
    expect(matchMarker(scripts, fork)).toMatchObject({ script: { marker: '[as:fork]' }, messageIndex: 2 });
  });

  test('matchMarker: a marker quoted back inside a tool_result does not re-route', () => {
    const r = req(
      { role: 'user', content: '[as:main] go' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Read', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'the file says [as:fork]' }] },
    );
    expect(matchMarker(scripts, r)?.script.marker).toBe('[as:main]');
  });

  test('routeByMarker: the step counts the assistant messages after the matched message; tool ids per conversation', async () => {
    const seen: RouteContext[] = [];
    const responder = routeByMarker(
      [
        {
          marker: '[as:main]',
          steps: [
            { content: [{ tool_use: { name: 'Agent', input: {} } }] },
            (r, ctx) => ({ content: [{ text: `main ${ctx.scriptStep} saw ${r.messages.length}` }] }),
          ],
        },
        { marker: '[as:sub]', steps: [{ content: [{ tool_use: { name: 'Read', input: {} } }] }] },
      ],
      { onRoute: (_r, ctx) => seen.push(ctx) },
    );
    const ctx = { step: 0, attempt: 1, conversationKey: 'k' };
    const first = await responder(req({ role: 'user', content: 'x [as:main]' }), ctx);
    expect(first.content?.[0]?.tool_use?.id).toBe('toolu_as_main_0_0');
    const sub = await responder(req({ role: 'user', content: [{ type: 'text', text: '[as:sub] read' }] }), ctx);
    expect(sub.content?.[0]?.tool_use?.id).toBe('toolu_as_sub_0_0');
    const second = await responder(
      req(
        { role: 'user', content: '[as:main]' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_as_main_0_0', name: 'Agent', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_as_main_0_0', content: 'ok' }] },
      ),
      { ...ctx, step: 1 },
    );
    expect(second.content?.[0]?.text).toBe('main 1 saw 3');
    expect(seen.map((c) => `${c.script}:${c.scriptStep}`)).toEqual(['[as:main]:0', '[as:sub]:0', '[as:main]:1']);
  });

  test('routeByMarker: no marker, or no step left, is a loud HTTP 400 through the server', async () => {
    const server = await startFakeModelServer({ responder: routeByMarker(scripts) });
    try {
      const client = new Anthropic({ apiKey: 'test', baseURL: server.baseUrl, maxRetries: 0 });
      const ask = (content: string): Promise<unknown> =>
        client.messages.create({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content }] });
      await expect(ask('no marker here')).rejects.toThrow(/responder failed: no marker in the request's user text/);
      const ok = (await ask('[as:fork] go')) as Anthropic.Message;
      expect(ok.content[0]).toMatchObject({ type: 'text', text: 'fork 0' });
      await expect(
        client.messages.create({
          model: 'm',
          max_tokens: 5,
          messages: [
            { role: 'user', content: '[as:fork] go' },
            { role: 'assistant', content: 'fork 0' },
            { role: 'user', content: 'more' },
          ],
        }),
      ).rejects.toThrow(/script \[as:fork\] has no step 1/);
    } finally {
      await server.close();
    }
  });

  test('routeByMarker: a fallback answers requests without a marker', async () => {
    const responder = routeByMarker(scripts, { fallback: { content: [{ text: 'side call' }] } });
    const step = await responder(req({ role: 'user', content: 'title this session' }), {
      step: 0,
      attempt: 1,
      conversationKey: 'k',
    });
    expect(step.content?.[0]?.text).toBe('side call');
  });
});
