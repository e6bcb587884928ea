import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { billedUsage, repeatedCompletedCalls } from '../../src/fake-model';
import type { Config } from '../../src/config';
import type { StepSpec } from '../../src/fake-model';
import { makeRepo, startRunnerEnv } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';
import { expectIntactTranscript } from './helpers/fault-env';

/** `retry-after` of every HTTP fault, in seconds: Temporal waits that long instead of its 1 s backoff. */
const RA = 0.2;

describe('faults: the model server fails in bursts', () => {
  let env: RunnerEnv;
  afterEach(async () => env?.close());

  test('model faults: bursts of 429/529/500, cut streams, error events and malformed SSE are retried; the turn succeeds with no repeated call', async () => {
    const bursts: Array<NonNullable<StepSpec['errors']>> = [
      [
        { status: 429, retry_after: RA },
        { status: 429, retry_after: RA },
        { status: 429, retry_after: RA },
      ],
      [
        { status: 529, retry_after: RA },
        { status: 500, retry_after: RA },
        { status: 529, retry_after: RA },
        { status: 503, retry_after: RA },
      ],
      [{ cut_after_events: 2 }, { cut_after_events: 6 }],
      [{ malformed_sse: true }, { malformed_sse: true, after_events: 4 }, { sse_error: 'overloaded_error' }],
    ];
    env = await startRunnerEnv({
      scenario: {
        steps: [
          // Tool steps with faults before each answer; the Bash step appends to a file, so a
          // repeated tool run would show as a second line.
          {
            errors: bursts[0],
            content: [{ text: 'reading' }, { tool_use: { name: 'Read', input: { file_path: '{{cwd}}/a.txt' } } }],
          },
          {
            errors: bursts[1],
            expect: { lastToolResultContains: 'alpha' },
            content: [{ tool_use: { name: 'Bash', input: { command: 'echo ran >> runs.txt' } } }],
          },
          {
            errors: bursts[2],
            content: [
              { text: 'x'.repeat(300) },
              { tool_use: { name: 'Read', input: { file_path: '{{cwd}}/runs.txt' } } },
            ],
          },
          { errors: bursts[3], expect: { lastToolResultContains: 'ran' }, content: [{ text: 'all done' }] },
        ],
      },
    });
    const repo = makeRepo({ 'a.txt': 'alpha\n' });
    const engine = env.engine({ cwd: repo });
    const started = Date.now();
    const { result } = await env.runTurn(engine, 'go', {
      timeouts: { modelHeartbeatMs: 5000, toolHeartbeatMs: 5000, modelMaxAttempts: 8 },
    });
    const elapsed = Date.now() - started;
    expect(result).toMatchObject({ subtype: 'success', result: 'all done', num_turns: 4 });

    const log = env.fake.requests();
    bursts.forEach((burst, step) => {
      const attempts = log.filter((r) => r.step === step);
      expect(attempts.map((a) => a.outcome)).toHaveLength(burst.length + 1);
      expect(attempts.at(-1)?.outcome).toBe('completed');
    });
    expect(repeatedCompletedCalls(log)).toEqual([]);
    expect(readFileSync(join(repo, 'runs.txt'), 'utf8')).toBe('ran\n');
    const report = expectIntactTranscript(env.dataDir, engine.sessionId);
    // prompt, the session's context line, 3 × (tool call + result), the answer
    expect(report).toMatchObject({ toolUses: 3, toolResults: 3, chainLength: 9 });
    console.log(`model faults: ${log.length} requests (${log.length - 4} faulted), ${elapsed} ms`);
  });

  test('model faults: a burst longer than the retry budget ends the turn with api_error and the HTTP status, tools answered', async () => {
    env = await startRunnerEnv({
      scenario: {
        steps: [
          { content: [{ tool_use: { name: 'Read', input: { file_path: '{{cwd}}/a.txt' } } }] },
          {
            errors: [
              { status: 529, retry_after: RA },
              { status: 529, retry_after: RA },
              { status: 529, retry_after: RA },
            ],
            content: [{ text: 'never sent' }],
          },
        ],
      },
    });
    const engine = env.engine({ cwd: makeRepo({ 'a.txt': 'alpha\n' }) });
    const { result } = await env.runTurn(engine, 'go', {
      timeouts: { modelHeartbeatMs: 5000, toolHeartbeatMs: 5000, modelMaxAttempts: 3 },
    });
    expect(result).toMatchObject({
      subtype: 'error_during_execution',
      is_error: true,
      terminal_reason: 'api_error',
      api_error_status: 529,
      num_turns: 1,
    });
    expect(result.errors?.join('\n')).toContain('API Error 529');
    expect(env.fake.requests().filter((r) => r.step === 1)).toHaveLength(3);
    expect(expectIntactTranscript(env.dataDir, engine.sessionId)).toMatchObject({ toolUses: 1, toolResults: 1 });
  });
});

