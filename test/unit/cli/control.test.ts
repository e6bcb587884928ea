import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kvTable, limitValue, usd } from '../../../src/cli/control';
import { formatPool } from '../../../src/cli/commands/pool';
import { formatLimits } from '../../../src/cli/commands/status';
import { main } from '../../../src/cli/main';
import { UsageError } from '../../../src/cli/turn-options';

/** Runs the CLI in-process with a temp data directory and no server configured; returns code and stderr. */
async function run(args: string[]): Promise<{ code: number; stderr: string; stdout: string }> {
  const saved = { ...process.env };
  process.env['AGENT_RUNNER_DATA_DIR'] = mkdtempSync(join(tmpdir(), 'dar-cli-'));
  delete process.env['TEMPORAL_ADDRESS'];
  let stderr = '';
  let stdout = '';
  const errSpy = jest.spyOn(process.stderr, 'write').mockImplementation((s) => {
    stderr += String(s);
    return true;
  });
  const outSpy = jest.spyOn(process.stdout, 'write').mockImplementation((s) => {
    stdout += String(s);
    return true;
  });
  try {
    const code = await main(['node', 'agent-runner', ...args]);
    return { code, stderr, stdout };
  } finally {
    errSpy.mockRestore();
    outSpy.mockRestore();
    process.env = saved;
  }
}

describe('control commands', () => {
  test('limitValue: numbers, "none" removes, bad values are usage errors', () => {
    expect(limitValue('--max-budget-usd', '2.5', false)).toBe(2.5);
    expect(limitValue('--max-budget-usd', 'none', false)).toBeNull();
    expect(limitValue('--max-turns', undefined, true)).toBeUndefined();
    expect(() => limitValue('--max-turns', '2.5', true)).toThrow(UsageError);
    expect(() => limitValue('--max-budget-usd', '-1', false)).toThrow('--max-budget-usd must be a positive number');
  });

  test('formatting: USD, limits and the pool table', () => {
    expect(usd(0.0123456)).toBe('$0.0123');
    expect(usd(1234.5)).toBe('$1234.50');
    expect(usd(null)).toBe('-');
    expect(formatLimits({ maxBudgetUsd: 1, maxTurns: 20 })).toBe('max budget $1.0000 · max turns 20 · task budget -');
    expect(
      kvTable([
        ['a', '1'],
        ['long key', '2'],
      ]),
    ).toBe('a         1\nlong key  2');
    const table = formatPool({
      poolId: 'nightly',
      limitUsd: 10,
      spentUsd: 2.5,
      members: 3,
      exhausted: false,
      exhaustedAt: null,
      reports: 40,
      runs: 1,
      signalsThisRun: 46,
    });
    expect(table).toContain('spent      $2.5000 (25%)');
    expect(table).toContain('remaining  $7.5000');
    expect(table).toContain('members    3 running turn(s)');
  });

  test('status/interrupt/limits/pool: with no server to reach, a clear error (exit 1) and no embedded server started', async () => {
    for (const args of [
      ['status', 'abc'],
      ['interrupt', 'abc'],
      ['limits', 'abc', '--max-budget-usd', '2'],
      ['pool', 'create', 'p1', '--max-budget-usd', '5', '--no-daemon'],
      ['pool', 'show', 'p1'],
    ]) {
      const r = await run(args);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        `agent-runner: ${args[0] === 'pool' ? `pool ${args[1]}` : args[0]} needs a running Temporal server`,
      );
      expect(r.stderr).toContain('agent-runner server');
      expect(r.stderr).toContain('temporal.address');
    }
  });

  test('limits and pool create: bad values are usage errors (exit 2) before connecting', async () => {
    expect((await run(['limits', 'abc', '--max-turns', '1.5'])).code).toBe(2);
    const r = await run(['pool', 'create', 'p1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('pool create needs --max-budget-usd');
  });

  test('-p --budget-pool: an invalid pool id is a usage error', async () => {
    const r = await run(['-p', 'hi', '--budget-pool', 'bad id!']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--budget-pool must be a pool id');
  });
});
