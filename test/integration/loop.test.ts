/**
 * The rest of the seeds' query loop, on a real dev server with the real SDK against the local
 * model server: structured output, max_tokens recovery, the fallback model, Bash's working
 * directory, large results by reference, read-file reminders, compaction and /compact, /clear.
 */
import type { ParsedRequest, StepSpec } from '../../src/fake-model';
import { firstUserText, toolResultBlocks, toolResultText } from '../../src/fake-model/request';
import type { SDKMessage, SDKResultMessage } from '../../src/common/sdk-messages';
import { COMPACT_INSTRUCTION } from '../../src/activities/model/compact';
import { makeRepo, startRunnerEnv } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';

jest.setTimeout(120_000);

type Script = (req: ParsedRequest, step: number) => StepSpec;
const scripts = new Map<string, Script>();
const requests = new Map<string, ParsedRequest[]>();
let env: RunnerEnv;

beforeAll(async () => {
  env = await startRunnerEnv({
    responder: (req, ctx) => {
      const text = firstUserText(req);
      if (text.startsWith(COMPACT_INSTRUCTION))
        return { content: [{ text: `SUMMARY of [case:${/\[case:([\w-]+)\]/.exec(text)?.[1]}]` }] };
      const name = /\[case:([\w-]+)\]/.exec(text)?.[1] ?? '';
      const script = scripts.get(name);
      if (!script) throw new Error(`no script for ${name}`);
      requests.set(name, [...(requests.get(name) ?? []), JSON.parse(JSON.stringify(req)) as ParsedRequest]);
      return script(req, ctx.step);
    },
  });
});
afterAll(async () => env?.close());

const schema = {
  type: 'object',
  properties: { name: { type: 'string' }, count: { type: 'integer' } },
  required: ['name', 'count'],
  additionalProperties: false,
};
const text = (t: string): StepSpec => ({ content: [{ text: t }] });
const call = (name: string, input: Record<string, unknown>): StepSpec => ({ content: [{ tool_use: { name, input } }] });
const so = (input: Record<string, unknown>): StepSpec => call('StructuredOutput', input);
const lastResult = (req: ParsedRequest): string => {
  const blocks = toolResultBlocks(req);
  const last = blocks[blocks.length - 1];
  return last ? toolResultText(last) : '';
};

/** Runs one turn of case `name` with `steps[i]` answering the request with i assistant messages. */
async function runCase(
  name: string,
  steps: StepSpec[] | Script,
  opts: { files?: Record<string, string>; submit?: Parameters<RunnerEnv['runTurn']>[2]; cwd?: string } = {},
): Promise<{ messages: SDKMessage[]; result: SDKResultMessage; cwd: string; requests: ParsedRequest[] }> {
  scripts.set(
    name,
    typeof steps === 'function'
      ? steps
      : (_req, step) => {
          const s = steps[step];
          if (!s) throw new Error(`case ${name} has no step ${step}`);
          return s;
        },
  );
  const cwd = opts.cwd ?? makeRepo(opts.files ?? { 'a.txt': 'one\ntwo\n' });
  const engine = env.engine({ cwd });
  const { messages, result } = await env.runTurn(engine, `[case:${name}] Do the task.`, opts.submit);
  await engine.end();
  return { messages, result, cwd, requests: requests.get(name) ?? [] };
}

