import type { DevServer } from '../../src/worker/dev-server';

export default async function globalTeardown(): Promise<void> {
  const server = (globalThis as Record<string, unknown>)['__TEMPORAL_DEV_SERVER__'] as DevServer | undefined;
  await server?.stop();
}
