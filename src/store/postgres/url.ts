/**
 * PostgreSQL store URLs: `postgres://user:password@host:port/database?schema=agent_runner&…`.
 * `schema` is ours (the tables' schema); every other parameter goes to the `pg` client
 * (`sslmode`, `sslrootcert`, `application_name`, …). Missing parts fall back to libpq's
 * environment variables (`PGHOST`, `PGUSER`, `PGPASSWORD`, …), as `psql` does.
 */
import { AgentRunnerError } from '../../common/errors';

/** The schema of the tables when the URL names none. */
export const DEFAULT_PG_SCHEMA = 'agent_runner';

const SCHEMA_RE = /^[a-z_][a-z0-9_]{0,62}$/;

/** A PostgreSQL store URL taken apart. */
export interface PostgresUrl {
  /** The URL handed to `pg` (our own parameters removed). */
  connectionString: string;
  /** Schema of the store's tables. */
  schema: string;
  /** The URL for messages: password masked. */
  display: string;
}

/** Thrown for a store URL that is not a usable `postgres://` URL. */
export class InvalidStoreUrlError extends AgentRunnerError {
  override readonly name = 'InvalidStoreUrlError';
  readonly kind = 'usage';
}

/** True for `postgres://` and `postgresql://` URLs. */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/**
 * Parses a `postgres://` URL.
 * @throws InvalidStoreUrlError when it does not parse or its `schema` is not a plain lowercase
 *   identifier.
 */
export function parsePostgresUrl(url: string): PostgresUrl {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new InvalidStoreUrlError(
      `invalid PostgreSQL URL ${maskUrl(url)}: expected postgres://user@host:port/database`,
    );
  }
  if (!isPostgresUrl(url)) {
    throw new InvalidStoreUrlError(`invalid PostgreSQL URL ${maskUrl(url)}: expected postgres:// or postgresql://`);
  }
  const schema = u.searchParams.get('schema') ?? DEFAULT_PG_SCHEMA;
  if (!SCHEMA_RE.test(schema)) {
    throw new InvalidStoreUrlError(
      `invalid PostgreSQL URL ${maskUrl(url)}: schema ${JSON.stringify(schema)} must be a lowercase identifier (a-z, 0-9, _)`,
    );
  }
  u.searchParams.delete('schema');
  return { connectionString: u.toString(), schema, display: maskUrl(url) };
}

/**
 * The URL with its password (and any `password=` parameter) replaced by `***`; a string that
 * does not parse as a URL is cut to its scheme and host-ish part with credentials removed.
 */
export function maskUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    for (const key of [...u.searchParams.keys()]) {
      if (/pass/i.test(key)) u.searchParams.set(key, '***');
    }
    return u.toString().replace(/%2A%2A%2A/g, '***');
  } catch {
    return url
      .replace(/\/\/([^/@]*)@/, (_m, cred: string) => `//${cred.split(':')[0] ?? ''}:***@`)
      .replace(/(pass\w*=)[^&\s]*/gi, '$1***');
  }
}
