/**
 * Re-reads the `env` of settings files where a tool runs (see {@link SettingsEnvRef}): the values
 * never travel through workflow history, only the file paths do.
 */
import { readFile } from 'node:fs/promises';
import type { SettingsEnvRef } from '../common/permissions';

/**
 * The merged `env` of the files, later files winning. A file that is gone or no longer valid
 * contributes nothing (the turn goes on with the rest), as Claude Code does when a settings file
 * changes under a running session.
 */
export async function readSettingsEnv(ref: SettingsEnvRef): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const file of ref.files) {
    try {
      const raw = JSON.parse(await readFile(file, 'utf8')) as { env?: unknown };
      if (raw.env === null || typeof raw.env !== 'object' || Array.isArray(raw.env)) continue;
      for (const [k, v] of Object.entries(raw.env as Record<string, unknown>)) if (typeof v === 'string') env[k] = v;
    } catch {
      // missing or invalid now: skip
    }
  }
  return env;
}
