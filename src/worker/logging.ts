import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { LogLevel } from '@temporalio/worker';

let installed = false;

/**
 * Installs the Temporal SDK runtime once per process with a logger at `level` (the SDK logs
 * every worker state change at INFO, which would drown a CLI's output). Later calls are no-ops,
 * since the runtime can only be installed before the first worker or connection is created.
 */
export function installRuntimeLogging(level: LogLevel = 'WARN'): void {
  if (installed) return;
  installed = true;
  try {
    Runtime.install({ logger: new DefaultLogger(level) });
  } catch {
    // Already installed (e.g. by a test harness): keep that one.
  }
}
