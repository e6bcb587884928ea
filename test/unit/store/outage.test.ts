import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { JsonlTranscriptStore } from '../../../src/store/jsonl-store';
import { StoreOutage, StoreUnavailableError, isStoreUnreachable, waitingStore } from '../../../src/store/outage';
import type { TranscriptStore } from '../../../src/store/transcript-store';
import { postgresAdminUrl } from '../../helpers/postgres';

/** The error a call rejects with (fails the test when it resolves). */
async function thrown(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe('store outage: what counts as an unreachable store', () => {
  test('store outage: a PostgreSQL server that refuses connections (pg ECONNREFUSED) is unreachable', async () => {
    const port = await closedPort();
    const c = new Client({ connectionString: `postgres://x:y@127.0.0.1:${port}/db`, connectionTimeoutMillis: 2000 });
    const err = await thrown(() => c.connect());
    expect(isStoreUnreachable(err)).toBe(true);
  });

  test('store outage: a connection the server terminates (SQLSTATE 57P01, then "Connection terminated") is unreachable', async () => {
    const c = new Client({ connectionString: postgresAdminUrl() });
    await c.connect();
    c.on('error', () => undefined);
    const err = await thrown(() => c.query('SELECT pg_terminate_backend(pg_backend_pid())'));
    expect(isStoreUnreachable(err)).toBe(true);
    // The broken client says so on its next query too.
    expect(isStoreUnreachable(await thrown(() => c.query('SELECT 1')))).toBe(true);
    await c.end().catch(() => undefined);
  });

  test('store outage: answers of a reachable store are not outages (a SQL error, a full disk, a bad id, a plain Error)', async () => {
    const c = new Client({ connectionString: postgresAdminUrl() });
    await c.connect();
    try {
      expect(isStoreUnreachable(await thrown(() => c.query('SELECT * FROM no_such_table')))).toBe(false);
    } finally {
      await c.end();
    }
    const full = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    expect(isStoreUnreachable(full)).toBe(false);
    expect(isStoreUnreachable(new Error('invalid transcript entry x'))).toBe(false);
    expect(isStoreUnreachable(undefined)).toBe(false);
  });

  test('store outage: an AggregateError counts only when every address was unreachable; a cause chain is followed', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED ::1:5432'), { code: 'ECONNREFUSED' });
    const auth = Object.assign(new Error('password authentication failed'), { code: '28P01' });
    expect(isStoreUnreachable(new AggregateError([refused, refused]))).toBe(true);
    expect(isStoreUnreachable(new AggregateError([refused, auth]))).toBe(false);
    expect(isStoreUnreachable(new Error('wrapped', { cause: refused }))).toBe(true);
  });
});

