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
import { AgentRunnerError } from '../common/errors';
import { DataDirError, PRIVATE_FILE_MODE, ensurePrivateDataDir, unwritableDataDir } from '../store/data-dir';

export { DataDirError, fileSystemReason } from '../store/data-dir';

/**
 * Thrown by {@link checkModelKey} when a process that will run a worker has no model API key
 * (the worker calls the model with it). The CLI prints it and exits 2.
 */
export class ModelKeyMissingError extends AgentRunnerError {
  override readonly name = 'ModelKeyMissingError';
  readonly kind = 'usage';
}

/**
 * Makes sure the data directory exists, is private (created or repaired as 0700, this user's:
 * src/store/data-dir.ts) and is writable (writes and removes a probe file).
 * @throws DataDirError naming the directory, the reason and how to choose another one
 */
export function checkDataDir(dataDir: string): void {
  const probe = path.join(dataDir, `.write-check-${process.pid}`);
  try {
    // Private: it holds transcripts, prompts and tool output.
    ensurePrivateDataDir(dataDir);
    fs.writeFileSync(probe, '', { mode: PRIVATE_FILE_MODE });
    fs.rmSync(probe, { force: true });
  } catch (e) {
    if (e instanceof DataDirError) throw e;
    throw unwritableDataDir(dataDir, e);
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
