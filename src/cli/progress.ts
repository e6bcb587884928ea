import { MultiBar, Presets } from 'cli-progress';
import type { SingleBar } from 'cli-progress';
import type { BatchEvent, BatchResult, TaskSource } from '../client/batch';
import { taskCostKnown, taskCostUsd } from '../client/batch';
import type { BatchTask, TaskLineError } from '../client/batch-tasks';

/**
 * The progress-bar API the batch command draws with: the subset of `cli-progress`'s `SingleBar`
 * it uses; {@link TerminalProgressBar} is the `cli-progress` implementation.
 */
export interface ProgressBar {
  start(total: number, value: number, payload: Record<string, unknown>): void;
  update(value: number, payload: Record<string, unknown>): void;
  stop(): void;
}

/** A writable terminal line stream (stderr). */
export interface LineStream {
  write(s: string): unknown;
  columns?: number;
}

/**
 * The batch's bar on a terminal, drawn by `cli-progress` (one bar in a `MultiBar`, so that task
 * lines can be logged above it). `payload.text` is shown after the bar.
 */
export class TerminalProgressBar implements ProgressBar {
  private readonly multi: MultiBar;
  private bar: SingleBar | null = null;

  constructor(out: NodeJS.WriteStream) {
    this.multi = new MultiBar(
      {
        stream: out,
        format: '[{bar}] {value}/{total} {text}',
        barsize: 24,
        hideCursor: true,
        clearOnComplete: false,
        stopOnComplete: false,
        fps: 10,
      },
      Presets.shades_classic,
    );
  }

  start(total: number, value: number, payload: Record<string, unknown>): void {
    this.bar = this.multi.create(total, value, payload);
  }

  update(value: number, payload: Record<string, unknown>): void {
    this.bar?.update(value, payload);
  }

  /** Writes `line` above the bar. */
  log(line: string): void {
    this.multi.log(`${line}\n`);
  }

  /**
   * Draws the last state, lines logged since the last redraw included, and stops. (cli-progress's
   * own `stop` renders the bar but not the lines still buffered: the last task's line was lost.)
   */
  stop(): void {
    this.multi.update();
    this.multi.stop();
  }
}

/** Counters shown while a batch runs. */
export interface BatchCounts {
  total: number;
  succeeded: number;
  failed: number;
  running: number;
  /** USD of finished tasks (every attempt of each). */
  costUsd: number;
}

/** `23/50 done · 20 ok · 3 failed · 10 running · $0.1234 · 12 s` */
export function formatCounts(c: BatchCounts, elapsedMs: number): string {
  const done = c.succeeded + c.failed;
  return (
    `${done}/${c.total} done · ${c.succeeded} ok · ${c.failed} failed · ${c.running} running · ` +
    `$${c.costUsd.toFixed(4)} · ${formatSeconds(elapsedMs)}`
  );
}

function formatSeconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

/** One line for a finished task: `✓ fix-readme success · 3 turns · $0.0123 · 4.2 s`. */
export function formatTaskLine(task: BatchTask, r: BatchResult, source: TaskSource): string {
  const mark = r.is_error ? '✗' : '✓';
  const how =
    source === 'finished-earlier'
      ? ' (finished earlier, not run again)'
      : source === 'attached'
        ? ' (re-attached)'
        : source === 'retried'
          ? ' (retried)'
          : '';
  const err = r.is_error ? firstError(r) : '';
  return (
    `${mark} ${task.id} ${r.subtype} · ${r.num_turns} turn${r.num_turns === 1 ? '' : 's'} · $${r.total_cost_usd.toFixed(4)} · ` +
    `${formatSeconds(r.duration_ms)}${how}${err ? ` · ${err}` : ''}`
  );
}

function firstError(r: BatchResult): string {
  const e = (r.errors ?? []).find((x) => !x.startsWith('[ede_diagnostic]')) ?? r.errors?.[0] ?? '';
  return e.length > 160 ? `${e.slice(0, 157)}…` : e;
}

/** Options of {@link BatchProgress}. */
export interface BatchProgressOptions {
  /** `bar`: a progress bar redrawn in place (terminals); `lines`: plain lines; `none`: quiet. */
  mode: 'bar' | 'lines' | 'none';
  out: LineStream;
  /** In `lines` mode, a counts line every this many ms. @default 10000 */
  intervalMs?: number;
  /** The bar to draw with (`bar` mode). @default a {@link TerminalProgressBar} on `out` */
  bar?: ProgressBar & { log?: (line: string) => void };
  now?: () => number;
}

