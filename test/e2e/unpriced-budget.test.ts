import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli';

/**
 * A USD limit the runner cannot check is refused before anything runs: exit 2, naming the model
 * and where prices are configured. Nothing is started (no server address is needed: the check
 * comes first, so an unreachable address proves it).
 */
describe('CLI: a budget on a model without a price', () => {
  const env = {
    ...process.env,
    ANTHROPIC_API_KEY: 'test-key',
    TEMPORAL_ADDRESS: '127.0.0.1:1', // never contacted
    AGENT_RUNNER_DATA_DIR: mkdtempSync(join(tmpdir(), 'dar-unpriced-')),
  };
  const cases: Array<[string, string[]]> = [
    ['-p --max-budget-usd', ['-p', 'hello', '--max-budget-usd', '0.0001', '--model', 'claude-mystery-9']],
    ['-p --budget-pool', ['-p', 'hello', '--budget-pool', 'nightly', '--model', 'claude-mystery-9']],
  ];
  test.each(cases)('cli: %s with an unpriced model exits 2 before anything runs', async (_name, args) => {
    const run = await runCli(args, { env, timeoutMs: 60_000 });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('"claude-mystery-9" has no price');
    expect(run.stderr).toContain('prices:');
    expect(run.stderr).not.toMatch(/ECONNREFUSED|unreachable/i);
  });

  test('cli: batch --max-budget-usd with a task on an unpriced model exits 2, naming the task', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dar-unpriced-batch-'));
    const tasks = join(dir, 'tasks.jsonl');
    writeFileSync(
      tasks,
      `${JSON.stringify({ id: 'a', prompt: 'one' })}\n${JSON.stringify({ id: 'b', prompt: 'two', model: 'claude-mystery-9' })}\n`,
    );
    const run = await runCli(['batch', tasks, '--max-budget-usd', '5', '--cwd', dir], { env, timeoutMs: 60_000 });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('task "b" (line 2)');
    expect(run.stderr).toContain('"claude-mystery-9" has no price');
    expect(run.stderr).not.toContain('task "a"');
  });
});
