/**
 * Bounded capture of a process's output stream: keeps the first and last characters of
 * arbitrarily long output in constant memory.
 */
import { StringDecoder } from 'node:string_decoder';
import { joinHeadTail } from './format';

/**
 * Collects text from a byte stream, keeping at most `maxChars` characters: the first half
 * and the last half. Memory stays bounded whatever the stream's length.
 */
export class CappedOutput {
  private readonly decoder = new StringDecoder('utf8');
  private readonly headMax: number;
  private readonly tailMax: number;
  private head = '';
  private tail = '';
  private total = 0;

  /** @param maxChars characters kept in all (half head, half tail). */
  constructor(readonly maxChars: number) {
    this.headMax = Math.ceil(maxChars / 2);
    this.tailMax = Math.floor(maxChars / 2);
  }

  /** Adds a chunk of bytes (UTF-8). */
  push(chunk: Buffer): void {
    this.add(this.decoder.write(chunk));
  }

  /** Total characters seen so far. */
  get totalChars(): number {
    return this.total;
  }

  /** Characters dropped from the middle so far. */
  get droppedChars(): number {
    this.settle();
    return Math.max(0, this.total - this.head.length - this.tail.length);
  }

  /** The kept text: everything if it fit, else head + a marker with the count cut + tail. */
  text(): string {
    this.add(this.decoder.end());
    this.settle();
    if (this.total <= this.maxChars) return this.head + this.tail;
    return joinHeadTail(this.head, this.tail, this.droppedChars);
  }

  /** The kept text with blank leading lines and trailing whitespace removed. */
  trimmedText(): string {
    return this.text()
      .replace(/^(?:[ \t]*\r?\n)+/, '')
      .trimEnd();
  }

  private add(s: string): void {
    if (s.length === 0) return;
    this.total += s.length;
    let rest = s;
    if (this.head.length < this.headMax) {
      const take = Math.min(rest.length, this.headMax - this.head.length);
      this.head += rest.slice(0, take);
      rest = rest.slice(take);
      if (rest.length === 0) return;
    }
    if (this.tailMax === 0) return;
    // Amortized: let the tail grow to twice its size before cutting it back.
    this.tail += rest.length > this.tailMax ? rest.slice(-this.tailMax) : rest;
    if (this.tail.length > 2 * this.tailMax) this.settle();
  }

  private settle(): void {
    if (this.tail.length > this.tailMax) this.tail = this.tail.slice(-this.tailMax);
  }
}
