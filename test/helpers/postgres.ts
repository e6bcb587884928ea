import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** Admin URL of the PostgreSQL server started by the global setup. */
export function postgresAdminUrl(): string {
  const url = process.env['TEST_POSTGRES_URL'];
  if (!url) throw new Error('TEST_POSTGRES_URL is not set: run tests through jest (global setup starts PostgreSQL)');
  return url;
}

/** A store URL on the test server with a fresh schema name (the store creates it when it migrates). */
export function freshSchemaUrl(prefix = 't'): { url: string; schema: string } {
  const schema = `${prefix}_${randomBytes(6).toString('hex')}`;
  const u = new URL(postgresAdminUrl());
  u.searchParams.set('schema', schema);
  return { url: u.toString(), schema };
}

/** A fresh database on the test server; returns its URL. */
export async function freshDatabaseUrl(prefix = 'test'): Promise<string> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await sql(`CREATE DATABASE ${name}`);
  const u = new URL(postgresAdminUrl());
  u.pathname = `/${name}`;
  return u.toString();
}

/** Runs one statement on the test server (admin database, or the database of `url`). */
export async function sql<R extends Record<string, unknown> = Record<string, unknown>>(
  text: string,
  params: unknown[] = [],
  url = postgresAdminUrl(),
): Promise<R[]> {
  const u = new URL(url);
  u.searchParams.delete('schema');
  const c = new Client({ connectionString: u.toString() });
  await c.connect();
  try {
    return (await c.query<R>(text, params)).rows;
  } finally {
    await c.end();
  }
}