/** Renders a batch's progress events (done / running / failed / cost) on stderr. */
export class BatchProgress {
  readonly counts: BatchCounts;
  private readonly started: number;
  private readonly now: () => number;
  private readonly bar: (ProgressBar & { log?: (line: string) => void }) | null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    total: number,
    private readonly opts: BatchProgressOptions,
  ) {
    this.now = opts.now ?? Date.now;
    this.started = this.now();
    this.counts = { total, succeeded: 0, failed: 0, running: 0, costUsd: 0 };
    this.bar = opts.mode === 'bar' ? (opts.bar ?? new TerminalProgressBar(opts.out as NodeJS.WriteStream)) : null;
    if (this.bar) this.bar.start(total, 0, { text: this.text() });
    if (opts.mode === 'lines') {
      this.timer = setInterval(() => this.line(`progress: ${this.text()}`), opts.intervalMs ?? 10_000);
      this.timer.unref();
    }
  }

  /** Updates the counters and prints a line for a finished (or re-attached) task. */
  onEvent(e: BatchEvent): void {
    if (e.type === 'task_running') {
      this.counts.running++;
      if (e.source === 'attached') this.line(`↻ ${e.task.id}: re-attached to its running turn`);
      if (e.source === 'retried') this.line(`↻ ${e.task.id}: failed in an earlier run; retrying as a new session`);
    } else {
      if (e.source === 'started' || e.source === 'attached' || e.source === 'retried')
        this.counts.running = Math.max(0, this.counts.running - 1);
      if (e.result.is_error) this.counts.failed++;
      else this.counts.succeeded++;
      this.counts.costUsd += taskCostUsd(e.result);
      this.line(formatTaskLine(e.task, e.result, e.source));
    }
    this.bar?.update(this.counts.succeeded + this.counts.failed, { text: this.text() });
  }

  /** Prints a message above the bar (or as a line). */
  line(s: string): void {
    if (this.opts.mode === 'none') return;
    if (this.bar?.log) this.bar.log(s);
    else if (this.bar) {
      this.opts.out.write(`\r\x1b[2K${s}\n`);
      this.bar.update(this.counts.succeeded + this.counts.failed, { text: this.text() });
    } else this.opts.out.write(`${s}\n`);
  }

  elapsedMs(): number {
    return this.now() - this.started;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.bar?.stop();
  }

  private text(): string {
    const c = this.counts;
    return `· ${c.succeeded} ok · ${c.failed} failed · ${c.running} running · $${c.costUsd.toFixed(4)} · ${formatSeconds(this.elapsedMs())}`;
  }
}

/** The summary table printed at the end of a batch. */
export function summaryTable(
  rows: Array<{ task: BatchTask; result: BatchResult | null }>,
  lineErrors: TaskLineError[],
  elapsedMs: number,
): string {
  const header = ['TASK', 'STATUS', 'TURNS', 'COST', 'TIME', 'SESSION'];
  const body = rows.map(({ task, result }) =>
    result
      ? [
          task.id,
          result.subtype,
          String(result.num_turns),
          `$${taskCostUsd(result).toFixed(4)}${taskCostKnown(result) ? '' : '+'}`,
          formatSeconds(result.duration_ms),
          result.session_id,
        ]
      : [task.id, 'unfinished', '-', '-', '-', '-'],
  );
  const table = [header, ...body];
  const widths = header.map((_, i) => Math.max(...table.map((r) => (r[i] ?? '').length)));
  const fmt = (r: string[]): string =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  const lines = table.map(fmt);
  for (const e of lineErrors) lines.push(`line ${e.line}: skipped: ${e.message}`);
  const finished = rows.filter((r) => r.result);
  const ok = finished.filter((r) => !r.result?.is_error).length;
  const failed = finished.length - ok;
  const unfinished = rows.length - finished.length;
  // Every attempt of a task counts, failed ones included (`--retry-failed` keeps their spend).
  const cost = finished.reduce((s, r) => s + (r.result ? taskCostUsd(r.result) : 0), 0);
  const unknown = finished.filter((r) => r.result && !taskCostKnown(r.result)).length;
  const rate = elapsedMs > 0 ? (finished.length / (elapsedMs / 1000)).toFixed(2) : '-';
  // With --batch-api: what the tasks' calls would have cost more at the standard price (issue 25).
  const saved = finished.reduce((s, r) => s + (r.result?.batch_api?.saved_usd ?? 0), 0);
  lines.push(
    `${rows.length} tasks: ${ok} succeeded, ${failed} failed` +
      `${unfinished ? `, ${unfinished} unfinished` : ''}` +
      `${lineErrors.length ? `, ${lineErrors.length} malformed line${lineErrors.length === 1 ? '' : 's'} skipped` : ''}` +
      ` · $${cost.toFixed(4)}${unknown ? ` (cost of ${unknown} unknown)` : ''}` +
      `${saved > 0 ? ` ($${saved.toFixed(4)} saved by the Batches API)` : ''}` +
      ` · ${formatSeconds(elapsedMs)} · ${rate} tasks/s`,
  );
  return lines.join('\n');
}
