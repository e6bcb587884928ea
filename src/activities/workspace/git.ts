/**
 * Running git: plumbing commands with their exit status, output and a clear error. Every command
 * gets {@link safeGitEnvironment}: no secrets, and no program from the repository's config runs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough, type Readable } from 'node:stream';
import { safeGitEnvironment } from '../../env/git-env';

/** Thrown when a git command fails; the message has the command and git's stderr. */
export class GitError extends Error {
  override readonly name = 'GitError';
  constructor(
    readonly args: readonly string[],
    readonly code: number | null,
    readonly stderr: string,
  ) {
    super(
      `git ${args.join(' ')} failed (${code === null ? 'killed' : `exit ${code}`}): ${stderr.trim().slice(0, 2000)}`,
    );
  }
}

/** Options of {@link git}. */
export interface GitOptions {
  cwd: string;
  /** Extra environment (e.g. `GIT_INDEX_FILE`). */
  env?: NodeJS.ProcessEnv;
  /** Bytes for stdin. */
  input?: Buffer | string | AsyncIterable<Buffer>;
  /** Exit codes that are not errors (e.g. 1 for "not found"). */
  okCodes?: number[];
}

/**
 * Runs `git args` and resolves with its stdout.
 * @throws GitError on a non-zero exit not listed in `okCodes`.
 */
export async function git(args: string[], opts: GitOptions): Promise<{ stdout: Buffer; code: number }> {
  const env = await safeGitEnvironment(opts.cwd, opts.env);
  const child = spawn('git', args, { cwd: opts.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.on('error', () => undefined); // git may exit before reading all of stdin
  const out: Buffer[] = [];
  let err = '';
  child.stdout.on('data', (c: Buffer) => out.push(c));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const done = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve(code));
  });
  await feed(child.stdin, opts.input);
  const code = await done;
  if (code !== 0 && !(code !== null && opts.okCodes?.includes(code))) throw new GitError(args, code, err);
  return { stdout: Buffer.concat(out), code: code ?? -1 };
}

/** `git args` → trimmed stdout text. */
export async function gitText(args: string[], opts: GitOptions): Promise<string> {
  return (await git(args, opts)).stdout.toString('utf8').trim();
}

/**
 * Runs `git args` and yields its stdout as a stream (for packs and bundles of many MiB); the
 * returned `done` rejects with a GitError when git fails.
 */
export function gitStream(
  args: string[],
  opts: GitOptions,
): { stdout: Readable; done: Promise<void>; kill: () => void } {
  // Piped at once: Node discards the unread output of a child that has exited (flushStdio), so
  // a consumer that starts reading a little later would get nothing.
  const stdout = new PassThrough();
  let child: ChildProcess | undefined;
  let killed = false;
  const done = safeGitEnvironment(opts.cwd, opts.env).then(
    (env) =>
      new Promise<void>((resolve, reject) => {
        if (killed) {
          stdout.end();
          return reject(new GitError(args, null, 'killed before it started'));
        }
        const c = spawn('git', args, { cwd: opts.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
        child = c;
        c.stdin.on('error', () => undefined);
        let err = '';
        c.stderr.on('data', (d: Buffer) => (err += d.toString()));
        c.once('error', reject);
        c.once('close', (code) => (code === 0 ? resolve() : reject(new GitError(args, code, err))));
        void feed(c.stdin, opts.input).catch(() => undefined);
        c.stdout.pipe(stdout);
      }),
  );
  done.catch(() => undefined); // a caller that kills the command need not wait for it
  return {
    stdout,
    done,
    kill: () => {
      killed = true;
      child?.kill('SIGKILL');
      // Output no one reads would keep the child's stdout from ending, and `close` (so `done`)
      // from ever coming: a caller that stopped reading (a pack over the limit) would hang on it.
      child?.stdout?.destroy();
      stdout.destroy();
    },
  };
}

async function feed(stdin: NodeJS.WritableStream, input: GitOptions['input']): Promise<void> {
  if (input === undefined) {
    stdin.end();
    return;
  }
  if (typeof input === 'string' || Buffer.isBuffer(input)) {
    stdin.end(input);
    return;
  }
  try {
    for await (const chunk of input) {
      if (!stdin.write(chunk)) await new Promise<void>((r) => stdin.once('drain', () => r()));
    }
  } finally {
    stdin.end();
  }
}