describe('structured output', () => {
  test('structured output: a valid first call ends the turn with structured_output and its JSON as result', async () => {
    const { result, requests: reqs } = await runCase('so-valid', [so({ name: 'x', count: 3 })], {
      submit: { jsonSchema: schema },
    });
    expect(result).toMatchObject({
      subtype: 'success',
      is_error: false,
      structured_output: { name: 'x', count: 3 },
      result: '{"name":"x","count":3}',
      stop_reason: 'tool_use',
      num_turns: 1,
    });
    const tool = reqs[0]?.tools?.find((t) => t.name === 'StructuredOutput');
    expect(tool?.['input_schema']).toEqual(schema);
  });

  test('structured output: invalid calls get the violations; the retries count per turn and run out at 5', async () => {
    const bad = so({ name: 5 });
    const r = await runCase(
      'so-retry',
      [bad, so({ name: 'x', count: 'three', extra: true }), so({ name: 'x', count: 3 })],
      {
        submit: { jsonSchema: schema },
      },
    );
    expect(r.result).toMatchObject({ subtype: 'success', structured_output: { name: 'x', count: 3 } });
    expect(lastResult(r.requests[1] as ParsedRequest)).toBe(
      "Output does not match required schema: root: must have required property 'count', /name: must be string",
    );
    expect(lastResult(r.requests[2] as ParsedRequest)).toBe(
      "Output does not match required schema: root: must NOT have additional properties ('extra' is not allowed), /count: must be integer",
    );

    const ex = await runCase(
      'so-exhausted',
      Array.from({ length: 8 }, () => bad),
      { submit: { jsonSchema: schema } },
    );
    expect(ex.result).toMatchObject({
      subtype: 'error_max_structured_output_retries',
      is_error: true,
      num_turns: 5,
      terminal_reason: 'structured_output_retry_exhausted',
      errors: [
        "Failed to provide valid structured output after 5 attempts \u2014 last StructuredOutput error: Output does not match required schema: root: must have required property 'count', /name: must be string",
      ],
    });
  });

  test('structured output: a text answer is nudged to call the tool, and never ends in success without it', async () => {
    const nudged = await runCase('so-text', [text('x is 3'), so({ name: 'x', count: 3 })], {
      submit: { jsonSchema: schema },
    });
    expect(nudged.result).toMatchObject({ subtype: 'success', structured_output: { name: 'x', count: 3 } });
    const nudge = nudged.messages.find((m) => m.type === 'user' && m.isSynthetic);
    expect(JSON.stringify(nudge)).toContain('[structured-output-enforce] You MUST call the StructuredOutput tool');

    const never = await runCase(
      'so-never',
      Array.from({ length: 6 }, () => text('just text')),
      {
        submit: { jsonSchema: schema, maxStructuredOutputRetries: 3 },
      },
    );
    expect(never.result).toMatchObject({
      subtype: 'error_max_structured_output_retries',
      num_turns: 3,
      errors: [
        'Failed to provide valid structured output after 3 attempts \u2014 last StructuredOutput error: the model answered with text instead of calling StructuredOutput',
      ],
    });
    expect(never.result.structured_output).toBeUndefined();
  });

  test('structured output: attempts count per turn, not per session (claude-agent-sdk-typescript#77)', async () => {
    let turn = 0;
    scripts.set('so-session', (req) => {
      const second = JSON.stringify(req.messages).includes('second turn');
      const failures = req.messages.filter((m) => JSON.stringify(m).includes('Output does not match')).length;
      if (!second) turn = 1;
      else turn = 2;
      // Each turn: 4 failed calls, then a valid one.
      const thisTurn = second ? failures - 4 : failures;
      return thisTurn < 4 ? so({ name: 1 }) : so({ name: `turn ${turn}`, count: 1 });
    });
    const engine = env.engine({ cwd: makeRepo({}) });
    const first = await env.runTurn(engine, '[case:so-session] first turn', { jsonSchema: schema });
    const second = await env.runTurn(engine, 'second turn', { jsonSchema: schema });
    await engine.end();
    expect(first.result).toMatchObject({ subtype: 'success', structured_output: { name: 'turn 1' } });
    expect(second.result).toMatchObject({ subtype: 'success', structured_output: { name: 'turn 2' } });
  });
});

