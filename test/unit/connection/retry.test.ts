import { retry, retryUntilDefined } from '../../../src/connection/retry';

/** A call that fails `failures` times (with errors named by attempt), then returns 'ok'. */
function flaky(failures: number): { fn: (attempt: number) => Promise<string>; calls: () => number } {
  let calls = 0;
  return {
    fn: async (attempt) => {
      calls++;
      if (attempt <= failures) throw new Error(`fail ${attempt}`);
      return 'ok';
    },
    calls: () => calls,
  };
}

describe('retry', () => {
  test('retry: a failing call is tried again with a delay that grows by the factor up to the cap', async () => {
    const f = flaky(4);
    const delays: number[] = [];
    const v = await retry(f.fn, { delayMs: 1, factor: 3, maxDelayMs: 10, onRetry: (_e, _a, d) => delays.push(d) });
    expect(v).toBe('ok');
    expect(f.calls()).toBe(5);
    expect(delays).toEqual([1, 3, 9, 10]);
  });

  test('retry: after the last attempt the last error is thrown', async () => {
    const f = flaky(10);
    await expect(retry(f.fn, { attempts: 3, delayMs: 0 })).rejects.toThrow('fail 3');
    expect(f.calls()).toBe(3);
  });

  test('retry: an error retryIf refuses is thrown at once', async () => {
    const f = flaky(10);
    await expect(retry(f.fn, { delayMs: 0, retryIf: (e) => (e as Error).message !== 'fail 2' })).rejects.toThrow(
      'fail 2',
    );
    expect(f.calls()).toBe(2);
  });

  test('retry: no attempt starts after the deadline, and no delay runs past it', async () => {
    const f = flaky(1000);
    const started = Date.now();
    await expect(retry(f.fn, { delayMs: 40, factor: 1, deadline: started + 100 })).rejects.toThrow(/fail/);
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(95);
    expect(took).toBeLessThan(1000);
    expect(f.calls()).toBeLessThanOrEqual(5);
  });

  test('retry: an aborted signal ends the retries with the last error', async () => {
    const abort = new AbortController();
    const f = flaky(1000);
    setTimeout(() => abort.abort(), 30);
    await expect(retry(f.fn, { delayMs: 5, factor: 1, signal: abort.signal })).rejects.toThrow(/fail/);
  });

  test('retry: an error thrown by onRetry ends the retries with it', async () => {
    const f = flaky(1000);
    await expect(
      retry(f.fn, {
        delayMs: 0,
        onRetry: (_e, attempt) => {
          if (attempt === 2) throw new Error('gave up');
        },
      }),
    ).rejects.toThrow('gave up');
    expect(f.calls()).toBe(2);
  });
});

describe('retryUntilDefined', () => {
  test('retryUntilDefined: reads again until a value is there', async () => {
    let n = 0;
    expect(await retryUntilDefined(async () => (++n >= 3 ? 'line' : undefined), { delayMs: 0 })).toBe('line');
    expect(n).toBe(3);
  });

  test('retryUntilDefined: undefined when the attempts run out; errors of the read propagate', async () => {
    let n = 0;
    expect(await retryUntilDefined(async () => (n++, undefined), { attempts: 4, delayMs: 0 })).toBeUndefined();
    expect(n).toBe(4);
    await expect(
      retryUntilDefined(
        async () => {
          throw new Error('store down');
        },
        { attempts: 4, delayMs: 0 },
      ),
    ).rejects.toThrow('store down');
  });
});
