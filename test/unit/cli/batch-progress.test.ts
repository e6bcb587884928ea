import { PassThrough } from 'node:stream';
import { syntheticResult } from '../../../src/client/batch';
import type { BatchResult } from '../../../src/client/batch';
import type { BatchTask } from '../../../src/client/batch-tasks';
import { BatchProgress, formatTaskLine, summaryTable } from '../../../src/cli/progress';

function task(id: string): BatchTask {
  return { id, line: 1, prompt: 'p', cwd: '/', options: {} };
}

function result(id: string, ok: boolean, cost: number): BatchResult {
  const base = syntheticResult(
    `session-${id}`,
    ok ? 'success' : 'error_max_turns',
    ok ? [] : ['Reached maximum number of turns (2)'],
  );
  return {
    ...base,
    is_error: !ok,
    num_turns: 2,
    duration_ms: 1500,
    total_cost_usd: cost,
    ...(ok ? { result: 'done', errors: undefined } : {}),
    task_id: id,
    batch_id: 'b',
  } as BatchResult;
}

function sink(): { out: { write(s: string): boolean; columns?: number }; text: () => string } {
  let buf = '';
  return {
    out: {
      write: (s: string) => {
        buf += s;
        return true;
      },
    },
    text: () => buf,
  };
}

describe('batch progress output', () => {
  test('batch progress: lines mode prints one line per finished task and periodic counts', async () => {
    const s = sink();
    const p = new BatchProgress(3, { mode: 'lines', out: s.out, intervalMs: 20 });
    p.onEvent({ type: 'task_running', task: task('a'), sessionId: 's', source: 'started' });
    p.onEvent({ type: 'task_running', task: task('b'), sessionId: 's', source: 'attached' });
    p.onEvent({
      type: 'task_done',
      task: task('a'),
      sessionId: 's',
      source: 'started',
      result: result('a', true, 0.5),
    });
    p.onEvent({
      type: 'task_done',
      task: task('b'),
      sessionId: 's',
      source: 'attached',
      result: result('b', false, 0.25),
    });
    await new Promise((r) => setTimeout(r, 60));
    p.stop();
    const text = s.text();
    expect(text).toContain('↻ b: re-attached to its running turn');
    expect(text).toContain('✓ a success · 2 turns · $0.5000 · 1.5 s');
    expect(text).toContain(
      '✗ b error_max_turns · 2 turns · $0.2500 · 1.5 s (re-attached) · Reached maximum number of turns (2)',
    );
    expect(text).toMatch(/progress: · 1 ok · 1 failed · 0 running · \$0\.7500/);
    expect(text).not.toContain('\x1b');
    expect(p.counts).toEqual({ total: 3, succeeded: 1, failed: 1, running: 0, costUsd: 0.75 });
  });

  test('batch progress: bar mode logs task lines above a cli-progress bar and stops cleanly', () => {
    const calls: string[] = [];
    const bar = {
      start: (total: number, value: number) => calls.push(`start ${value}/${total}`),
      update: (value: number) => calls.push(`update ${value}`),
      log: (line: string) => calls.push(`log ${line}`),
      stop: () => calls.push('stop'),
    };
    const s = sink();
    const p = new BatchProgress(1, { mode: 'bar', out: s.out, bar });
    p.onEvent({ type: 'task_done', task: task('a'), result: result('a', true, 0.5), source: 'started' } as never);
    p.stop();
    expect(calls[0]).toBe('start 0/1');
    expect(calls).toContain('update 1');
    expect(calls.some((c) => c.startsWith('log ✓ a success'))).toBe(true);
    expect(calls.at(-1)).toBe('stop');
  });

  test("batch progress: on a terminal, the last task's line is printed before the bar stops (cli-progress buffers logged lines until its next redraw)", () => {
    let written = '';
    const tty = new PassThrough() as PassThrough & { isTTY: boolean; columns: number };
    tty.isTTY = true;
    tty.columns = 100;
    tty.on('data', (c: Buffer) => {
      written += c.toString('utf8');
    });
    const p = new BatchProgress(2, { mode: 'bar', out: tty as unknown as NodeJS.WriteStream });
    p.onEvent({
      type: 'task_done',
      task: task('first'),
      result: result('first', true, 0.5),
      source: 'started',
    } as never);
    p.onEvent({
      type: 'task_done',
      task: task('last'),
      result: result('last', true, 0.25),
      source: 'started',
    } as never);
    p.stop();
    expect(written).toContain('✓ first success');
    expect(written).toContain('✓ last success · 2 turns · $0.2500');
    expect(written).toContain('2/2');
  });

  test('batch progress: the summary table lists every task, skipped lines and totals', () => {
    const table = summaryTable(
      [
        { task: task('first'), result: result('first', true, 0.01) },
        { task: task('second-task'), result: result('second-task', false, 0.02) },
        { task: task('third'), result: null },
      ],
      [{ line: 4, message: 'not valid JSON' }],
      2000,
    );
    const lines = table.split('\n');
    expect(lines[0]).toMatch(/^TASK\s+STATUS\s+TURNS\s+COST\s+TIME\s+SESSION$/);
    expect(lines[1]).toMatch(/^first\s+success\s+2\s+\$0\.0100\s+1\.5 s\s+session-first$/);
    expect(lines[2]).toMatch(/^second-task\s+error_max_turns/);
    expect(lines[3]).toMatch(/^third\s+unfinished/);
    expect(lines[4]).toBe('line 4: skipped: not valid JSON');
    expect(lines[5]).toBe(
      '3 tasks: 1 succeeded, 1 failed, 1 unfinished, 1 malformed line skipped · $0.0300 · 2.0 s · 1.00 tasks/s',
    );
    expect(formatTaskLine(task('x'), result('x', true, 0), 'finished-earlier')).toContain(
      '(finished earlier, not run again)',
    );
    expect(formatTaskLine(task('x'), result('x', true, 0), 'retried')).toContain('(retried)');
  });

  test('batch progress: with --batch-api the totals say how much the Batches API saved', () => {
    const batched: BatchResult = {
      ...result('cheap', true, 0.01),
      batch_api: { batched_calls: 4, fallbacks: 0, fallback_reasons: [], saved_usd: 0.01 },
    };
    const lines = summaryTable([{ task: task('cheap'), result: batched }], [], 1000).split('\n');
    expect(lines[2]).toBe(
      '1 tasks: 1 succeeded, 0 failed · $0.0100 ($0.0100 saved by the Batches API) · 1.0 s · 1.00 tasks/s',
    );
  });

  test('batch progress: a retried task costs every attempt, in its row, the totals and the counters', () => {
    const retried: BatchResult = {
      ...result('flaky', true, 0.01),
      earlier_attempts: [
        {
          session_id: 'session-flaky-0',
          subtype: 'error_during_execution',
          num_turns: 1,
          total_cost_usd: 0.02,
          total_cost_usd_known: true,
        },
      ],
    };
    const unknown: BatchResult = { ...result('lost', false, 0), total_cost_usd_known: false };
    const lines = summaryTable(
      [
        { task: task('flaky'), result: retried },
        { task: task('lost'), result: unknown },
      ],
      [],
      1000,
    ).split('\n');
    expect(lines[1]).toMatch(/^flaky\s+success\s+2\s+\$0\.0300\s/);
    expect(lines[2]).toMatch(/^lost\s+error_max_turns\s+2\s+\$0\.0000\+\s/);
    expect(lines[3]).toBe('2 tasks: 1 succeeded, 1 failed · $0.0300 (cost of 1 unknown) · 1.0 s · 2.00 tasks/s');
    const { out } = sink();
    const progress = new BatchProgress(1, { mode: 'none', out });
    progress.onEvent({ type: 'task_done', task: task('flaky'), sessionId: 's', source: 'retried', result: retried });
    expect(progress.counts.costUsd).toBeCloseTo(0.03, 10);
  });
});