describe('recovery in the loop', () => {
  test('max_tokens: a cut answer is resumed (Claude Code words), up to 3 times in a row', async () => {
    const cut = (t: string): StepSpec => ({ content: [{ text: t }], stop_reason: 'max_tokens' });
    const r = await runCase('cut-once', [cut('Part one of a long'), text('answer, finished.')]);
    expect(r.result).toMatchObject({ subtype: 'success', result: 'answer, finished.', num_turns: 2 });
    expect(JSON.stringify(r.requests[1]?.messages.at(-1))).toContain(
      'Output token limit hit. Resume directly \u2014 no apology, no recap of what you were doing.',
    );
    const always = await runCase('cut-always', [cut('a'), cut('b'), cut('c'), cut('d'), text('e')]);
    expect(always.result).toMatchObject({
      subtype: 'error_during_execution',
      num_turns: 4,
      terminal_reason: 'api_error',
    });
    expect(always.result.errors?.[1]).toBe("API Error: Claude's response exceeded the 1024 output token maximum.");
  });

  test('--fallback-model: repeated overloaded answers switch model; the stream says so; modelUsage has both', async () => {
    const r = await runCase(
      'fallback',
      [
        call('Bash', { command: 'echo one' }),
        { errors: [{ status: 529 }, { status: 529 }, { status: 529 }], content: [{ text: 'done by the fallback' }] },
      ],
      { submit: { fallbackModel: 'claude-haiku-4-5' } },
    );
    expect(r.result).toMatchObject({ subtype: 'success', result: 'done by the fallback' });
    const notice = r.messages.find((m) => m.type === 'system' && m.subtype === 'model_fallback');
    expect(notice).toMatchObject({
      trigger: 'overloaded',
      original_model: 'claude-sonnet-5-5',
      fallback_model: 'claude-haiku-4-5',
      content: 'Switched to claude-haiku-4-5 due to high demand for claude-sonnet-5-5',
    });
    expect(Object.keys(r.result.modelUsage).sort()).toEqual(['claude-haiku-4-5', 'claude-sonnet-5-5']);
    // The first step, its three overloaded attempts, then the same step on the fallback model.
    expect(r.requests.map((q) => q.model)).toEqual([
      'claude-sonnet-5-5',
      'claude-sonnet-5-5',
      'claude-sonnet-5-5',
      'claude-sonnet-5-5',
      'claude-haiku-4-5',
    ]);
  });

  test('Bash: cd persists across calls, and leaving the working directory resets the shell', async () => {
    const r = await runCase(
      'cd',
      [
        call('Bash', { command: 'cd sub && pwd' }),
        call('Bash', { command: 'pwd' }),
        call('Bash', { command: 'cd / && pwd' }),
        call('Bash', { command: 'pwd' }),
        text('done'),
      ],
      { files: { 'sub/f.txt': 'x' } },
    );
    const outs = r.requests.slice(1).map((q) => lastResult(q));
    expect(outs).toEqual([`${r.cwd}/sub`, `${r.cwd}/sub`, `/\nShell cwd was reset to ${r.cwd}`, r.cwd]);
  });

  test('large results: the model gets a preview and a path it can Read; the store keeps the whole output', async () => {
    const r = await runCase('large', (req, step) => {
      if (step === 0) return call('Bash', { command: 'seq 1 20000' });
      if (step === 1) {
        const path = /Full output saved to: (\S+)/.exec(lastResult(req))?.[1] ?? 'missing';
        return call('Read', { file_path: path, offset: 19999, limit: 2 });
      }
      return text('done');
    });
    const preview = lastResult(r.requests[1] as ParsedRequest);
    expect(preview).toMatch(
      /^<persisted-output>\nOutput too large \(106\.3KB\)\. Full output saved to: \S+\n\nPreview \(first 2KB\):\n1\n2\n/,
    );
    expect(lastResult(r.requests[2] as ParsedRequest)).toBe('19999\t19999\n20000\t20000');
  });

  test('read-file state: a file the model read that changed on disk gets a <system-reminder> before the next call', async () => {
    const r = await runCase('reminder', (req, step) => {
      if (step === 0) return call('Read', { file_path: '{{cwd}}/a.txt' });
      if (step === 1) return call('Bash', { command: 'printf "one\\nTWO\\n" > a.txt' });
      return text('seen');
    });
    const last = JSON.stringify(r.requests[2]?.messages.at(-1));
    expect(last).toContain(`Note: ${r.cwd}/a.txt was modified since you last read it`);
    expect(last).toContain('     2\\tTWO');
    expect(
      r.messages.some((m) => m.type === 'user' && m.isSynthetic && JSON.stringify(m).includes('system-reminder')),
    ).toBe(true);
    expect(r.result.subtype).toBe('success');
  });
});

