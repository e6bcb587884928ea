import { resolveConfigPath } from '../config/load';

/** Root flags that decide how a run reaches a server. */
export interface ServerModeFlags {
  /** `--no-daemon` sets false. */
  daemon?: boolean;
  config?: string;
}

/**
 * The `openRuntime` options of a run: start (or use) the shared background server unless
 * `--no-daemon` or env `AGENT_RUNNER_NO_DAEMON` (any value but empty, 0 or false) says otherwise,
 * and the config file the background server should read.
 */
export function serverModeOptions(
  flags: ServerModeFlags,
  env: NodeJS.ProcessEnv = process.env,
): { daemon: boolean; configPath: string | null } {
  const off = env['AGENT_RUNNER_NO_DAEMON'];
  const envOff = off !== undefined && off !== '' && off !== '0' && off.toLowerCase() !== 'false';
  return {
    daemon: flags.daemon !== false && !envOff,
    configPath: resolveConfigPath({ ...(flags.config ? { path: flags.config } : {}), env }),
  };
}
