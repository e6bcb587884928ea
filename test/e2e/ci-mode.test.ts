/**
 * CI mode: `agent-runner -p … --output-format json` as a CI job runs it: no TTY (a new session,
 * pipes only), stdin closed, at /dev/null, or an open pipe nobody writes to. The process never
 * hangs, writes exactly one parseable result object and exits 0 (success), 1 (error result) or
 * 2 (usage error). Needs `npm run build`.
 */
import { spawn } from 'node:child_process';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { SDKResultMessage } from '../../src/common/sdk-messages';
import { firstUserText } from '../../src/fake-model/request';
import { makeRepo, startRunnerEnv, temporalAddress } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';

jest.setTimeout(90_000);

const BIN = join(__dirname, '..', '..', 'bin', 'agent-runner.js');

type Stdin = 'dev-null' | 'closed' | 'silent-pipe' | { input: string };

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * Runs the CLI with no controlling terminal (`detached`: a new session) and stdout/stderr pipes.
 * `closed` runs it through `sh -c 'exec node … <&-'` so file descriptor 0 is closed;
 * `silent-pipe` keeps stdin an open pipe that never receives a byte.
 */
function runCi(args: string[], env: NodeJS.ProcessEnv, stdin: Stdin, timeoutMs = 60_000): Promise<Run> {
  const started = Date.now();
  const [cmd, argv] =
    stdin === 'closed'
      ? ['/bin/sh', ['-c', 'exec "$0" "$@" <&-', process.execPath, BIN, ...args]]
      : [process.execPath, [BIN, ...args]];
  const child = spawn(cmd, argv as string[], {
    env,
    detached: true,
    stdio: [stdin === 'dev-null' || stdin === 'closed' ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  if (typeof stdin === 'object') child.stdin?.end(stdin.input);
  // 'silent-pipe': the pipe stays open (never written, never ended) until the child exits.
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`agent-runner ${args.join(' ')} hung (stdin ${JSON.stringify(stdin)})\n${stderr}`));
    }, timeoutMs);
    child.once('close', (code) => {
      clearTimeout(timer);
      child.stdin?.destroy();
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

function parseOnlyResult(stdout: string): SDKResultMessage {
  const lines = stdout.split('\n').filter((l) => l.trim() !== '');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] ?? '') as SDKResultMessage;
}

describe('CI mode (-p --output-format json without a TTY)', () => {
  let env: RunnerEnv;
  let repo: string;
  let ciEnv: NodeJS.ProcessEnv;
  beforeAll(async () => {
    env = await startRunnerEnv({
      responder: (req, ctx) => {
        const prompt = firstUserText(req);
        if (prompt.includes('loop')) {
          return { content: [{ tool_use: { name: 'Bash', input: { command: `echo ${ctx.step}` } } }] };
        }
        return { content: [{ text: `answer to: ${prompt.slice(0, 40)}` }] };
      },
    });
    repo = makeRepo({ 'README.md': '# repo\n' });
    ciEnv = {
      ...env.workerEnv,
      TEMPORAL_ADDRESS: temporalAddress(),
      AGENT_RUNNER_STDIN_TIMEOUT_MS: '1500',
      CI: 'true',
    };
  });
  afterAll(async () => env?.close());

  const base = (): string[] => ['-p', '--output-format', 'json', '--cwd', repo];

  test.each<[string, Stdin, string]>([
    ['stdin at /dev/null', 'dev-null', ''],
    ['stdin closed (fd 0 closed)', 'closed', ''],
    // As claude -p: a silent pipe is waited for (here 1.5 s, 3 s by default), then left with a warning.
    [
      'stdin an open pipe that never sends anything',
      'silent-pipe',
      'agent-runner: Warning: no stdin data received in 1.5s, proceeding without it. If piping from a slow command, redirect stdin explicitly: < /dev/null to skip, or wait longer.\n',
    ],
  ])('ci: the prompt as an argument with %s: exit 0 and one JSON result', async (_label, stdin, warning) => {
    const r = await runCi([...base(), 'summarize the repo'], ciEnv, stdin);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: warning });
    const result = parseOnlyResult(r.stdout);
    expect(result).toMatchObject({
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: 'answer to: summarize the repo',
    });
    expect(typeof result.session_id).toBe('string');
    expect(r.ms).toBeLessThan(30_000);
  });

  test('ci: the prompt piped on stdin (`git diff | agent-runner -p`) is read', async () => {
    const r = await runCi(base(), ciEnv, { input: 'review this diff\n' });
    expect(r.code).toBe(0);
    expect(parseOnlyResult(r.stdout)).toMatchObject({ subtype: 'success', result: 'answer to: review this diff' });
  });

  test('ci: a prompt argument with piped stdin (`cat app.log | agent-runner -p "summarize"`): stdin is appended', async () => {
    const r = await runCi([...base(), 'summarize'], ciEnv, { input: 'LOG: disk full\n' });
    expect(r.code).toBe(0);
    expect(parseOnlyResult(r.stdout)).toMatchObject({
      subtype: 'success',
      result: 'answer to: summarize\nLOG: disk full\n',
    });
  });

  test('ci: no prompt and an open silent stdin: exit 2 after the stdin timeout, nothing on stdout', async () => {
    const r = await runCi(base(), ciEnv, 'silent-pipe');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('nothing arrived on stdin within 1500 ms');
    expect(r.ms).toBeLessThan(15_000);
  });

  test.each<[string, Stdin]>([
    ['stdin at /dev/null', 'dev-null'],
    ['stdin closed', 'closed'],
  ])('ci: no prompt with %s: exit 2 at once', async (_label, stdin) => {
    const r = await runCi(base(), ciEnv, stdin);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('input must be provided either through stdin or as a prompt argument');
    expect(r.ms).toBeLessThan(15_000);
  });

  test('ci: an error result exits 1 with a parseable JSON result; jq fails the step as docs/ci.md does', async () => {
    const r = await runCi([...base(), '--max-turns', '2', 'loop on a command'], ciEnv, 'dev-null');
    expect(r.code).toBe(1);
    const result = parseOnlyResult(r.stdout);
    expect(result).toMatchObject({ type: 'result', subtype: 'error_max_turns', is_error: true, num_turns: 2 });
    // The check of docs/ci.md: fails on an error result and on an empty result file.
    const check = ['-s', '-e', 'length == 1 and .[0].type == "result" and .[0].is_error == false'];
    const jq = spawnSync('jq', check, { input: r.stdout, encoding: 'utf8' });
    if (jq.error) return; // no jq on this machine: the JSON checks above stand
    expect(jq.status).toBe(1);
    expect(spawnSync('jq', check, { input: '', encoding: 'utf8' }).status).not.toBe(0);
    const ok = await runCi([...base(), 'all fine?'], ciEnv, 'dev-null');
    expect(spawnSync('jq', check, { input: ok.stdout, encoding: 'utf8' }).status).toBe(0);
  });

  test('ci: a usage error exits 2 and prints no JSON', async () => {
    const r = await runCi([...base(), '--max-turns', 'zero', 'hello'], ciEnv, 'dev-null');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('--max-turns must be a positive integer');
  });
});
