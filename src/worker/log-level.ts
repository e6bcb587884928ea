/** The Temporal SDK log level a process uses (no SDK code is loaded here). */

/** Temporal SDK log level from `AGENT_RUNNER_LOG_LEVEL` (TRACE, DEBUG, INFO, WARN, ERROR). @default "WARN" */
export function runtimeLogLevel(
  env: NodeJS.ProcessEnv,
  fallback: 'WARN' | 'ERROR' = 'WARN',
): 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' {
  const v = (env['AGENT_RUNNER_LOG_LEVEL'] ?? fallback).toUpperCase();
  return v === 'TRACE' || v === 'DEBUG' || v === 'INFO' || v === 'WARN' || v === 'ERROR' ? v : fallback;
}
