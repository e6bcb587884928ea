import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import * as readline from 'node:readline';
import type { EmbeddedPostgresServer } from '../../src/store/postgres/embedded-server';

/**
 * An embedded PostgreSQL server in a child process, which a test can stop and start again: the
 * same interface as the in-process one.
 */
export type PostgresProcess = EmbeddedPostgresServer;

const CHILD = path.join(__dirname, 'postgres-server-child.js');

/** Starts an embedded PostgreSQL server (from the built dist/) in a child process. */
export async function startPostgresProcess(): Promise<PostgresProcess> {
  const proc: ChildProcess = spawn(process.execPath, [CHILD], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const lines = readline.createInterface({ input: proc.stdout! });
  const waiting: Array<{ resolve: (line: string) => void; reject: (err: Error) => void }> = [];
  const early: string[] = [];
  let exited: Error | null = null;
  lines.on('line', (l) => {
    const w = waiting.shift();
    if (w) w.resolve(l);
    else early.push(l);
  });
  proc.once('exit', (code) => {
    exited = new Error(`postgres child exited (${code}): ${stderr}`);
    for (const w of waiting.splice(0)) w.reject(exited);
  });
  const next = (): Promise<string> =>
    new Promise((resolve, reject) => {
      const l = early.shift();
      if (l !== undefined) return resolve(l);
      if (exited) return reject(exited);
      waiting.push({ resolve, reject });
    });
  const first = JSON.parse(await next()) as { url: string; port: number };
  const command = async (cmd: string): Promise<string> => {
    proc.stdin?.write(`${cmd}\n`);
    const out = await next();
    if (out.startsWith('error')) throw new Error(`postgres child: ${out}`);
    return out;
  };
  return {
    ...first,
    async createDatabase(name) {
      const url = (await command(`createdb ${name}`)).replace(/^url /, '');
      await next(); // ok createdb
      return url;
    },
    async halt() {
      await command('halt');
    },
    async restart() {
      await command('restart');
    },
    async stop() {
      if (proc.exitCode !== null) return;
      await command('stop').catch(() => undefined);
    },
  };
}
