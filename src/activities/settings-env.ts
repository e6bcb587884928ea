/**
 * Re-reads the `env` of settings files where a tool runs (see {@link SettingsEnvRef}): the values
 * never travel through workflow history, only the file paths do.
 */
import { dirname } from 'node:path';
import type { SettingsEnvRef } from '../common/permissions';
import { MAX_CONFIG_JSON_BYTES, readConfigFile } from '../config-files/safe-read';

/**
 * The merged `env` of the files, later files winning. A file that is gone or no longer valid
 * contributes nothing (the turn goes on with the rest), as Claude Code does when a settings file
 * changes under a running session. The paths are where the client found each file, links
 * resolved; one that has since become a link out of its directory, a FIFO, a file of a kernel
 * file system or an oversized one contributes nothing either (src/config-files/safe-read.ts).
 */
export async function readSettingsEnv(ref: SettingsEnvRef): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const file of ref.files) {
    const read = readConfigFile(file, { roots: [dirname(file)], maxBytes: MAX_CONFIG_JSON_BYTES });
    if (read.status !== 'read') continue;
    try {
      const raw = JSON.parse(read.text) as { env?: unknown };
      if (raw.env === null || typeof raw.env !== 'object' || Array.isArray(raw.env)) continue;
      for (const [k, v] of Object.entries(raw.env as Record<string, unknown>)) if (typeof v === 'string') env[k] = v;
    } catch {
      // invalid now: skip
    }
  }
  return env;
}
