import type { DevServer } from '../../src/host/dev-server';
import type { EmbeddedPostgresServer } from '../../src/store/postgres/embedded-server';

export default async function globalTeardown(): Promise<void> {
  const g = globalThis as Record<string, unknown>;
  const server = g['__TEMPORAL_DEV_SERVER__'] as DevServer | undefined;
  const pg = g['__EMBEDDED_POSTGRES__'] as EmbeddedPostgresServer | undefined;
  await Promise.all([server?.stop(), pg?.stop()]);
}
