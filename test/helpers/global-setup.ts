import { findTemporalCli, startDevServer } from '../../src/worker/dev-server';
import { SEARCH_ATTRIBUTES } from '../../src/common/search-attributes';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Starts one Temporal dev server for all test files; its address goes to TEST_TEMPORAL_ADDRESS. */
export default async function globalSetup(): Promise<void> {
  if (process.env['TEST_TEMPORAL_ADDRESS']) return;
  const server = await startDevServer({
    cliPath: findTemporalCli(),
    dataDir: mkdtempSync(join(tmpdir(), 'dar-temporal-')),
    dbFilename: null,
    searchAttributes: { ...SEARCH_ATTRIBUTES },
    logLevel: 'error',
  });
  process.env['TEST_TEMPORAL_ADDRESS'] = server.address;
  (globalThis as Record<string, unknown>)['__TEMPORAL_DEV_SERVER__'] = server;
}