describe('faults: a response stream that goes quiet', () => {
  let env: RunnerEnv;
  afterEach(async () => env?.close());

  /** Workers whose streams may be quiet for 1 s at most (Claude Code's default is 300 s). */
  const quick = (c: Config): Config => ({ ...c, model: { ...c.model, streamIdleTimeoutMs: 1000 } });

  test('stream idle: a stream that sends nothing for the idle limit after message_start is given up and retried; the turn succeeds and the quiet attempt is billed', async () => {
    env = await startRunnerEnv({
      workerConfig: quick,
      // Attempt 1 sends message_start, then one event every 4 s; attempt 2 streams normally.
      responder: (_req, { attempt }) => ({
        ...(attempt === 1 ? { chunk_delay_ms: 4000 } : {}),
        content: [{ text: 'an answer that arrives after all' }],
      }),
    });
    const engine = env.engine({ cwd: makeRepo({}) });
    const started = Date.now();
    const { result } = await env.runTurn(engine, 'go', {
      timeouts: { modelHeartbeatMs: 5000, toolHeartbeatMs: 5000, modelMaxAttempts: 3 },
    });
    const elapsed = Date.now() - started;
    expect(result).toMatchObject({ subtype: 'success', result: 'an answer that arrives after all' });
    const log = env.fake.requests();
    expect(log.map((r) => [r.attempt, r.outcome])).toEqual([
      [1, 'aborted'],
      [2, 'completed'],
    ]);
    // The quiet attempt's message_start was billed: it is in the turn's usage.
    const quiet = log[0]?.billed;
    expect((quiet?.cache_creation_input_tokens ?? 0) + (quiet?.input_tokens ?? 0)).toBeGreaterThan(0);
    expect(result.usage).toMatchObject(billedUsage(log));
    expect(elapsed).toBeLessThan(15_000);
  });

  test('stream idle: when every attempt goes quiet the turn ends with "API Error: Stream idle timeout - partial response received", every attempt billed', async () => {
    env = await startRunnerEnv({
      workerConfig: quick,
      responder: () => ({ chunk_delay_ms: 4000, content: [{ text: 'never finished' }] }),
    });
    const engine = env.engine({ cwd: makeRepo({}) });
    const { result } = await env.runTurn(engine, 'go', {
      timeouts: { modelHeartbeatMs: 5000, toolHeartbeatMs: 5000, modelMaxAttempts: 2 },
    });
    expect(result).toMatchObject({ subtype: 'error_during_execution', is_error: true });
    expect((result as { errors?: string[] }).errors?.join('\n')).toMatch(
      /API Error: Stream idle timeout - partial response received \(no stream event for 1 s; .*\) \(ModelError\.StreamIdleTimeout\)/,
    );
    const log = env.fake.requests();
    expect(log.map((r) => r.outcome)).toEqual(['aborted', 'aborted']);
    expect(result.usage.cache_creation_input_tokens + result.usage.input_tokens).toBeGreaterThan(0);
    expect(result.usage).toMatchObject(billedUsage(log));
  });
});
