/**
 * Checks made before a process starts a dev server or a worker, so that a run that cannot work
 * fails at once with an error that says what to do, instead of after seconds of start-up (or as a
 * raw `EROFS` from deep inside a write).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Config } from '../config';
import { modelProviderOf } from '../config/provider';
import { missingModelCredential } from '../config/model-credentials';

/**
 * Thrown by {@link checkDataDir} when the data directory cannot be created or written (read-only
 * file system, no permission, no space, a file in the way). The CLI prints it and exits 2.
 */
export class DataDirError extends Error {
  override readonly name = 'DataDirError';
}

/**
 * Thrown by {@link checkModelKey} when a process that will run a worker has no model API key
 * (the worker calls the model with it). The CLI prints it and exits 2.
 */
export class ModelKeyMissingError extends Error {
  override readonly name = 'ModelKeyMissingError';
}

const FS_REASONS: Record<string, string> = {
  EROFS: 'it is on a read-only file system',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  ENOTDIR: 'a path component is a file, not a directory',
  EEXIST: 'a file of that name is in the way',
};

/** A file-system error (`EROFS`, `EACCES`, …) in words, or null for other errors. */
export function fileSystemReason(e: unknown): string | null {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return code !== undefined ? (FS_REASONS[code] ?? null) : null;
}

/**
 * Makes sure the data directory exists and is writable (creates it, then writes and removes a
 * probe file).
 * @throws DataDirError naming the directory, the reason and how to choose another one
 */
export function checkDataDir(dataDir: string): void {
  const probe = path.join(dataDir, `.write-check-${process.pid}`);
  try {
    // Created private (0700): it holds transcripts, prompts and tool output.
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(probe, '');
    fs.rmSync(probe, { force: true });
  } catch (e) {
    const reason = fileSystemReason(e) ?? (e instanceof Error ? e.message : String(e));
    throw new DataDirError(
      `the data directory ${dataDir} is not writable (${reason}). It holds the transcripts and the ` +
        'embedded Temporal database: set AGENT_RUNNER_DATA_DIR (or dataDir in temporal.yaml) to a writable directory.',
    );
  }
}

/**
 * Makes sure the model API key is in the environment of a process that will run a worker.
 * @throws ModelKeyMissingError naming the variable
 */
export function checkModelKey(config: Config, env: NodeJS.ProcessEnv): void {
  const provider = modelProviderOf(config.model, env);
  const absent = missingModelCredential(provider, config.model.apiKeyEnv, env);
  if (absent === null) return;
  throw new ModelKeyMissingError(
    `${absent}: the worker this run starts cannot call the model ` +
      (provider === 'firstParty'
        ? '(set it, or point ANTHROPIC_BASE_URL at a local Messages API server with any key)'
        : `through ${provider} (see docs/providers.md)`),
  );
}
