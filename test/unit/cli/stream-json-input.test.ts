import type { UserPrompt } from '../../../src/common/user-prompt';
import type { SDKMessage, SDKResultMessage } from '../../../src/common/sdk-messages';
import type { TurnOptions } from '../../../src/common/turn';
import { emptyUsage } from '../../../src/common/usage';
import type { StreamJsonEngine } from '../../../src/cli/stream-json-input';
import { initializeCatalog } from '../../../src/cli/stream-json-input';
import { parseStreamInputLine, runStreamJsonInput } from '../../../src/cli/stream-json-input';

const OPTIONS: TurnOptions = { model: 'model-a', maxTokens: 1024, limits: {}, permissionMode: 'default' };

function result(text: string): SDKResultMessage {
  return {
    type: 'result',
    subtype: 'success',
    uuid: `u-${text}`,
    session_id: 's',
    duration_ms: 1,
    duration_api_ms: 1,
    is_error: false,
    num_turns: 1,
    stop_reason: 'end_turn',
    total_cost_usd: 0,
    total_cost_usd_known: true,
    usage: emptyUsage(),
    modelUsage: {},
    permission_denials: [],
    terminal_reason: 'completed',
    result: text,
  };
}

/** A fake conversation: each turn yields its prompt back as the result, after `gate` opens. */
function fakeEngine(): StreamJsonEngine & {
  turns: Array<{ prompt: UserPrompt; options: Partial<TurnOptions> | undefined }>;
  interrupts: string[];
  gate: { open: () => void; wait: Promise<void> };
} {
  let open = (): void => undefined;
  const wait = new Promise<void>((r) => (open = r));
  const engine = {
    turns: [] as Array<{ prompt: UserPrompt; options: Partial<TurnOptions> | undefined }>,
    interrupts: [] as string[],
    gate: { open: () => open(), wait },
    async *submitMessage(
      prompt: UserPrompt,
      options?: Partial<TurnOptions>,
    ): AsyncGenerator<SDKMessage, void, undefined> {
      engine.turns.push({ prompt, options });
      await wait;
      yield result(typeof prompt === 'string' ? prompt : JSON.stringify(prompt));
    },
    async interrupt(reason?: string): Promise<void> {
      engine.interrupts.push(reason ?? '');
      open();
    },
  };
  return engine;
}

/** Lines fed one by one; the iterator ends when `end()` is called. */
function feed(): { lines: AsyncIterable<string>; push: (l: unknown) => void; end: () => void } {
  const queue: string[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  return {
    push: (l) => {
      queue.push(typeof l === 'string' ? l : JSON.stringify(l));
      wake?.();
    },
    end: () => {
      ended = true;
      wake?.();
    },
    lines: {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          const next = queue.shift();
          if (next !== undefined) yield next;
          else if (ended) return;
          else await new Promise<void>((r) => (wake = r));
        }
      },
    },
  };
}

const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 10));
const user = (content: unknown): unknown => ({ type: 'user', message: { role: 'user', content } });
const control = (id: string, request: Record<string, unknown>): unknown => ({
  type: 'control_request',
  request_id: id,
  request,
});

