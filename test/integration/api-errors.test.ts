import { COMPACT_INSTRUCTION } from '../../src/activities/model/compact';
import { makeRepo, startRunnerEnv } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';

const answer = { content: [{ text: 'all good' }] };

describe('model API errors, classified and retried by Temporal', () => {
  let env: RunnerEnv;
  afterEach(async () => env?.close());

  async function run(steps: unknown[], extraScripts: unknown[] = []) {
    env = await startRunnerEnv({
      scenario: { scripts: [...extraScripts, { name: 'main', steps }] } as never,
    });
    const engine = env.engine({ cwd: makeRepo({}) });
    const started = Date.now();
    const out = await env.runTurn(engine, 'hello');
    return {
      ...out,
      elapsedMs: Date.now() - started,
      attempts: env.fake.requests().filter((r) => r.script === 'main'),
    };
  }

  test.each([
    ['429 rate limit (retry-after honoured)', { status: 429, retry_after: 2 }],
    ['429 rate limit with retry-after 0', { status: 429, retry_after: 0 }],
    ['529 overloaded', { status: 529 }],
    ['500 api error', { status: 500 }],
    ['a stream cut mid-message', { cut_after_events: 3 }],
    ['an error event inside a 200 stream', { sse_error: 'overloaded_error' }],
    ['malformed SSE', { malformed_sse: true }],
  ])('api errors: %s is retried and the turn succeeds', async (_name, fault) => {
    const { result, attempts, elapsedMs } = await run([{ ...answer, errors: [fault] }]);
    expect(result).toMatchObject({ subtype: 'success', result: 'all good' });
    expect(attempts.map((a) => a.outcome)).toHaveLength(2);
    expect(attempts[1]?.outcome).toBe('completed');
    if ('retry_after' in fault) expect(elapsedMs).toBeGreaterThanOrEqual(fault.retry_after * 1000);
  });

  test('api errors: x-should-retry true makes a 400 retried (as the SDK does), and the turn succeeds', async () => {
    const { result, attempts } = await run([{ ...answer, errors: [{ status: 400, should_retry: true }] }]);
    expect(result).toMatchObject({ subtype: 'success', result: 'all good' });
    expect(attempts.map((a) => a.outcome)).toEqual(['http_error', 'completed']);
  });

  test('api errors: x-should-retry false makes a 529 final: one attempt, error_during_execution', async () => {
    const { result, attempts } = await run([{ ...answer, errors: [{ status: 529, should_retry: false }] }]);
    expect(result).toMatchObject({ subtype: 'error_during_execution', is_error: true, api_error_status: 529 });
    expect(attempts).toHaveLength(1);
  });

  test.each([
    ['400 invalid request', { status: 400, message: 'messages: bad shape' }, 400],
    ['401 authentication', { status: 401 }, 401],
    ['403 permission', { status: 403 }, 403],
    ['404 not found', { status: 404 }, 404],
  ])('api errors: %s is not retried and ends with error_during_execution', async (_name, fault, status) => {
    const { result, attempts } = await run([{ ...answer, errors: [fault] }]);
    expect(result).toMatchObject({ subtype: 'error_during_execution', is_error: true, api_error_status: status });
    expect(result.errors?.[0]).toMatch(/^\[ede_diagnostic\] result_type=none/);
    expect(result.errors?.[1]).toContain(`API Error ${status}`);
    expect(attempts).toHaveLength(1);
  });

  test('api errors: 400 prompt too long compacts the context and retries once', async () => {
    const { messages, result } = await run(
      [{ ...answer, errors: [{ status: 400, message: 'prompt is too long: 250000 tokens > 200000 maximum' }] }],
      [
        {
          name: 'compact',
          match: { promptContains: COMPACT_INSTRUCTION },
          steps: [{ content: [{ text: 'The user said hello.' }] }],
        },
      ],
    );
    expect(result).toMatchObject({ subtype: 'success', result: 'all good' });
    expect(messages.some((m) => m.type === 'system' && m.subtype === 'compact_boundary')).toBe(true);
    expect(env.fake.requests().filter((r) => r.script === 'compact' && r.outcome === 'completed')).toHaveLength(1);
  });

  test('api errors: prompt too long again after compaction ends the turn with terminal_reason prompt_too_long', async () => {
    const tooLong = { status: 400, message: 'prompt is too long: 250000 tokens > 200000 maximum' };
    const { result } = await run(
      [{ ...answer, errors: [tooLong, tooLong] }],
      [
        {
          name: 'compact',
          match: { promptContains: COMPACT_INSTRUCTION },
          steps: [{ content: [{ text: 'summary' }] }],
        },
      ],
    );
    expect(result).toMatchObject({ subtype: 'error_during_execution', terminal_reason: 'prompt_too_long' });
  });
});
