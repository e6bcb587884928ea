/** Small statistics and table helpers of the benchmarks. */

/** The q-quantile (0..1) of `values` by nearest rank; NaN when empty. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

/** Median (nearest rank). */
export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** Differences between consecutive values. */
export function deltas(times: readonly number[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < times.length; i++) out.push((times[i] ?? 0) - (times[i - 1] ?? 0));
  return out;
}

/** Rounds to `digits` decimals (for JSON output). */
export function round(n: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** Formats a byte count: `812 B`, `3.4 KB`, `1.2 MB`. */
export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** A plain-text table with a title; columns are padded to their widest cell. */
export function renderTable(title: string, headers: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  return [title, line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map((r) => line(r))].join('\n');
}

/** What every measurement returns: a printed table and a JSON-safe summary. */
export interface Measurement {
  name: string;
  table: string;
  json: Record<string, unknown>;
}