describe('store outage: waiting for the store', () => {
  const refused = (): Error =>
    Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

  test('store outage: a call that cannot reach the store is retried until it answers, with a notice when the wait begins and ends', async () => {
    const notices: string[] = [];
    const outage = new StoreOutage('PostgreSQL transcript store at postgres://u:***@h/db', {
      notice: (l) => notices.push(l),
    });
    let tries = 0;
    const value = await outage.run(async () => {
      tries++;
      if (tries < 3) throw refused();
      return 'stored';
    });
    expect(value).toBe('stored');
    expect(tries).toBe(3);
    expect(notices).toHaveLength(2);
    expect(notices[0]).toMatch(
      /^agent-runner: the PostgreSQL transcript store at postgres:\/\/u:\*\*\*@h\/db is unreachable \(connect ECONNREFUSED 127\.0\.0\.1:5432\); waiting for it to come back \(up to 600 s\)$/,
    );
    expect(notices[1]).toMatch(/^agent-runner: the PostgreSQL transcript store .* is back after \d+ s$/);
    expect(outage.waiting).toBe(false);
  });

  test('store outage: past the outage limit the call fails with StoreUnavailableError naming the store and the limit', async () => {
    const outage = new StoreOutage('PostgreSQL transcript store at postgres://h/db', { timeoutMs: 1200 });
    const started = Date.now();
    const err = await thrown(() => outage.run(() => Promise.reject(refused())));
    expect(err).toBeInstanceOf(StoreUnavailableError);
    const e = err as StoreUnavailableError;
    expect(e.exceededLimitMs).toBe(1200);
    expect(e.message).toMatch(
      /^the PostgreSQL transcript store at postgres:\/\/h\/db is unreachable: connect ECONNREFUSED 127\.0\.0\.1:5432 \(for \d+ s, longer than store\.outageTimeoutMs 1200\)$/,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(1200);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  test('store outage: a caller without time left (budget 0: a local activity) fails at once, not past the limit', async () => {
    const outage = new StoreOutage('transcript store', { budgetMs: () => 0 });
    let tries = 0;
    const err = await thrown(() =>
      outage.run(() => {
        tries++;
        return Promise.reject(refused());
      }),
    );
    expect(tries).toBe(1);
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect((err as StoreUnavailableError).exceededLimitMs).toBeNull();
    // The outage began: a later caller's limit counts from then.
    expect(outage.waiting).toBe(true);
  });

  test('store outage: other errors are thrown at once, without a retry', async () => {
    const outage = new StoreOutage('transcript store');
    let tries = 0;
    const err = await thrown(() =>
      outage.run(() => {
        tries++;
        return Promise.reject(new Error('appendMany: invalid transcript entry'));
      }),
    );
    expect((err as Error).message).toBe('appendMany: invalid transcript entry');
    expect(tries).toBe(1);
  });

  test('store outage: the caller is told about every second while it waits (an activity heartbeats there)', async () => {
    let waits = 0;
    const outage = new StoreOutage('transcript store', { onWait: () => waits++ });
    let tries = 0;
    await outage.run(async () => {
      if (++tries < 4) throw refused(); // waits 0.5 + 1 + 2 s
    });
    expect(waits).toBeGreaterThanOrEqual(4);
  });
});

describe('store outage: waitingStore', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-outage-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** A JSONL store whose next `failures` calls of `method` fail as an unreachable store would. */
  function flaky(
    method: keyof TranscriptStore,
    failures: number,
  ): { store: JsonlTranscriptStore; calls: () => number } {
    const store = new JsonlTranscriptStore(dir);
    const original = (store[method] as (...a: unknown[]) => Promise<unknown>).bind(store);
    let calls = 0;
    (store as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      calls++;
      return calls <= failures ? Promise.reject(refused()) : original(...args);
    };
    return { store, calls: () => calls };
  }
  const refused = (): Error =>
    Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

  test('store outage: a write is retried in place and stored once', async () => {
    const { store, calls } = flaky('append', 2);
    const w = waitingStore(store, new StoreOutage(store.description));
    const r = await w.append({
      v: 1,
      type: 'user',
      uuid: 'u1',
      parentUuid: null,
      sessionId: 's1',
      timestamp: new Date().toISOString(),
      message: { role: 'user', content: 'hi' },
    });
    expect(r.written).toBe(true);
    expect(calls()).toBe(3);
    expect((await store.load('s1')).map((e) => e.uuid)).toEqual(['u1']);
    expect(w.description).toBe(`transcript store at ${path.join(dir, 'sessions')} (JSONL files)`);
  });

  test('store outage: a streamed putContent is not repeated (its stream is spent): it fails with StoreUnavailableError at once', async () => {
    const { store, calls } = flaky('putContent', 1);
    const w = waitingStore(store, new StoreOutage(store.description));
    async function* body(): AsyncGenerator<Buffer> {
      yield Buffer.from('pack');
    }
    const err = await thrown(() => w.putContent('s1', 'snapshot/x', body()));
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect(calls()).toBe(1);
    // A buffer body is repeatable: retried.
    const again = flaky('putContent', 1);
    const w2 = waitingStore(again.store, new StoreOutage('transcript store'));
    expect((await w2.putContent('s1', 'k', Buffer.from('x'))).created).toBe(true);
    expect(again.calls()).toBe(2);
  });
});
