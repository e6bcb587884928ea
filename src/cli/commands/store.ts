import type { Config } from '../../config';
import { copySessions } from '../../store/copy';
import { openStore, storeLocation } from '../../store/open';
import type { PostgresTranscriptStore } from '../../store/postgres/postgres-store';
import { UsageError } from '../turn-options';

/** Flags of `agent-runner store migrate`. */
export interface StoreMigrateFlags {
  url?: string;
}

/** Flags of `agent-runner store copy`. */
export interface StoreCopyFlags {
  from?: string;
  to?: string;
  session?: string[];
}

interface Io {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

/**
 * `agent-runner store migrate [--url URL]`: applies the PostgreSQL schema's missing migrations
 * (a JSONL store has none). Safe while workers run.
 */
export async function runStoreMigrate(config: Config, flags: StoreMigrateFlags, io: Io): Promise<number> {
  const loc = storeLocation(flags.url ?? config.store.url, config.dataDir);
  if (loc.kind === 'jsonl') {
    io.stdout(`${loc.display}: JSONL files have no schema to migrate`);
    return 0;
  }
  const store = (await openStore(loc, config.store, { schema: 'migrate' })) as PostgresTranscriptStore;
  try {
    const version = await store.schemaVersion();
    io.stdout(`${loc.display}: schema version ${version}`);
    return 0;
  } finally {
    await store.close();
  }
}

/**
 * `agent-runner store copy --from URL --to URL [--session ID]…`: copies sessions (lines, run
 * markers, content blobs) between stores; re-running it copies only what is missing.
 * `--from`/`--to` take a store URL (`postgres://…`, `jsonl:DIR`) or `config` for the configured one.
 */
export async function runStoreCopy(config: Config, flags: StoreCopyFlags, io: Io): Promise<number> {
  if (!flags.from || !flags.to) {
    throw new UsageError('store copy needs --from and --to (postgres://…, jsonl:DIR, or "config")');
  }
  const resolve = (u: string): ReturnType<typeof storeLocation> =>
    storeLocation(u === 'config' ? config.store.url : u, config.dataDir);
  const fromLoc = resolve(flags.from);
  const toLoc = resolve(flags.to);
  if (fromLoc.display === toLoc.display)
    throw new UsageError(`--from and --to are the same store (${fromLoc.display})`);
  const from = await openStore(fromLoc, config.store, { schema: 'check' });
  try {
    const to = await openStore(toLoc, config.store, { schema: 'migrate' });
    try {
      const total = await copySessions(from, to, {
        ...(flags.session && flags.session.length > 0 ? { sessions: flags.session } : {}),
        onSession: (id, c) =>
          io.stderr(
            `${id}: ${c.lines} lines copied (${c.linesPresent} present), ${c.markers} run markers, ` +
              `${c.blobs} blobs copied (${c.blobsPresent} present)`,
          ),
      });
      io.stdout(
        `copied ${total.sessions} sessions from ${fromLoc.display} to ${toLoc.display}: ` +
          `${total.lines} lines (${total.linesPresent} already there), ${total.markers} run markers, ` +
          `${total.blobs} blobs of ${total.blobBytes} bytes (${total.blobsPresent} already there)`,
      );
      return 0;
    } finally {
      await to.close();
    }
  } finally {
    await from.close();
  }
}