describe('compaction', () => {
  test('compaction: proactive past the threshold; boundary and summary streamed; recent messages kept verbatim', async () => {
    let calls = 0;
    const r = await runCase(
      'auto-compact',
      () => {
        calls++;
        if (calls > 6) return text('finished');
        // Odd calls report 9,000 tokens of a 10,000-token window (past the 50% threshold: the next
        // call is preceded by a compaction), even ones 1,000 (what a compaction leaves).
        const justCompacted = calls % 2 === 0;
        return {
          content: [{ tool_use: { name: 'Bash', input: { command: `echo step ${calls}` } } }],
          usage: {
            input_tokens: justCompacted ? 1000 : 9000,
            cache_read_input_tokens: 0,
            cache_creation_input_tokens: 0,
          },
        };
      },
      { submit: { compaction: { autoCompactRatio: 0.5, contextWindowTokens: 10_000, preserveTokens: 2_000 } } },
    );
    expect(r.result).toMatchObject({ subtype: 'success', result: 'finished', num_turns: 7 });
    const boundaries = r.messages.filter((m) => m.type === 'system' && m.subtype === 'compact_boundary');
    expect(boundaries).toHaveLength(3); // before calls 2, 4 and 6: each time the context is past the threshold
    expect(boundaries[0]).toMatchObject({ compact_metadata: { trigger: 'auto' } });
    // pre_tokens: the context of the last call (its input, cache and output tokens).
    expect((boundaries[0] as { compact_metadata: { pre_tokens: number } }).compact_metadata.pre_tokens).toBeGreaterThan(
      9000,
    );
    // The call after a compaction starts with the summary (which carries the session's context:
    // the environment follows it as a system message), then the last step verbatim.
    const after = r.requests[1] as ParsedRequest;
    expect(JSON.stringify(after.messages[0])).toContain('SUMMARY of [case:auto-compact]');
    expect(after.messages[1]?.role).toBe('system');
    expect(JSON.stringify(after.messages[1])).toContain('Primary working directory');
    expect(after.messages[2]?.role).toBe('assistant');
    expect(JSON.stringify(after.messages[2])).toContain('echo step 1');
  });

  test('compaction: one that leaves the context past the threshold (what it keeps is too large) is not repeated every step', async () => {
    let calls = 0;
    const r = await runCase(
      'no-repeat',
      () => {
        calls++;
        if (calls > 5) return text('finished');
        // Every call, also right after the compaction, reports 9,000 tokens of a 10,000-token window.
        return {
          content: [{ tool_use: { name: 'Bash', input: { command: `echo step ${calls}` } } }],
          usage: { input_tokens: 9000 },
        };
      },
      { submit: { compaction: { autoCompactRatio: 0.5, contextWindowTokens: 10_000, preserveTokens: 2_000 } } },
    );
    expect(r.result).toMatchObject({ subtype: 'success', result: 'finished', num_turns: 6 });
    const boundaries = r.messages.filter((m) => m.type === 'system' && m.subtype === 'compact_boundary');
    expect(boundaries).toHaveLength(1);
  });

  test('/compact with instructions summarizes now (no other model call); /clear starts a fresh conversation', async () => {
    scripts.set('cmd', (req) => text(`answer with ${req.messages.length} messages`));
    const engine = env.engine({ cwd: makeRepo({}) });
    await env.runTurn(engine, '[case:cmd] hello');
    const compacted = await env.runTurn(engine, '/compact keep the greetings');
    expect(compacted.result).toMatchObject({ subtype: 'success', num_turns: 0, result: '' });
    expect(compacted.messages.map((m) => (m.type === 'system' ? m.subtype : m.type))).toEqual([
      'init',
      'compact_boundary',
      'user',
      'result',
    ]);
    expect(compacted.messages[1]).toMatchObject({ compact_metadata: { trigger: 'manual' } });
    const summaryCall = env.fake.requests().filter((q) => q.script === 'responder').length;
    expect(summaryCall).toBeGreaterThan(0);
    const next = await env.runTurn(engine, 'go on');
    // The summary, the environment (the session context it carries), the answer kept verbatim, the prompt.
    expect(next.result.result).toBe('answer with 4 messages');
    const cleared = await env.runTurn(engine, '/clear');
    expect(cleared.result).toMatchObject({ subtype: 'success', num_turns: 0 });
    const fresh = await env.runTurn(engine, '[case:cmd] fresh start');
    // A fresh chain that starts with the session context again: the environment, then the prompt.
    expect(fresh.result.result).toBe('answer with 2 messages');
    await engine.end();
  });
});

