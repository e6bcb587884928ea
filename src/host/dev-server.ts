/**
 * Embedded Temporal dev server: finds the Temporal CLI, runs `temporal server start-dev` on free
 * loopback ports, waits until it answers, and stops it. A state file (`<dataDir>/server.json`)
 * lets several runs of the CLI share one server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, ensurePrivateDataDir } from '../store/data-dir';
import { serverAnswers, tcpProbe } from './server-state';
import { devServerEnvironment } from '../env/child-env';
import { retry } from '../connection/retry';
import { AgentRunnerError } from '../common/errors';

// ---------------------------------------------------------------------------------------------
// Finding the CLI
// ---------------------------------------------------------------------------------------------

/** Names of this package (published, and the checkout's former one), used to find the project root. */
const PACKAGE_NAMES: readonly string[] = ['@durable-agent-runner/agent-runner', 'durable-agent-runner'];
const PACKAGE_NAME = PACKAGE_NAMES[0] as string;

/** Env var naming the Temporal CLI binary. */
export const TEMPORAL_CLI_PATH_ENV = 'TEMPORAL_CLI_PATH';

/**
 * Thrown by {@link findTemporalCli} when no usable Temporal CLI is found, and by
 * {@link startDevServer} when its `cliPath` is not an executable file.
 */
export class TemporalCliNotFoundError extends AgentRunnerError {
  override readonly name = 'TemporalCliNotFoundError';
  readonly kind = 'usage';
  constructor(
    /** Each place looked at, with why it was not usable. */
    readonly searched: readonly string[],
  ) {
    super(
      `Temporal CLI not found. Looked at:\n${searched.map((s) => `  - ${s}`).join('\n')}\n` +
        `Run \`npm run setup:temporal\` to install the pinned CLI into .temporal/, ` +
        `or set ${TEMPORAL_CLI_PATH_ENV} to the path of a \`temporal\` binary.`,
    );
  }
}

/** Options of {@link findTemporalCli}. */
export interface FindTemporalCliOptions {
  /** An explicitly configured path or command name (`devServer.cliPath`); null/undefined = none. */
  configured?: string | null;
  /** Environment for `TEMPORAL_CLI_PATH` and `PATH`. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Root of the project holding `.temporal/bin/temporal`. @default the package root of this file */
  projectRoot?: string;
  /** More places to look last (e.g. the copy fetched on first use under the data directory). */
  extraPaths?: readonly string[];
}

/**
 * Path of the Temporal CLI binary. Looks, in order, at: `configured` (a path, or a command name
 * looked up on PATH), env `TEMPORAL_CLI_PATH`, `temporal` on `PATH`, and
 * `<projectRoot>/.temporal/bin/temporal` (installed by `npm run setup:temporal`).
 * An explicitly given `configured` or `TEMPORAL_CLI_PATH` that is not executable is an error,
 * not skipped, so a typo does not silently pick another binary.
 * @throws TemporalCliNotFoundError listing every place looked at.
 */
export function findTemporalCli(opts: FindTemporalCliOptions = {}): string {
  const env = opts.env ?? process.env;
  const searched: string[] = [];
  const exe = process.platform === 'win32' ? 'temporal.exe' : 'temporal';

  const explicit = (value: string, label: string): string => {
    const isName = !value.includes('/') && !value.includes('\\');
    const found = isName ? searchPath(value, env) : isExecutableFile(value) ? path.resolve(value) : undefined;
    if (found) return found;
    searched.push(`${label}: ${value} (${isName ? 'not found on PATH' : describeUnusable(value)})`);
    throw new TemporalCliNotFoundError(searched);
  };

  if (opts.configured) return explicit(opts.configured, 'devServer.cliPath');
  searched.push('devServer.cliPath: not set');

  const fromEnv = env[TEMPORAL_CLI_PATH_ENV];
  if (fromEnv) return explicit(fromEnv, TEMPORAL_CLI_PATH_ENV);
  searched.push(`${TEMPORAL_CLI_PATH_ENV}: not set`);

  const onPath = searchPath(exe, env);
  if (onPath) return onPath;
  searched.push(`PATH: no ${exe} in ${env['PATH'] ? env['PATH'] : '(empty PATH)'}`);

  const root = opts.projectRoot ?? findProjectRoot();
  if (root !== null) {
    const local = path.join(root, '.temporal', 'bin', exe);
    if (isExecutableFile(local)) return local;
    searched.push(`${local} (${describeUnusable(local)})`);
  } else {
    searched.push(`.temporal/bin/${exe}: no ${PACKAGE_NAME} package root found above ${__dirname}`);
  }
  for (const extra of opts.extraPaths ?? []) {
    if (isExecutableFile(extra)) return extra;
    searched.push(`${extra} (${describeUnusable(extra)})`);
  }
  throw new TemporalCliNotFoundError(searched);
}

