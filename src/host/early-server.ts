/**
 * The background server, started early: a `-p` run that has checked its flags, prompt and config
 * and will start the shared background server (none runs for its data directory) spawns it before
 * it loads the client code, so that the server boots meanwhile (about 400 ms of a cold run). The
 * client's own start (`ensureBackgroundServer`) then waits for this one instead of spawning
 * another. The server stops at once if the run ends without using it.
 */
import type { Config } from '../config';
import { readServerState } from './server-state';
import { binPath } from './package-root';
import { checkDataDir, checkModelKey } from './preflight';
import { serverLockHolder } from './server-lock';
import { noteEarlySpawn, spawnBackgroundServer } from './background-spawn';

/**
 * Spawns the background server of `config.dataDir` when the run is sure to need a new one: no
 * configured `temporal.address`, no server recorded or starting there, a writable data directory,
 * a model API key and a Temporal CLI at hand. Otherwise does nothing: the run's own start decides
 * (and reports what is wrong) as before.
 * @returns whether it spawned one (never throws)
 */
export async function startBackgroundServerEarly(
  config: Config,
  configPath: string | null,
  env: NodeJS.ProcessEnv,
): Promise<boolean> {
  if (config.temporal.address) return false;
  if (readServerState(config.dataDir) !== null || serverLockHolder(config.dataDir) !== null) return false;
  // The launcher module loads only here: a run against a running server never needs it.
  const { findTemporalCli } = await import('./dev-server');
  try {
    checkDataDir(config.dataDir);
    checkModelKey(config, env);
    findTemporalCli({ configured: config.devServer.cliPath, env });
  } catch {
    return false;
  }
  try {
    noteEarlySpawn(
      spawnBackgroundServer({
        dataDir: config.dataDir,
        configPath,
        env: { ...env, AGENT_RUNNER_SPAWNED_BY: String(process.pid) },
        binPath: binPath(),
      }),
    );
    return true;
  } catch {
    return false;
  }
}
