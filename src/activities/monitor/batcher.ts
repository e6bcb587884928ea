/**
 * The events of a monitor's stdout, as 2.1.328 makes them: each complete line is an event, and
 * lines that come within {@link MONITOR_BATCH_MS} of the first pending one are one event (their
 * lines joined by `\n`). Empty lines are dropped; a last line without its newline is an event
 * when the stream ends.
 */
import { StringDecoder } from 'node:string_decoder';
import { MONITOR_BATCH_MS } from '../../common/monitor';

/** Splits a stream into lines and batches them into events. */
export class LineBatcher {
  private readonly decoder = new StringDecoder('utf8');
  private partial = '';
  private pending: string[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * @param onEvent gets each event's text (lines joined by `\n`, no trailing newline)
   * @param windowMs how long after the first pending line the batch is sent, ms
   */
  constructor(
    private readonly onEvent: (text: string) => void,
    private readonly windowMs: number = MONITOR_BATCH_MS,
  ) {}

  /** Adds bytes of the stream. */
  push(chunk: Buffer | string): void {
    const text = this.partial + (typeof chunk === 'string' ? chunk : this.decoder.write(chunk));
    const lines = text.split('\n');
    this.partial = lines.pop() ?? '';
    const complete = lines.map((l) => l.replace(/\r$/, '')).filter((l) => l.length > 0);
    if (complete.length === 0) return;
    this.pending.push(...complete);
    this.timer ??= setTimeout(() => this.send(), this.windowMs);
  }

  /** The stream ended: sends what is pending, the last unterminated line included. */
  end(): void {
    const rest = (this.partial + this.decoder.end()).replace(/\r$/, '');
    this.partial = '';
    if (rest.length > 0) this.pending.push(rest);
    this.send();
  }

  private send(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    const text = this.pending.join('\n');
    this.pending = [];
    this.onEvent(text);
  }
}