/**
 * The root of this package: the nearest directory at or above `from` whose package.json is named
 * `@durable-agent-runner/agent-runner` (or the checkout's former name `durable-agent-runner`); null when there is none.
 */
export function findProjectRoot(from: string = __dirname): string | null {
  let dir = path.resolve(from);
  for (;;) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: unknown };
      if (typeof pkg.name === 'string' && PACKAGE_NAMES.includes(pkg.name)) return dir;
    } catch {
      // no package.json here, or not JSON: keep walking up
    }
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

function isExecutableFile(p: string): boolean {
  try {
    if (!fs.statSync(p).isFile()) return false;
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function describeUnusable(p: string): string {
  try {
    const st = fs.statSync(p);
    if (!st.isFile()) return 'not a file';
    return 'not executable';
  } catch {
    return 'missing';
  }
}

function searchPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env['PATH'] ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Starting and stopping
// ---------------------------------------------------------------------------------------------

/** Search attribute types accepted by `temporal server start-dev --search-attribute`. */
export type SearchAttributeType = 'Keyword' | 'Text' | 'Int' | 'Double' | 'Bool' | 'Datetime' | 'KeywordList';

/**
 * Dynamic config every dev server this project starts gets (under `dynamicConfig`, which may
 * override it). The history service reads its transfer queue at most
 * `history.transferProcessorMaxPollRPS` times a second (default 20, on the dev server's single
 * shard): every workflow task that follows an activity waited for the next read slot, about 50 ms,
 * twice per agent step. See docs/performance.md, "Server tuning".
 */
export const DEV_SERVER_DYNAMIC_CONFIG: Readonly<Record<string, unknown>> = {
  'history.transferProcessorMaxPollRPS': 1000,
};

/**
 * SQLite pragmas every file-backed dev server this project starts gets (under `sqlitePragmas`,
 * which may override them). WAL with `synchronous=normal`: a commit is one append to the log, not
 * an fsync of journal and database. A killed process (`kill -9`) loses nothing; an OS crash or
 * power cut may lose the transactions of the last moments (the database stays consistent). Set
 * `synchronous: full` to keep those too. See docs/performance.md, "Server tuning".
 */
export const DEV_SERVER_SQLITE_PRAGMAS: Readonly<Record<string, string>> = {
  journal_mode: 'wal',
  synchronous: 'normal',
};

/** Options of {@link startDevServer}. */
export interface StartDevServerOptions {
  /** Path of the Temporal CLI binary (see {@link findTemporalCli}). */
  cliPath: string;
  /** Directory for the database (created if missing). */
  dataDir: string;
  /** SQLite file, relative to `dataDir` (absolute allowed); null = in-memory. @default "temporal.db" */
  dbFilename?: string | null;
  /** IP address to bind. @default "127.0.0.1" */
  ip?: string;
  /** gRPC port; 0 or unset = a free port. */
  port?: number;
  /** Web UI port when `ui` is true; 0 or unset = a free port. */
  uiPort?: number;
  /** Serve the Web UI. @default false (the server runs `--headless`) */
  ui?: boolean;
  /** A namespace to create besides `default`. @default "default" */
  namespace?: string;
  /** Custom search attributes to register, name → type. */
  searchAttributes?: Record<string, SearchAttributeType>;
  /**
   * Dynamic config values, key → JSON value (e.g. `{'limit.historyCount.suggestContinueAsNew': 200}`),
   * merged over {@link DEV_SERVER_DYNAMIC_CONFIG}.
   */
  dynamicConfig?: Record<string, unknown>;
  /** SQLite pragmas, name → value, merged over {@link DEV_SERVER_SQLITE_PRAGMAS}; used with a database file only. */
  sqlitePragmas?: Record<string, string>;
  /** Server log level: debug, info, warn, error or never. @default "warn" */
  logLevel?: string;
  /** How long to wait for the server to answer, in milliseconds. @default 60000 */
  startTimeoutMs?: number;
  /** Receives each line the server prints (stdout and stderr). */
  onLog?: (line: string) => void;
  /**
   * Called once the server process is spawned, before it answers: the caller may load what it
   * needs next (the worker code) while the server boots.
   */
  onSpawn?: () => void;
  /**
   * Let the server outlive this process (to share it through {@link writeServerState}): it runs in
   * its own process group, its output goes to `<dataDir>/temporal-server.log`, and no exit hook
   * kills it. @default false: the server gets SIGKILL when this process exits normally (an
   * `exit` hook; a parent killed by a signal cannot run it, though Ctrl-C in a terminal reaches
   * the server too, being in the same process group).
   */
  keepAlive?: boolean;
}

/** A running dev server started by {@link startDevServer}. */
export interface DevServer {
  /** `host:port` of the gRPC frontend. */
  address: string;
  /** URL of the Web UI, or null when headless. */
  uiUrl: string | null;
  /** Process id of the server. */
  pid: number;
  /** Absolute path of the SQLite file, or null when in-memory. */
  dbPath: string | null;
  /** SIGTERM, then SIGKILL after 10 s; resolves once the process has exited. Idempotent. */
  stop(): Promise<void>;
  /** True when this process did not start it but adopted it from a dead predecessor. */
  adopted?: boolean;
}

/**
 * Thrown by {@link startDevServer} when the server exits before it answers or does not answer in
 * time. The message ends with the server's last log lines.
 */
export class DevServerStartError extends AgentRunnerError {
  override readonly name = 'DevServerStartError';
  readonly kind = 'runtime';
  constructor(
    message: string,
    /** The last lines (up to 200) the server printed. */
    readonly logTail: readonly string[],
  ) {
    super(
      logTail.length > 0
        ? `${message}\n--- last ${logTail.length} lines of server output ---\n${logTail.join('\n')}`
        : `${message} (the server printed nothing)`,
    );
  }
}

const LOG_TAIL_LINES = 200;
const STOP_GRACE_MS = 10_000;

/**
 * Starts `temporal server start-dev` on free ports and resolves once it answers health checks and
 * its namespaces exist. When ports are picked automatically and one is taken between picking and
 * binding, it retries with new ports (up to 3 times).
 * @throws TemporalCliNotFoundError when `cliPath` is not an executable file.
 * @throws DevServerStartError when the server exits early or does not answer within
 *   `startTimeoutMs`.
 */
export async function startDevServer(opts: StartDevServerOptions): Promise<DevServer> {
  if (!isExecutableFile(opts.cliPath)) {
    throw new TemporalCliNotFoundError([`cliPath: ${opts.cliPath} (${describeUnusable(opts.cliPath)})`]);
  }
  const autoPorts = !opts.port && !(opts.ui && opts.uiPort);
  // A port picked for us can be taken by another process before the server binds it: pick again.
  // A port asked for (the background server's address, the Web UI's 8233) can still be held by a
  // server just killed while its process goes away: wait for it (1 s, 2 s, 4 s, 8 s) and try again.
  return retry(() => startOnce(opts), {
    attempts: autoPorts ? 3 : 5,
    delayMs: autoPorts ? 0 : 1000,
    ...(autoPorts ? {} : { maxDelayMs: 8000 }),
    retryIf: (err) => err instanceof DevServerStartError && err.logTail.some((l) => /address already in use/i.test(l)),
  });
}

async function startOnce(opts: StartDevServerOptions): Promise<DevServer> {
  const ip = opts.ip ?? '127.0.0.1';
  const ui = opts.ui ?? false;
  const namespace = opts.namespace ?? 'default';
  const startTimeoutMs = opts.startTimeoutMs ?? 60_000;
  const dataDir = path.resolve(opts.dataDir);
  ensurePrivateDataDir(dataDir);
  const dbFilename = opts.dbFilename === undefined ? 'temporal.db' : opts.dbFilename;
  const dbPath = dbFilename === null ? null : path.resolve(dataDir, dbFilename);
  if (dbPath !== null) {
    fs.mkdirSync(path.dirname(dbPath), { recursive: true, mode: PRIVATE_DIR_MODE });
    makeDatabasePrivate(dbPath);
  }

  const wanted = [opts.port || 0, ui ? opts.uiPort || 0 : -1, 0, 0];
  const [port, uiPort, httpPort, metricsPort] = await freePorts(ip, wanted);

  const args = ['server', 'start-dev', '--ip', ip, '--port', String(port)];
  args.push('--http-port', String(httpPort), '--metrics-port', String(metricsPort));
  if (ui) args.push('--ui-port', String(uiPort));
  else args.push('--headless');
  if (dbPath !== null) args.push('--db-filename', dbPath);
  if (namespace !== 'default') args.push('--namespace', namespace);
  args.push('--log-level', opts.logLevel ?? 'warn');
  for (const [name, type] of Object.entries(opts.searchAttributes ?? {})) {
    args.push('--search-attribute', `${name}=${type}`);
  }
  for (const [key, value] of Object.entries({ ...DEV_SERVER_DYNAMIC_CONFIG, ...opts.dynamicConfig })) {
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }
  if (dbPath !== null) {
    for (const [name, value] of Object.entries({ ...DEV_SERVER_SQLITE_PRAGMAS, ...opts.sqlitePragmas })) {
      args.push('--sqlite-pragma', `${name}=${value}`);
    }
  }

  // A minimal environment: no key of the runner (model or Temporal) reaches the server.
  const childEnv = devServerEnvironment();

  const tail: string[] = [];
  const onLine = (line: string): void => {
    tail.push(line);
    if (tail.length > LOG_TAIL_LINES) tail.shift();
    opts.onLog?.(line);
  };

  let child: ChildProcess;
  let logFile: string | null = null;
  if (opts.keepAlive) {
    logFile = path.join(dataDir, 'temporal-server.log');
    const fd = fs.openSync(logFile, 'a', PRIVATE_FILE_MODE);
    try {
      child = spawn(opts.cliPath, args, { stdio: ['ignore', fd, fd], env: childEnv, detached: true });
    } finally {
      fs.closeSync(fd);
    }
  } else {
    // The server dies with this process, even with `kill -9` of it: a parent-death signal where
    // util-linux's setpriv exists (it sets PR_SET_PDEATHSIG, then execs the CLI: same pid).
    const setpriv = parentDeathWrapper(childEnv);
    child = setpriv
      ? spawn(setpriv, ['--pdeathsig', 'KILL', '--', opts.cliPath, ...args], {
          stdio: ['ignore', 'pipe', 'pipe'],
          env: childEnv,
        })
      : spawn(opts.cliPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: childEnv });
    for (const stream of [child.stdout, child.stderr]) {
      if (stream) readline.createInterface({ input: stream, crlfDelay: Infinity }).on('line', onLine);
    }
  }
  const readTail = (): string[] => (logFile !== null ? lastLines(logFile, LOG_TAIL_LINES) : [...tail]);
  opts.onSpawn?.();

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', (error) => resolve({ code: null, signal: null, error }));
  });
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  let hasExited = false;
  void exited.then(() => {
    hasExited = true;
    liveChildren.delete(child);
  });
  if (!opts.keepAlive) trackForExit(child);

  const host = connectHost(ip);
  const address = `${host}:${port}`;
  const command = `${opts.cliPath} ${args.join(' ')}`;

  let stopPromise: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopPromise ??= (async () => {
      liveChildren.delete(child);
      if (hasExited || child.pid === undefined) return;
      child.ref(); // keep this process alive until the server has exited
      child.kill('SIGTERM');
      const killTimer = setTimeout(() => {
        if (!hasExited) child.kill('SIGKILL');
      }, STOP_GRACE_MS);
      try {
        await exited;
      } finally {
        clearTimeout(killTimer);
      }
    })();
    return stopPromise;
  };

  const abort = new AbortController();
  const deadline = Date.now() + startTimeoutMs;
  const ready = waitUntilReady(address, ['default', namespace], deadline, abort.signal);
  const outcome = await Promise.race([
    ready.then(
      () => ({ kind: 'ready' as const }),
      (error: unknown) => ({ kind: 'timeout' as const, error }),
    ),
    exited.then((e) => ({ kind: 'exited' as const, ...e })),
  ]);
  abort.abort();

  if (outcome.kind !== 'ready') {
    await stop();
    await ready.catch(() => undefined);
    // Let the output readers drain what the process printed before it died.
    await withTimeout(closed, 1000);
    if (outcome.kind === 'exited') {
      const how = outcome.error
        ? `could not be run: ${outcome.error.message}`
        : `exited before it was ready (${outcome.signal ? `signal ${outcome.signal}` : `exit code ${outcome.code}`})`;
      throw new DevServerStartError(`Temporal dev server ${how}. Command: ${command}`, readTail());
    }
    const why = outcome.error instanceof Error ? `: ${outcome.error.message}` : '';
    throw new DevServerStartError(
      `Temporal dev server did not answer at ${address} within ${startTimeoutMs} ms${why}. Command: ${command}`,
      readTail(),
    );
  }

  // A new database was created by the server (with its umask): owner-only from now on.
  if (dbPath !== null) makeDatabasePrivate(dbPath);
  // The server does not keep this process alive; the exit hook (or stop()) ends it.
  child.unref();
  for (const stream of [child.stdout, child.stderr]) (stream as net.Socket | null)?.unref();
  const pid = child.pid;
  if (pid === undefined)
    throw new DevServerStartError(`Temporal dev server has no pid. Command: ${command}`, readTail());
  return {
    address,
    uiUrl: ui ? `http://${host}:${uiPort}` : null,
    pid,
    dbPath,
    stop,
  };
}

