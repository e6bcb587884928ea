import type { Config } from '../../config';
import { openRuntime } from '../../worker/runtime';
import { UsageError } from '../turn-options';

/**
 * `agent-runner worker`: runs a worker for a configured server (`temporal.address` or a running
 * `agent-runner server`) until SIGINT/SIGTERM, then shuts down gracefully.
 */
export async function runWorker(config: Config, log: (l: string) => void): Promise<number> {
  const rt = await openRuntime({ config, worker: true, log });
  if (rt.mode === 'embedded') {
    await rt.close();
    throw new UsageError(
      'agent-runner worker needs a server: set temporal.address (or TEMPORAL_ADDRESS), or start `agent-runner server`',
    );
  }
  log(
    `worker polling task queue "${rt.taskQueue}" at ${rt.address} (namespace ${config.temporal.namespace}); Ctrl-C to stop`,
  );
  await waitForStop(log);
  await rt.close();
  return 0;
}

/**
 * `agent-runner server`: the embedded dev server (persisted under the data directory) plus a
 * worker, in the foreground. Other `agent-runner` commands on this machine use it.
 */
export async function runServer(config: Config, log: (l: string) => void, ui: boolean): Promise<number> {
  const { writeServerState, clearServerState } = await import('../../worker/dev-server');
  const rt = await openRuntime({ config, worker: true, forceEmbedded: true, log, ui });
  if (!rt.devServer) throw new Error('the embedded server did not start');
  writeServerState(config.dataDir, { address: rt.address, pid: rt.devServer.pid, uiUrl: rt.devServer.uiUrl });
  log(
    `agent-runner server ready: Temporal at ${rt.address}${rt.devServer.uiUrl ? `, Web UI ${rt.devServer.uiUrl}` : ''}`,
  );
  log(`data directory ${config.dataDir}; Ctrl-C to stop`);
  await waitForStop(log);
  clearServerState(config.dataDir);
  await rt.close();
  return 0;
}

function waitForStop(log: (l: string) => void): Promise<void> {
  return new Promise((resolve) => {
    const stop = (sig: string): void => {
      log(`${sig}: shutting down`);
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      resolve();
    };
    const onInt = (): void => stop('SIGINT');
    const onTerm = (): void => stop('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
  });
}
