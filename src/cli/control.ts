import type { Config } from '../config';
import { connectClient, NoServerError } from '../connection/connect';
import type { ClientRuntime } from '../connection/connect';
import { embeddedServerHolder } from '../host/server-lock';
import { UsageError } from './turn-options';

/** Where the control commands (`status`, `interrupt`, `limits`, `pool`) write. */
export interface ControlIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

export { NoServerError };

/**
 * Connects a control command to Temporal without a worker: the configured server, or the live
 * `agent-runner server` of the data directory.
 * @throws NoServerError when neither exists (embedded mode with no shared server)
 */
export async function openControlRuntime(config: Config, command: string): Promise<ClientRuntime> {
  return connectClient({
    config,
    command,
    embeddedHolder: () => embeddedServerHolder(config.dataDir),
    notice: (line) => process.stderr.write(`${line}\n`),
  });
}

/** USD for humans: `$0.0123` (4 decimals below $100, 2 above), `-` for none. */
export function usd(v: number | null | undefined): string {
  if (v === null || v === undefined) return '-';
  return v >= 100 ? `$${v.toFixed(2)}` : `$${v.toFixed(4)}`;
}

/** Integer with thousands separators. */
export function int(v: number): string {
  return v.toLocaleString('en-US');
}

/** Two-column `key  value` table (keys padded). */
export function kvTable(rows: Array<[string, string]>): string {
  const w = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(w)}  ${v}`).join('\n');
}

/**
 * Parses a limit flag: a positive number (integer when `integer`), or `none` to remove the limit.
 * @returns undefined when the flag is absent, null for `none`
 * @throws UsageError for anything else
 */
export function limitValue(flag: string, v: string | undefined, integer: boolean): number | null | undefined {
  if (v === undefined) return undefined;
  if (v === 'none') return null;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new UsageError(`${flag} must be a positive ${integer ? 'integer' : 'number'} or "none", got "${v}"`);
  }
  return n;
}