describe('stream-json input', () => {
  test('parseStreamInputLine: user messages (string or text blocks), control requests, other types, bad lines', () => {
    expect(parseStreamInputLine(JSON.stringify(user('hi')))).toEqual({ kind: 'user', text: 'hi', skippedBlocks: [] });
    expect(
      parseStreamInputLine(
        JSON.stringify(
          user([
            { type: 'text', text: 'a' },
            { type: 'image', source: {} },
            { type: 'text', text: 'b' },
          ]),
        ),
      ),
    ).toEqual({ kind: 'user', text: 'a\nb', skippedBlocks: ['image'] });
    expect(parseStreamInputLine(JSON.stringify(control('r1', { subtype: 'interrupt' })))).toEqual({
      kind: 'control_request',
      requestId: 'r1',
      request: { subtype: 'interrupt' },
    });
    expect(parseStreamInputLine('{"type":"keep_alive"}')).toEqual({ kind: 'ignored', type: 'keep_alive' });
    expect(parseStreamInputLine('not json').kind).toBe('invalid');
    expect(parseStreamInputLine('{"type":"control_request"}').kind).toBe('invalid');
    expect(parseStreamInputLine('{"type":"user","message":{}}').kind).toBe('invalid');
  });

  test('runStreamJsonInput: each user line is a turn, run in order; the last result is returned', async () => {
    const engine = fakeEngine();
    engine.gate.open();
    const out: unknown[] = [];
    const f = feed();
    const done = runStreamJsonInput(f.lines, {
      engine,
      options: OPTIONS,
      write: (m) => out.push(m),
      warn: () => undefined,
    });
    f.push(user('one'));
    f.push(user([{ type: 'text', text: 'two' }]));
    f.end();
    const last = await done;
    expect(engine.turns.map((t) => t.prompt)).toEqual(['one', 'two']);
    expect(out.map((m) => (m as SDKResultMessage).result)).toEqual(['one', 'two']);
    expect(last?.result).toBe('two');
  });

  test('runStreamJsonInput: a line that is not a message ends the run with an error after the running turn; later lines are not run', async () => {
    const engine = fakeEngine();
    const out: unknown[] = [];
    const f = feed();
    const done = runStreamJsonInput(f.lines, {
      engine,
      options: OPTIONS,
      write: (m) => out.push(m),
      warn: () => undefined,
    });
    f.push(user('one'));
    await tick();
    f.push('not json at all');
    f.push(user('two'));
    f.end();
    await tick();
    engine.gate.open();
    await expect(done).rejects.toThrow(/^error parsing a stream-json input line \(15 characters\): not JSON/);
    expect(engine.turns.map((t) => t.prompt)).toEqual(['one']);
    expect(out.map((m) => (m as SDKResultMessage).result)).toEqual(['one']);
  });

  test('runStreamJsonInput: initialize is answered and its system prompt applies to the turns', async () => {
    const engine = fakeEngine();
    engine.gate.open();
    const out: unknown[] = [];
    const f = feed();
    const done = runStreamJsonInput(f.lines, {
      engine,
      options: OPTIONS,
      write: (m) => out.push(m),
      warn: () => undefined,
    });
    f.push(control('init-1', { subtype: 'initialize', systemPrompt: ['Be brief.'], appendSystemPrompt: 'Extra.' }));
    await tick();
    f.push(user('go'));
    f.end();
    await done;
    expect(out[0]).toMatchObject({
      type: 'control_response',
      response: {
        subtype: 'success',
        request_id: 'init-1',
        response: {
          commands: [
            expect.objectContaining({ name: 'clear', builtin: true }),
            expect.objectContaining({ name: 'compact' }),
          ],
          agents: [],
          output_style: 'default',
          current_permission_mode: 'default',
        },
      },
    });
    expect(engine.turns[0]?.options).toMatchObject({ systemPrompt: 'Be brief.', appendSystemPrompt: 'Extra.' });
  });

  test('runStreamJsonInput: an empty SDK system prompt ([""]) keeps the default one', async () => {
    const engine = fakeEngine();
    engine.gate.open();
    const f = feed();
    const done = runStreamJsonInput(f.lines, {
      engine,
      options: OPTIONS,
      write: () => undefined,
      warn: () => undefined,
    });
    f.push(control('i', { subtype: 'initialize', systemPrompt: [''] }));
    await tick();
    f.push(user('go'));
    f.end();
    await done;
    expect(engine.turns[0]?.options).not.toHaveProperty('systemPrompt');
  });

  test('runStreamJsonInput: interrupt is answered while a turn runs, and interrupts it', async () => {
    const engine = fakeEngine();
    const out: unknown[] = [];
    const f = feed();
    const done = runStreamJsonInput(f.lines, {
      engine,
      options: OPTIONS,
      write: (m) => out.push(m),
      warn: () => undefined,
    });
    f.push(user('long'));
    await tick();
    f.push(control('int-1', { subtype: 'interrupt' }));
    f.end();
    await done;
    expect(engine.interrupts).toHaveLength(1);
    expect(out).toContainEqual({
      type: 'control_response',
      response: { subtype: 'success', request_id: 'int-1', response: {} },
    });
  });

  test('runStreamJsonInput: set_model and set_permission_mode change later turns; unknown requests get an error', async () => {
    const engine = fakeEngine();
    engine.gate.open();
    const out: unknown[] = [];
    const f = feed();
    const done = runStreamJsonInput(f.lines, {
      engine,
      options: OPTIONS,
      write: (m) => out.push(m),
      warn: () => undefined,
    });
    f.push(control('m', { subtype: 'set_model', model: 'model-b' }));
    f.push(control('p', { subtype: 'set_permission_mode', mode: 'acceptEdits' }));
    f.push(control('bad', { subtype: 'set_permission_mode', mode: 'yolo' }));
    f.push(control('x', { subtype: 'mcp_status' }));
    await tick();
    f.push(user('one'));
    await tick();
    f.push(control('m2', { subtype: 'set_model', model: null }));
    await tick();
    f.push(user('two'));
    f.end();
    await done;
    expect(engine.turns.map((t) => [t.options?.model, t.options?.permissionMode])).toEqual([
      ['model-b', 'acceptEdits'],
      ['model-a', 'acceptEdits'],
    ]);
    const responses = out.filter((m) => (m as { type: string }).type === 'control_response') as Array<{
      response: { subtype: string; request_id: string; error?: string };
    }>;
    expect(responses.map((r) => [r.response.request_id, r.response.subtype])).toEqual([
      ['m', 'success'],
      ['p', 'success'],
      ['bad', 'error'],
      ['x', 'error'],
      ['m2', 'success'],
    ]);
    expect(responses[3]?.response.error).toContain('Unsupported control request subtype: mcp_status');
  });

  test('runStreamJsonInput: set_model to a model whose cost a USD limit cannot check is refused; the session keeps its model', async () => {
    const engine = fakeEngine();
    engine.gate.open();
    const out: unknown[] = [];
    const f = feed();
    const done = runStreamJsonInput(f.lines, {
      engine,
      options: { ...OPTIONS, limits: { maxBudgetUsd: 1 } },
      write: (m) => out.push(m),
      warn: () => undefined,
      unenforceableBudget: (model, o) =>
        model === 'unpriced' && o.limits.maxBudgetUsd !== undefined ? `model "${model}" has no price` : null,
    });
    f.push(control('m', { subtype: 'set_model', model: 'unpriced' }));
    await tick();
    f.push(user('one'));
    f.end();
    await done;
    expect(engine.turns.map((t) => t.options?.model)).toEqual([OPTIONS.model]);
    const response = out.find((m) => (m as { type: string }).type === 'control_response') as {
      response: { subtype: string; error?: string };
    };
    expect(response.response).toMatchObject({ subtype: 'error' });
    expect(response.response.error).toContain('set_model refused: model "unpriced" has no price');
  });

  test('parseStreamInputLine: image and document blocks make the prompt its blocks, in order; malformed ones are skipped', () => {
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' } };
    const doc = { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } };
    const line = parseStreamInputLine(
      JSON.stringify(
        user([{ type: 'text', text: 'What is this?' }, image, doc, { type: 'image', source: { type: 'base64' } }]),
      ),
    );
    expect(line).toEqual({
      kind: 'user',
      text: 'What is this?',
      blocks: [{ type: 'text', text: 'What is this?' }, image, doc],
      skippedBlocks: ['image'],
    });
    expect(parseStreamInputLine(JSON.stringify(user([image])))).toEqual({
      kind: 'user',
      text: '',
      blocks: [image],
      skippedBlocks: [],
    });
  });

  test('runStreamJsonInput: a message of an image alone is a turn whose prompt is the blocks', async () => {
    const engine = fakeEngine();
    engine.gate.open();
    const f = feed();
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' } };
    const done = runStreamJsonInput(f.lines, {
      engine,
      options: OPTIONS,
      write: () => undefined,
      warn: () => undefined,
    });
    f.push(user([image]));
    f.end();
    await done;
    expect(engine.turns.map((t) => t.prompt)).toEqual([[image]]);
  });

  test('runStreamJsonInput: empty messages are warned about and skipped, blank lines skipped', async () => {
    const engine = fakeEngine();
    engine.gate.open();
    const warnings: string[] = [];
    const f = feed();
    const done = runStreamJsonInput(f.lines, {
      engine,
      options: OPTIONS,
      write: () => undefined,
      warn: (l) => warnings.push(l),
    });
    f.push(user(''));
    f.push('');
    f.end();
    expect(await done).toBeUndefined();
    expect(engine.turns).toHaveLength(0);
    expect(warnings).toEqual(['agent-runner: ignoring a user message with no text']);
  });

  test('runStreamJsonInput: a turn that throws ends the session with that error', async () => {
    const engine: StreamJsonEngine = {
      async *submitMessage() {
        throw new Error('server gone');
      },
      interrupt: () => Promise.resolve(),
    };
    const f = feed();
    const done = runStreamJsonInput(f.lines, {
      engine,
      options: OPTIONS,
      write: () => undefined,
      warn: () => undefined,
    });
    f.push(user('a'));
    f.push(user('b'));
    f.end();
    await expect(done).rejects.toThrow('server gone');
  });

  test('initializeCatalog: skills, then commands, each description marked with its scope, then the built-in ones', () => {
    const cmd = (kind: 'command' | 'skill', name: string, scope: 'user' | 'project' | 'plugin', extra = {}) => ({
      kind,
      name,
      description: `about ${name}`,
      argumentHint: '',
      allowedTools: [],
      disableModelInvocation: false,
      body: '',
      path: `/x/${name}`,
      scope,
      ...extra,
    });
    const c = initializeCatalog({
      v: 1,
      commands: [
        cmd('skill', 'user-skill', 'user'),
        cmd('command', 'fix-ci', 'project', { argumentHint: '<file>' }),
        cmd('command', 'demo:hello', 'plugin', { plugin: 'demo' }),
      ],
      agents: [
        {
          name: 'demo:helper',
          description: 'Helps',
          prompt: 'p',
          path: '/x',
          scope: 'plugin',
          plugin: 'demo',
          model: 'haiku',
        },
      ],
      plugins: [],
    });
    expect(c.commands.map((x) => [x.name, x.description, x.argumentHint])).toEqual([
      ['user-skill', 'about user-skill (user)', ''],
      ['fix-ci', 'about fix-ci (project)', '<file>'],
      ['demo:hello', 'about demo:hello (plugin demo)', ''],
      ['clear', expect.any(String), ''],
      ['compact', expect.any(String), '<optional custom summarization instructions>'],
    ]);
    expect(c.agents).toEqual([{ name: 'demo:helper', description: 'Helps', model: 'haiku' }]);
  });
});