/**
 * Removes group and other access from the SQLite database and its `-wal` and `-shm` files.
 * SQLite creates those two with the database file's mode, so they stay private when it recreates
 * them. (The server cannot be given an empty owner-only file to start from: it takes an existing
 * file for an initialized database.)
 */
function makeDatabasePrivate(dbPath: string): void {
  for (const f of [dbPath, `${dbPath}-wal`, `${dbPath}-shm`]) {
    try {
      const st = fs.lstatSync(f);
      if (st.isFile() && (st.mode & 0o077) !== 0) fs.chmodSync(f, st.mode & 0o700);
    } catch {
      // not there (yet)
    }
  }
}

/** `setpriv` (util-linux) on PATH on Linux, else null: it can give a child a parent-death signal. */
export function parentDeathWrapper(env: NodeJS.ProcessEnv = process.env): string | null {
  if (process.platform !== 'linux') return null;
  return searchPath('setpriv', env) ?? (isExecutableFile('/usr/bin/setpriv') ? '/usr/bin/setpriv' : null);
}

/** Whether `pid` is a `temporal server start-dev` on `dbPath` (Linux /proc; elsewhere: whether it lives). */
function isDevServerOn(pid: number, dbPath: string | null): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (process.platform !== 'linux') return true;
  try {
    const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) return false;
    return argv.includes('start-dev') && (dbPath === null || argv.includes(dbPath));
  } catch {
    return false;
  }
}