describe('microcompact', () => {
  const big = { 'big.txt': `${'a line of the file that the model reads again and again\n'.repeat(500)}` };
  const reads = (n: number): StepSpec[] => [
    ...Array.from({ length: n }, () => call('Read', { file_path: 'big.txt' })),
    text('finished'),
  ];

  test('microcompact: repeated Reads of one file are cleared in one batch, streamed, recorded and counted', async () => {
    const r = await runCase('microcompact-reads', reads(6), {
      files: big,
      // triggerFill 0: a batch at any context size (the gate is the next test's).
      submit: { compaction: { microcompact: { minFreedTokens: 20_000, triggerFill: 0 } } },
    });
    expect(r.result).toMatchObject({ subtype: 'success', result: 'finished' });
    const mc = r.messages.filter((m) => m.type === 'system' && m.subtype === 'microcompact_boundary');
    expect(mc).toHaveLength(1);
    expect(mc[0]).toMatchObject({ microcompact_metadata: { trigger: 'auto', cleared_tool_results: 3 } });
    // Each result is ~8,000 tokens: before the fifth call three are superseded (24,000 tokens, past
    // the batch of 20,000 asked for); before the fourth, two (too few); after the batch, at most two more.
    const fourth = toolResultBlocks(r.requests[3] as ParsedRequest).map((b) => toolResultText(b));
    expect(fourth.every((t) => t.includes('a line of the file'))).toBe(true);
    const fifth = toolResultBlocks(r.requests[4] as ParsedRequest).map((b) => toolResultText(b));
    expect(fifth.slice(0, 3)).toEqual(Array(3).fill('[Old tool result content cleared]'));
    expect(fifth[3]).toContain('a line of the file');
    // Later calls send the same view (the recorded line), and the result has the totals.
    const last = toolResultBlocks(r.requests[6] as ParsedRequest).map((b) => toolResultText(b));
    expect(last.slice(0, 3)).toEqual(fifth.slice(0, 3));
    expect(last.slice(3).every((t) => t.includes('a line of the file'))).toBe(true);
    expect(r.result.context_stages?.microcompact).toMatchObject({ runs: 1, cleared_tool_results: 3 });
    expect(r.result.context_stages?.microcompact?.freed_tokens).toBeGreaterThan(20_000);
  });

  test('microcompact: no batch until the context reaches triggerFill of the auto-compaction threshold, then one that keeps it from compacting', async () => {
    const cleared = (req: ParsedRequest): boolean =>
      toolResultBlocks(req).some((b) => toolResultText(b) === '[Old tool result content cleared]');
    const r = await runCase('microcompact-trigger', reads(10), {
      files: big,
      // Threshold 0.8 × 100,000 = 80,000 tokens; batches from 90% of it (72,000), each result ~8,000.
      submit: {
        compaction: {
          autoCompactRatio: 0.8,
          contextWindowTokens: 100_000,
          microcompact: { minFreedTokens: 20_000, triggerFill: 0.9 },
        },
      },
    });
    expect(r.result).toMatchObject({ subtype: 'success', result: 'finished' });
    const first = r.requests.findIndex(cleared);
    // Where a batch at any size came (the fifth call, the test above), the view is still whole.
    expect(first).toBeGreaterThan(4);
    expect(r.requests.slice(0, first).some(cleared)).toBe(false);
    // The call that cleared sent at least 72,000 tokens' worth before clearing: the one before it
    // had at least 64,000 (8 results more than the first call).
    expect(JSON.stringify((r.requests[first - 1] as ParsedRequest).messages).length / 4).toBeGreaterThan(56_000);
    expect(r.messages.filter((m) => m.type === 'system' && m.subtype === 'microcompact_boundary')).toHaveLength(1);
    expect(r.messages.some((m) => m.type === 'system' && m.subtype === 'compact_boundary')).toBe(false);
  });

  test('microcompact: compaction.microcompact.enabled false sends every result whole', async () => {
    const r = await runCase('microcompact-off', reads(6), {
      files: big,
      submit: { compaction: { microcompact: { enabled: false } } },
    });
    expect(r.result).toMatchObject({ subtype: 'success', result: 'finished' });
    expect(r.messages.some((m) => m.type === 'system' && m.subtype === 'microcompact_boundary')).toBe(false);
    const last = r.requests[r.requests.length - 1] as ParsedRequest;
    expect(
      toolResultBlocks(last)
        .map((b) => toolResultText(b))
        .every((t) => t.includes('a line of the file')),
    ).toBe(true);
    expect(r.result.context_stages).toBeUndefined();
  });
});

