/**
 * A client connection closed while a call of it waits to retry: the call fails with CANCELLED
 * and nothing is thrown later from the retry's timer (which would kill the process).
 */
import { createServer } from 'node:net';
import { Connection } from '@temporalio/client';
import { status } from '@grpc/grpc-js';
import { CONNECTION_CLOSED_DETAILS, clientInterceptors } from '../../../src/connection/closed-channel';

/** A local port nothing listens on: every call there fails with UNAVAILABLE and is retried. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

describe('a connection closed while its call retries', () => {
  test('the call rejects with CANCELLED once the connection is closed, and no retry runs on the closed channel', async () => {
    const connection = Connection.lazy({
      address: `127.0.0.1:${await deadPort()}`,
      interceptors: clientInterceptors(),
    });
    const call = connection.workflowService.getSystemInfo({}).then(
      () => ({ code: -1, details: 'answered' }),
      (e: { code?: number; details?: string }) => ({ code: e.code, details: e.details }),
    );
    // Temporal's retry backs off 100 ms, 200 ms, 400 ms…: at 350 ms a retry waits on its timer.
    await new Promise((r) => setTimeout(r, 350));
    await connection.close();
    expect(await call).toEqual({ code: status.CANCELLED, details: CONNECTION_CLOSED_DETAILS });
    // Every backoff the retry could still have had scheduled (10 attempts at most) has passed.
    await new Promise((r) => setTimeout(r, 1500));
  });
});