/** Sends `signal` to `pid`, then waits up to `ms` for it to be gone; true when it is. */
async function signalAndWait(pid: number, signal: NodeJS.Signals, ms: number, dbPath: string | null): Promise<boolean> {
  try {
    process.kill(pid, signal);
  } catch {
    return true;
  }
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!isDevServerOn(pid, dbPath)) return true;
    await sleep(50);
  }
  return !isDevServerOn(pid, dbPath);
}

/**
 * Stops a dev server this process did not start (an orphan): SIGTERM, then SIGKILL after 10 s.
 * Does nothing when `pid` is not (or no longer) a dev server on `dbPath`.
 * @returns true when it is gone
 */
export async function stopDevServerProcess(pid: number, dbPath: string | null): Promise<boolean> {
  if (!isDevServerOn(pid, dbPath)) return true;
  if (await signalAndWait(pid, 'SIGTERM', STOP_GRACE_MS, dbPath)) return true;
  return signalAndWait(pid, 'SIGKILL', 5000, dbPath);
}

/**
 * What to do with a dev server a dead lock holder left running on `dbPath` (an orphan): when it
 * still answers at its address it is adopted (returned as a {@link DevServer} this process now
 * stops); when it does not, it is stopped (SIGTERM, then SIGKILL) and null is returned. Null too
 * when there is no such process (gone, or its pid now belongs to another program).
 */