describe('tool-result budget', () => {
  const files = {
    'f1.txt': `${'first file line of output\n'.repeat(600)}`,
    'f2.txt': `${'second file line\n'.repeat(700)}`,
    'f3.txt': `${'third\n'.repeat(1500)}`,
  };
  const steps: StepSpec[] = [
    {
      content: ['f1.txt', 'f2.txt', 'f3.txt'].map((f) => ({
        tool_use: { name: 'Bash', input: { command: `cat ${f}` } },
      })),
    },
    call('Bash', { command: 'echo done' }),
    text('finished'),
  ];

  test('tool-result budget: an over-budget message sends its largest results by reference, streamed, recorded and counted', async () => {
    const r = await runCase('budget-parallel', steps, {
      files,
      submit: { compaction: { toolResultBudget: { perMessageChars: 12_000 } } },
    });
    expect(r.result).toMatchObject({ subtype: 'success', result: 'finished' });
    const lines = r.messages.filter((m) => m.type === 'system' && m.subtype === 'content_replacement');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ content_replacement_metadata: { trigger: 'auto', replaced_tool_results: 2 } });
    // 15,600 + 11,900 + 9,000 characters: the two largest go by reference, the smallest fits.
    const second = toolResultBlocks(r.requests[1] as ParsedRequest).map((b) => toolResultText(b));
    expect(second[0]).toMatch(/^<persisted-output>\nOutput too large \(15\.2KB\)\. Full output saved to: /);
    expect(second[1]).toMatch(/^<persisted-output>\nOutput too large \(11\.6KB\)/);
    expect(second[2]).toContain('third\nthird');
    // The next call sends the same bytes (the recorded line), the later message is within the budget.
    const third = toolResultBlocks(r.requests[2] as ParsedRequest).map((b) => toolResultText(b));
    expect(third.slice(0, 3)).toEqual(second);
    expect(third[3]).toContain('done');
    expect(r.result.context_stages?.tool_result_budget).toMatchObject({ runs: 1, replaced_tool_results: 2 });
  });

  test('tool-result budget: compaction.toolResultBudget.enabled false sends every result whole', async () => {
    const r = await runCase('budget-off', steps, {
      files,
      submit: { compaction: { toolResultBudget: { enabled: false, perMessageChars: 12_000 } } },
    });
    expect(r.messages.some((m) => m.type === 'system' && m.subtype === 'content_replacement')).toBe(false);
    const second = toolResultBlocks(r.requests[1] as ParsedRequest).map((b) => toolResultText(b));
    expect(second.some((t) => t.startsWith('<persisted-output>'))).toBe(false);
    expect(r.result.context_stages).toBeUndefined();
  });
});

describe('snip', () => {
  const steps: StepSpec[] = [
    call('Read', { file_path: 'missing.txt' }),
    ...Array.from({ length: 5 }, (_, i) => call('Bash', { command: `echo step ${i}` })),
    call('Bash', { command: 'echo last' }),
    text('finished'),
  ];
  const hasMissingRead = (req: ParsedRequest): boolean =>
    req.messages.some(
      (m) =>
        Array.isArray(m.content) &&
        m.content.some((b) => b.type === 'tool_use' && JSON.stringify(b.input).includes('missing.txt')),
    );

  test('snip: a failed Read older than the 5 most recent rounds is left out of the view, streamed, recorded and counted', async () => {
    const r = await runCase('snip-failed', steps, {
      // triggerFill 0: snips at any context size (the gate: microcompact's test).
      submit: { compaction: { snip: { minFreedTokens: 1 }, microcompact: { triggerFill: 0 } } },
    });
    expect(r.result).toMatchObject({ subtype: 'success', result: 'finished' });
    const lines = r.messages.filter((m) => m.type === 'system' && m.subtype === 'snip_boundary');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ snip_metadata: { trigger: 'auto', snipped_rounds: 1 } });
    // Before the sixth call the failed Read is the one round older than the 5 most recent.
    expect(hasMissingRead(r.requests[5] as ParsedRequest)).toBe(true);
    expect(hasMissingRead(r.requests[6] as ParsedRequest)).toBe(false);
    expect(hasMissingRead(r.requests[7] as ParsedRequest)).toBe(false);
    expect(r.result.context_stages?.snip).toMatchObject({ runs: 1, snipped_rounds: 1 });
  });

  test('snip: compaction.snip.enabled false keeps every round', async () => {
    const r = await runCase('snip-off', steps, {
      submit: { compaction: { snip: { enabled: false, minFreedTokens: 1 } } },
    });
    expect(r.messages.some((m) => m.type === 'system' && m.subtype === 'snip_boundary')).toBe(false);
    expect(hasMissingRead(r.requests[7] as ParsedRequest)).toBe(true);
  });
});

