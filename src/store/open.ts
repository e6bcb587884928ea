/**
 * Choosing and opening a transcript store from a store URL: `store.url` of the config
 * (`AGENT_RUNNER_STORE_URL`), or the `--from`/`--to` of `agent-runner store copy`.
 */
import * as path from 'node:path';
import type { StoreConfig } from '../config/schema';
import { JsonlTranscriptStore } from './jsonl-store';
import { InvalidStoreUrlError, isPostgresUrl, maskUrl } from './postgres/url';
import type { TranscriptStore } from './transcript-store';

/** Where a store is. */
export type StoreLocation =
  | { kind: 'jsonl'; /** The data directory (files go to `<dataDir>/sessions`). */ dataDir: string; display: string }
  | { kind: 'postgres'; url: string; /** The URL with its password masked. */ display: string };

/**
 * Parses a store URL: `postgres://…` / `postgresql://…`, `jsonl:DIR` (a relative DIR is taken
 * from `cwd`), or null for JSONL files under `dataDir`.
 * @throws InvalidStoreUrlError for anything else.
 */
export function storeLocation(url: string | null, dataDir: string, cwd: string = process.cwd()): StoreLocation {
  if (url === null || url === '') return { kind: 'jsonl', dataDir, display: `jsonl:${dataDir}` };
  if (isPostgresUrl(url)) return { kind: 'postgres', url, display: maskUrl(url) };
  const m = /^jsonl:(.+)$/i.exec(url);
  if (m?.[1]) {
    const dir = path.resolve(cwd, m[1]);
    return { kind: 'jsonl', dataDir: dir, display: `jsonl:${dir}` };
  }
  throw new InvalidStoreUrlError(
    `invalid store URL ${maskUrl(url)}: expected postgres://user@host:port/database or jsonl:DIR`,
  );
}

/** Options of {@link openStore}. */
export interface OpenStoreOptions {
  /**
   * PostgreSQL only: `migrate` brings the schema up to date (workers, `store migrate`); `check`
   * verifies that it fits this code. @default "check"
   */
  schema?: 'migrate' | 'check';
  /** Warnings (skipped JSONL lines, lost idle connections). */
  log?: (line: string) => void;
}

/**
 * Opens the store at `loc` with the limits of `store` config.
 * @throws StoreConnectionError / StoreSchemaError / StoreServerVersionError (PostgreSQL) — each
 *   a setup error the CLI reports with exit 2.
 */
export async function openStore(
  loc: StoreLocation,
  store: Pick<StoreConfig, 'maxContentBytes' | 'poolSize' | 'connectTimeoutMs'>,
  opts: OpenStoreOptions = {},
): Promise<TranscriptStore> {
  const onWarning = opts.log ? (m: string) => opts.log?.(`warning: ${m}`) : undefined;
  if (loc.kind === 'jsonl') {
    return new JsonlTranscriptStore(loc.dataDir, {
      maxContentBytes: store.maxContentBytes,
      ...(onWarning ? { onWarning } : {}),
    });
  }
  // Loaded only for a PostgreSQL store: a JSONL user never loads the driver.
  const { PostgresTranscriptStore } = await import('./postgres/postgres-store');
  return PostgresTranscriptStore.open(loc.url, {
    schema: opts.schema ?? 'check',
    poolSize: store.poolSize,
    connectTimeoutMs: store.connectTimeoutMs,
    maxContentBytes: store.maxContentBytes,
    ...(onWarning ? { onWarning } : {}),
  });
}

/** Opens the store the config names (`store.url`, else JSONL under `dataDir`). */
export async function openConfiguredStore(
  config: { store: StoreConfig; dataDir: string },
  opts: OpenStoreOptions = {},
): Promise<TranscriptStore> {
  return openStore(storeLocation(config.store.url, config.dataDir), config.store, opts);
}