export async function adoptOrStopOrphan(
  orphan: { pid: number; address: string | null; uiUrl: string | null },
  dbPath: string | null,
): Promise<DevServer | null> {
  if (!isDevServerOn(orphan.pid, dbPath)) return null;
  if (orphan.address !== null && (await serverAnswers(orphan.address, 3000))) {
    let stopPromise: Promise<void> | undefined;
    const { pid } = orphan;
    return {
      address: orphan.address,
      uiUrl: orphan.uiUrl,
      pid,
      dbPath,
      adopted: true,
      stop: () => (stopPromise ??= stopDevServerProcess(pid, dbPath).then(() => undefined)),
    };
  }
  await stopDevServerProcess(orphan.pid, dbPath);
  return null;
}

/** Picks distinct free ports on `ip` (for each `0`); keeps given ports, and `-1` stays `-1`. */
async function freePorts(ip: string, wanted: number[]): Promise<number[]> {
  const servers: net.Server[] = [];
  try {
    const out: number[] = [];
    for (const w of wanted) {
      if (w !== 0) {
        out.push(w);
        continue;
      }
      const server = net.createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ port: 0, host: ip, exclusive: true }, () => resolve());
      });
      const addr = server.address();
      if (addr === null || typeof addr === 'string') throw new Error(`cannot pick a free port on ${ip}`);
      out.push(addr.port);
    }
    return out;
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
  }
}

