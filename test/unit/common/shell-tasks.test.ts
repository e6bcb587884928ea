import {
  BACKGROUND_DEFAULT_TIMEOUT_MS,
  BACKGROUND_MAX_TIMEOUT_MS,
  backgroundTimeoutMs,
  outputTrailer,
  shellStatus,
  shellTaskId,
} from '../../../src/common/shell-tasks';

describe('background shell decisions (2.1.328: default 10 min, at most 2 h)', () => {
  test('backgroundTimeoutMs: the input, else 600000; capped at 7200000; nonsense gives the default', () => {
    expect(BACKGROUND_DEFAULT_TIMEOUT_MS).toBe(600_000);
    expect(BACKGROUND_MAX_TIMEOUT_MS).toBe(7_200_000);
    expect(backgroundTimeoutMs(undefined)).toBe(600_000);
    expect(backgroundTimeoutMs(2000)).toBe(2000);
    expect(backgroundTimeoutMs(2000.7)).toBe(2000);
    expect(backgroundTimeoutMs(10_000_000)).toBe(7_200_000);
    expect(backgroundTimeoutMs(0)).toBe(600_000);
    expect(backgroundTimeoutMs(-5)).toBe(600_000);
    expect(backgroundTimeoutMs(Number.NaN)).toBe(600_000);
    expect(backgroundTimeoutMs(Number.POSITIVE_INFINITY)).toBe(600_000);
  });

  test("shellTaskId: 'b' and 8 base-36 characters, as Claude Code's; distinct bytes give distinct ids; too few bytes throw", () => {
    expect(shellTaskId(new Uint8Array(8))).toBe('b00000000');
    expect(shellTaskId(Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8]))).toMatch(/^b[0-9a-z]{8}$/);
    expect(shellTaskId(Uint8Array.from([255, 255, 255, 255, 255, 255, 255, 255]))).toMatch(/^b[0-9a-z]{8}$/);
    expect(shellTaskId(Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8]))).not.toBe(
      shellTaskId(Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 9])),
    );
    expect(() => shellTaskId(new Uint8Array(5))).toThrow(RangeError);
  });

  test('shellStatus: exit 0 completed, another exit failed, a lost run failed (never success), a kill killed', () => {
    expect(shellStatus({ kind: 'exited', exitCode: 0 })).toBe('completed');
    expect(shellStatus({ kind: 'exited', exitCode: 3 })).toBe('failed');
    expect(shellStatus({ kind: 'lost', reason: 'x' })).toBe('failed');
    expect(shellStatus({ kind: 'timeout' })).toBe('killed');
    expect(shellStatus({ kind: 'stopped' })).toBe('killed');
  });

  test("outputTrailer: 2.1.328's last line of the output file; none for a lost run", () => {
    expect(outputTrailer({ kind: 'exited', exitCode: 0 })).toBe('[exited with code 0]');
    expect(outputTrailer({ kind: 'exited', exitCode: 130 })).toBe('[exited with code 130]');
    expect(outputTrailer({ kind: 'timeout' })).toBe('[killed]');
    expect(outputTrailer({ kind: 'stopped' })).toBe('[killed]');
    expect(outputTrailer({ kind: 'lost', reason: 'x' })).toBeNull();
  });
});