describe('context collapse', () => {
  const big = { 'big.txt': `${'a line of the log that the model looked at once\n'.repeat(500)}` };
  // Ten large Bash outputs (~6,000 tokens each): microcompact's batch before the tenth call clears
  // the four older than the 5 most recent; of those, the 3 oldest rounds collapse into the fourth's
  // digest. Steps by call, not by the assistant messages sent (collapse leaves some out).
  const steps = (): Script => {
    let n = 0;
    return () => (n++ < 10 ? call('Bash', { command: `cat big.txt && echo ${n - 1}` }) : text('finished'));
  };
  const compaction = { microcompact: { minFreedTokens: 20_000, triggerFill: 0 } };
  const calls = (req: ParsedRequest): string[] =>
    req.messages.flatMap((m) =>
      Array.isArray(m.content)
        ? m.content.filter((b) => b.type === 'tool_use').map((b) => String((b.input as { command?: string }).command))
        : [],
    );
  const digests = (req: ParsedRequest): string[] =>
    req.messages.flatMap((m) =>
      m.role === 'user' && Array.isArray(m.content)
        ? m.content
            .filter((b) => b.type === 'text' && String(b.text).includes('collapsed here'))
            .map((b) => String(b.text))
        : [],
    );

  test('collapse: old rounds whose results were cleared leave the view with a digest, streamed, recorded and counted; later calls send the same bytes', async () => {
    const r = await runCase('collapse-runs', steps(), { files: big, submit: { compaction } });
    expect(r.result).toMatchObject({ subtype: 'success', result: 'finished' });
    expect(r.requests).toHaveLength(11);
    expect(calls(r.requests[8] as ParsedRequest)).toContain('cat big.txt && echo 0');
    const tenth = r.requests[9] as ParsedRequest;
    expect(calls(tenth).slice(0, 2)).toEqual(['cat big.txt && echo 3', 'cat big.txt && echo 4']);
    expect(digests(tenth)).toEqual([
      '<system-reminder>\nBefore the tool call above, you made 3 more tool calls, collapsed here (their results were cleared): Bash(cat big.txt && echo 0), Bash(cat big.txt && echo 1), Bash(cat big.txt && echo 2)\n</system-reminder>',
    ]);
    // The digest follows the kept round's (cleared) tool_result in its user message.
    const kept = tenth.messages.find((m) => m.role === 'user' && digests({ ...tenth, messages: [m] }).length > 0)!;
    expect((kept.content as Array<{ type: string }>).map((b) => b.type)).toEqual(['tool_result', 'text']);
    // The next call sends the same messages up to the tenth's last (which carried the cache breakpoint).
    const eleventh = r.requests[10] as ParsedRequest;
    const n = tenth.messages.length - 1;
    expect(JSON.stringify(eleventh.messages.slice(0, n))).toBe(JSON.stringify(tenth.messages.slice(0, n)));
    const lines = r.messages.filter((m) => m.type === 'system' && m.subtype === 'collapse_boundary');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ collapse_metadata: { trigger: 'auto', collapsed_rounds: 3 } });
    // Streamed after microcompact's line of the same call.
    const subtypes = r.messages.filter((m) => m.type === 'system').map((m) => (m as { subtype: string }).subtype);
    expect(subtypes.indexOf('collapse_boundary')).toBe(subtypes.indexOf('microcompact_boundary') + 1);
    expect(r.result.context_stages?.collapse).toMatchObject({ runs: 1, collapsed_rounds: 3 });
  });

  test('collapse: compaction.collapse.enabled false keeps every round', async () => {
    const r = await runCase('collapse-off', steps(), {
      files: big,
      submit: { compaction: { ...compaction, collapse: { enabled: false } } },
    });
    expect(r.messages.some((m) => m.type === 'system' && m.subtype === 'collapse_boundary')).toBe(false);
    expect(calls(r.requests[10] as ParsedRequest)).toContain('cat big.txt && echo 0');
    expect(r.result.context_stages?.collapse).toBeUndefined();
  });
});