/** A port of {@link freePorts}: a free TCP port on `ip` (default 127.0.0.1). */
export async function findFreePort(ip = '127.0.0.1'): Promise<number> {
  const [port] = await freePorts(ip, [0]);
  if (port === undefined) throw new Error(`cannot pick a free port on ${ip}`);
  return port;
}

function connectHost(ip: string): string {
  if (ip === '0.0.0.0') return '127.0.0.1';
  if (ip === '::' || ip === '[::]') return '[::1]';
  if (ip.includes(':') && !ip.startsWith('[')) return `[${ip}]`;
  return ip;
}

/** Interval of the dev server's port probes while it boots, in ms. */
const TCP_PROBE_INTERVAL_MS = 20;

/**
 * Polls until the TCP port accepts, then until the gRPC health check says SERVING and each
 * namespace can be described. Rejects at the deadline (or on abort) with the last error.
 */
async function waitUntilReady(
  address: string,
  namespaces: string[],
  deadline: number,
  signal: AbortSignal,
): Promise<void> {
  if (signal.aborted || Date.now() >= deadline) throw new Error('not tried: the start deadline had passed');
  // 1. The port accepts connections (cheap; avoids gRPC's reconnect backoff). A refused local
  // connect costs microseconds: probe every 20 ms, so that readiness is seen at once.
  await retry(() => tcpProbe(address, Math.max(1, Math.min(1000, deadline - Date.now()))), {
    delayMs: TCP_PROBE_INTERVAL_MS,
    factor: 1,
    deadline,
    signal,
  });

  // 2. The server answers and the namespaces exist.
  const { Connection } = await import('@temporalio/client');
  const connection = Connection.lazy({ address, connectTimeout: Math.max(1, deadline - Date.now()) });
  try {
    await retry(
      async () => {
        const callDeadline = Math.min(deadline, Date.now() + 2000);
        const health = await connection.withDeadline(callDeadline, () => connection.healthService.check({}));
        // 1 = SERVING
        if (health.status !== 1) throw new Error(`health check status ${String(health.status)}`);
        for (const namespace of new Set(namespaces)) {
          await connection.withDeadline(callDeadline, () =>
            connection.workflowService.describeNamespace({ namespace }),
          );
        }
      },
      { delayMs: 50, factor: 1.5, maxDelayMs: 500, deadline, signal },
    );
  } finally {
    await connection.close();
  }
}

/** Waits for `p`, at most `ms` milliseconds (without leaving a timer behind). */
async function withTimeout(p: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([p, new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function lastLines(file: string, n: number): string[] {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const len = Math.min(size, 256 * 1024);
      const buf = Buffer.alloc(len);
      fs.readSync(fd, buf, 0, len, size - len);
      return buf
        .toString('utf8')
        .split('\n')
        .filter((l) => l.length > 0)
        .slice(-n);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return [];
  }
}

// Children to kill when this process exits normally (one 'exit' listener for all of them).
const liveChildren = new Set<ChildProcess>();
let exitHookInstalled = false;
function trackForExit(child: ChildProcess): void {
  liveChildren.add(child);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const c of liveChildren) {
      try {
        c.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}

// Shared-server state file: see src/host/server-state.ts (re-exported for existing importers).
export type { ServerState } from './server-state';
export { clearServerState, readLiveServerState, serverStatePath, writeServerState } from './server-state';
