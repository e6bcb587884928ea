import { rerunNotice, shellQuote, withoutFlags } from '../../../../src/cli/commands/batch';
import type { BatchResult, TaskSource } from '../../../../src/client/batch';

const results = [
  { task_id: 'good', is_error: false },
  { task_id: 'bad', is_error: true },
] as unknown as BatchResult[];
const earlier = new Map<string, TaskSource>([
  ['good', 'finished-earlier'],
  ['bad', 'finished-earlier'],
]);

describe('batch re-run suggestions', () => {
  test('rerunNotice: the suggested commands repeat every flag of the original run, changing only the batch id or --retry-failed', () => {
    const argv = [
      '--config',
      'my conf.json',
      'batch',
      'tasks.jsonl',
      '--out',
      'r.jsonl',
      '--concurrency',
      '3',
      '--model',
      'opus',
    ];
    const lines = rerunNotice('b1', argv, 2, earlier, results, {});
    expect(lines).toContain(
      "  to run every task again as a new batch:  agent-runner --config 'my conf.json' batch tasks.jsonl --out r.jsonl --concurrency 3 --model opus --batch-id b1-2 (any new id)",
    );
    expect(lines).toContain(
      "  to run again only the 1 that failed:  agent-runner --config 'my conf.json' batch tasks.jsonl --out r.jsonl --concurrency 3 --model opus --retry-failed",
    );
  });

  test('rerunNotice: an explicit --batch-id is replaced in the new-batch command and kept in the retry command', () => {
    const lines = rerunNotice(
      'nightly',
      ['batch', 't.jsonl', '--batch-id', 'nightly', '--max-budget-usd', '5'],
      2,
      earlier,
      results,
      {
        batchId: 'nightly',
      },
    );
    expect(lines.join('\n')).toContain(
      'agent-runner batch t.jsonl --max-budget-usd 5 --batch-id nightly-2 (any new id)',
    );
    expect(lines.join('\n')).toContain(
      'agent-runner batch t.jsonl --batch-id nightly --max-budget-usd 5 --retry-failed',
    );
  });

  test('rerunNotice: a run that was already --retry-failed suggests no second retry and keeps no duplicate flag', () => {
    const lines = rerunNotice('b', ['batch', 't.jsonl', '--retry-failed', '--batch-id=b'], 2, earlier, results, {
      batchId: 'b',
      retryFailed: true,
    });
    expect(lines.some((l) => l.includes('that failed'))).toBe(false);
    expect(lines.join('\n')).toContain('agent-runner batch t.jsonl --batch-id b-2 (any new id)');
  });

  test('rerunNotice: nothing is suggested when every task ran in this run', () => {
    expect(rerunNotice('b', ['batch', 't.jsonl'], 2, new Map(), results, {})).toEqual([]);
  });

  test('withoutFlags: drops a flag, its separate value, and its --flag=value form', () => {
    expect(
      withoutFlags(['batch', 'f', '--batch-id', 'x', '--retry-failed', '--out', 'o'], ['--batch-id', '--retry-failed']),
    ).toEqual(['batch', 'f', '--out', 'o']);
    expect(withoutFlags(['batch', '--batch-id=x', 'f'], ['--batch-id'])).toEqual(['batch', 'f']);
  });

  test('shellQuote: safe words stay as they are; others are single-quoted, quotes included', () => {
    expect(shellQuote('tasks/a-1.jsonl')).toBe('tasks/a-1.jsonl');
    expect(shellQuote('my file')).toBe("'my file'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(shellQuote('$HOME')).toBe("'$HOME'");
    expect(shellQuote('')).toBe("''");
  });
});
