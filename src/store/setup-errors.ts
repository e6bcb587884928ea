import { UnknownSessionError } from './copy';
import { StoreConnectionError, StoreSchemaError, StoreServerVersionError } from './postgres/errors';
import { InvalidStoreUrlError } from './postgres/url';

/**
 * True for store errors that mean "fix the setup, nothing was run": an unreachable database, a
 * schema that does not fit this code, an old server, a bad store URL, an unknown session to
 * copy. The CLI exits 2 on them.
 */
export function isStoreSetupError(e: unknown): e is Error {
  return (
    e instanceof StoreConnectionError ||
    e instanceof StoreSchemaError ||
    e instanceof StoreServerVersionError ||
    e instanceof InvalidStoreUrlError ||
    e instanceof UnknownSessionError
  );
}
