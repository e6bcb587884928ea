import { closeSync, openSync, readFileSync, rmSync, writeSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

/** Thrown when another live process runs the embedded dev server on the same data directory. */
export class EmbeddedServerBusyError extends Error {
  override readonly name = 'EmbeddedServerBusyError';
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `another agent-runner process (pid ${pid}) runs the embedded Temporal server on ${dataDir}. ` +
        'Start one shared server with `agent-runner server` (every command then uses it), ' +
        'or give this run its own AGENT_RUNNER_DATA_DIR.',
    );
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes `<dataDir>/embedded-server.lock` (created with O_EXCL, holding our pid) so that two
 * processes never run dev servers on one SQLite file. A lock left by a dead process is taken over.
 * @returns a release function (idempotent)
 * @throws EmbeddedServerBusyError when a live process holds the lock
 */
export function lockEmbeddedServer(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'embedded-server.lock');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      const release = (): void => {
        if (released) return;
        released = true;
        process.off('exit', release);
        rmSync(file, { force: true });
      };
      process.on('exit', release);
      return release;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const pid = Number(readFileSync(file, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
        throw new EmbeddedServerBusyError(dataDir, pid);
      }
      rmSync(file, { force: true }); // stale: its process is gone
    }
  }
  throw new Error(`could not take the embedded server lock ${file}`);
}

/**
 * Pid of the live process that holds `<dataDir>/embedded-server.lock` (an `agent-runner -p` or
 * other command running its own embedded dev server), or null when none does.
 */
export function embeddedServerHolder(dataDir: string): number | null {
  try {
    const pid = Number(readFileSync(join(dataDir, 'embedded-server.lock'), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : null;
  } catch {
    return null;
  }
}
