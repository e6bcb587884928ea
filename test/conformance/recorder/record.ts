/**
 * Runs one recording scenario with one CLI against a fresh fake model server and captures all of
 * it: every HTTP request the CLI made (URL, headers, body), the stream on stdout, stderr, the exit
 * code, the repository afterwards, and the same again for a `--resume` run. The capture is raw;
 * normalise.ts turns it into a fixture.
 */
import { spawn } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { startFakeModelServer } from '../../../src/fake-model';
import { shortHash } from '../../../src/fake-model/request';
import type { ParsedRequest, StepSpec } from '../../../src/fake-model';
import { gitInit, RUNNER_BIN, withToolIds } from '../run';
import type { FixtureFile, RecordingScenario } from './scenario';
import { RECORDING_FILES, RECORDING_FLAGS } from './scenario';

/** The two programs a recording can run. */
export type RecordedSide = 'claude' | 'ours';

/** One `/v1/messages` (or provider model) request as the CLI sent it. */
export interface CapturedRequest {
  method: string;
  /** Path and query, e.g. `/v1/messages?beta=true`. */
  url: string;
  headers: IncomingHttpHeaders;
  body: ParsedRequest;
  /** `main` (a step of the scenario), `secondary` (another call), or `custom` (the scenario's `respond`). */
  route: 'main' | 'secondary' | 'custom';
}

/** Any HTTP request the CLI made (model calls included), in arrival order. */
export interface CapturedHttp {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The body as text ('' when none). */
  body: string;
}

/** What one process run did. */
export interface CapturedRun {
  args: string[];
  exitCode: number | null;
  stdout: string;
  stderr: string;
  requests: CapturedRequest[];
  http: CapturedHttp[];
  /** Events printed by the Agent SDK client (sdk-client.mjs), for `sdk` scenarios. */
  sdkEvents?: Array<Record<string, unknown>>;
  /** The arguments the Agent SDK started the CLI with, for `sdk` scenarios. */
  sdkArgv?: string[];
}

/** Everything a scenario run captured; paths let normalise.ts replace them. */
export interface Capture {
  side: RecordedSide;
  first: CapturedRun;
  resumed?: CapturedRun;
  /** Per variant id, the run (for `variants` scenarios). */
  variants?: Record<string, CapturedRun>;
  /** Repository files afterwards (relative path → UTF-8 text; binary files as `(binary N bytes)`). */
  files: Record<string, string>;
  paths: { root: string; repo: string; home: string; baseUrl: string; pagesUrl: string };
}

/** Where the CLIs are. */
export interface RecorderOptions {
  claudeBin: string;
  /** `sdk.mjs` of the pinned Agent SDK (for `sdk` scenarios). */
  sdkEntry?: string;
}

const SECONDARY_ANSWER: StepSpec = { content: [{ text: 'Secondary answer.' }] };

/** A request of the main conversation: it offers client tools (not only server tools such as web_search). */
export function isMainConversation(req: ParsedRequest): boolean {
  return (req.tools ?? []).some((t) => t['type'] === undefined || t['type'] === 'custom');
}

function writeFixtureFiles(base: string, files: Readonly<Record<string, FixtureFile>>, vars: Vars): void {
  for (const [rel, content] of Object.entries(files)) {
    const p = join(base, rel);
    mkdirSync(dirname(p), { recursive: true });
    if (typeof content === 'string') writeFileSync(p, fill(content, vars));
    else if ('base64' in content) writeFileSync(p, Buffer.from(content.base64, 'base64'));
    else {
      writeFileSync(p, fill(content.text, vars));
      chmodSync(p, content.mode);
    }
  }
}

interface Vars {
  repo: string;
  home: string;
  base: string;
  pages: string;
}

function fill(text: string, v: Vars): string {
  return text
    .split('{{repo}}')
    .join(v.repo)
    .split('{{home}}')
    .join(v.home)
    .split('{{base}}')
    .join(v.base)
    .split('{{base-host}}')
    .join(v.base.replace(/^https?:\/\//, ''))
    .split('{{pages}}')
    .join(v.pages);
}

/** Repository files, `.git` left out; non-UTF-8 files as `(binary N bytes)`. */
export function readTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    let names: string[] = [];
    try {
      names = readdirSync(d).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (name === '.git') continue;
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else {
        const buf = readFileSync(p);
        const text = buf.toString('utf8');
        out[relative(dir, p)] = Buffer.from(text, 'utf8').equals(buf) ? text : `(binary ${buf.length} bytes)`;
      }
    }
  };
  walk(dir);
  return out;
}

function runProcess(
  cmd: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number; stdin?: string[]; paced?: boolean },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const lines = [...(opts.stdin ?? [])];
    // Paced: one line, then the next after each result line; all at once otherwise.
    if (opts.paced === true) child.stdin.write(lines.shift() ?? '');
    else child.stdin.end(lines.join(''));
    let stdout = '';
    let stderr = '';
    let results = 0;
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      if (opts.paced !== true) return;
      const seen = stdout.split('\n').filter((l) => l.startsWith('{"') && l.includes('"type":"result"')).length;
      for (; results < seen; results++) {
        const next = lines.shift();
        if (next === undefined) child.stdin.end();
        else child.stdin.write(next);
      }
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      stderr += `\n[recorder] killed after ${opts.timeoutMs} ms\n`;
    }, opts.timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The test certificate of the pages server (test/fixtures/tls), trusted through `NODE_EXTRA_CA_CERTS`. */
const TLS_DIR = join(__dirname, '..', '..', 'fixtures', 'tls');
export const PAGES_CA_CERT = join(TLS_DIR, 'localhost-cert.pem');

/** Serves `pages` (for WebFetch, which upgrades http:// to https://) over HTTPS on a loopback port. */
async function startPages(
  pages: RecordingScenario['pages'],
): Promise<{ url: string; close: () => Promise<void>; hits: string[] }> {
  const hits: string[] = [];
  const tls = { cert: readFileSync(PAGES_CA_CERT), key: readFileSync(join(TLS_DIR, 'localhost-key.pem')) };
  const server = createServer(tls, (req, res) => {
    hits.push(`${req.method ?? 'GET'} ${req.url ?? '/'}`);
    const page = pages?.[new URL(req.url ?? '/', 'http://x').pathname];
    if (!page) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': page.contentType }).end(page.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    hits,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/**
 * A directory of links to every command on `path` but `hidden` (the first of each name wins, as
 * PATH lookup does); returns the PATH to use instead.
 */
function pathWithout(path: string, hidden: readonly string[], dir: string): string {
  mkdirSync(dir, { recursive: true });
  const seen = new Set(hidden);
  for (const d of path.split(':')) {
    let names: string[] = [];
    try {
      names = readdirSync(d);
    } catch {
      continue;
    }
    for (const name of names) {
      if (seen.has(name)) continue;
      seen.add(name);
      symlinkSync(join(d, name), join(dir, name));
    }
  }
  return dir;
}

/** The environment of a run: offline, a throwaway HOME, the fake model as the API. */
export function recordingEnv(s: RecordingScenario, vars: Vars, side: RecordedSide, root: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: vars.home,
    LANG: 'C.UTF-8',
    // Claude Code writes today's date (local time) into the context; UTC keeps it the normalised one.
    TZ: 'UTC',
    ANTHROPIC_BASE_URL: vars.base,
    ANTHROPIC_API_KEY: 'conformance-dummy-key',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    // Trusts the pages server's test certificate (WebFetch).
    NODE_EXTRA_CA_CERTS: PAGES_CA_CERT,
  };
  for (const k of s.unsetEnv ?? []) delete env[k];
  for (const [k, v] of Object.entries(s.env ?? {})) env[k] = fill(v, vars);
  if (s.hideCommands) env['PATH'] = pathWithout(env['PATH'] ?? '', s.hideCommands, join(root, 'path-without'));
  if (side === 'ours') {
    env['AGENT_RUNNER_DATA_DIR'] = join(root, 'runner-data');
    // The runner finds the project's Temporal CLI itself (TEMPORAL_CLI_PATH, PATH, then .temporal/).
    if (process.env['TEMPORAL_CLI_PATH']) env['TEMPORAL_CLI_PATH'] = process.env['TEMPORAL_CLI_PATH'];
  }
  return env;
}

function stdinLines(lines: readonly unknown[] | undefined, vars: Vars): string[] | undefined {
  return lines?.map((l) => `${fill(JSON.stringify(l), vars)}\n`);
}

/**
 * Runs the scenario with one CLI and captures it. The root directory is
 * `<tmpdir>/ccrec-XXXXXX` (a fixed length, so token estimates that depend on path lengths are the
 * same on every run); it is removed afterwards unless `RECORD_KEEP` is set.
 */
export async function recordScenario(
  s: RecordingScenario,
  side: RecordedSide,
  opts: RecorderOptions,
): Promise<Capture> {
  // Recording: a fixed directory per scenario, so that paths split across stream chunks are the
  // same on every run; a run of the runner: a fresh one of the same length.
  const root =
    side === 'claude' ? join(tmpdir(), `ccrec-${shortHash(s.name, 6)}`) : mkdtempSync(join(tmpdir(), 'ccrec-'));
  if (side === 'claude') {
    rmSync(root, { recursive: true, force: true });
    mkdirSync(root, { recursive: true });
  }
  const repo = join(root, 'repo');
  const home = join(root, 'home');
  // Filled once the servers' addresses are known (`{{pages}}`, `{{base}}`, `{{repo}}` in inputs).
  let steps = withToolIds(s.steps);
  let current: { requests: CapturedRequest[]; http: CapturedHttp[] } = { requests: [], http: [] };
  const model = await startFakeModelServer({
    ...(s.providerAuth ? { providerAuth: s.providerAuth } : {}),
    onHttpRequest: (req: IncomingMessage) => {
      const entry: CapturedHttp = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body: '' };
      current.http.push(entry);
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => (entry.body = Buffer.concat(chunks).toString('utf8')));
    },
    responder: (req, ctx) => {
      const custom = s.respond?.(req, ctx);
      const main = isMainConversation(req);
      const route = custom ? 'custom' : main ? 'main' : 'secondary';
      current.requests.push({
        method: 'POST',
        url: ctx.url ?? '/v1/messages',
        headers: ctx.headers ?? {},
        // As sent (a Bedrock or Vertex body has no model; the fake model adds it from the path).
        body: JSON.parse(JSON.stringify(ctx.rawBody ?? req)) as ParsedRequest,
        route,
      });
      if (custom) return custom;
      if (!main) return SECONDARY_ANSWER;
      const step = steps[ctx.step];
      if (!step) throw new Error(`recording ${s.name} has no step ${ctx.step}`);
      return step;
    },
  });
  const pages = await startPages(s.pages);
  const vars: Vars = { repo, home, base: model.baseUrl, pages: pages.url };
  steps = JSON.parse(fill(JSON.stringify(steps), vars)) as StepSpec[];
  try {
    writeFixtureFiles(repo, s.files ?? RECORDING_FILES, vars);
    mkdirSync(home, { recursive: true });
    writeFixtureFiles(home, s.homeFiles ?? {}, vars);
    if (s.git) gitInit(repo);
    const env = recordingEnv(s, vars, side, root);
    const timeoutMs = s.timeoutMs ?? 90_000;

    const runOnce = async (
      prompt: string | undefined,
      stdin: readonly unknown[] | undefined,
      extra: readonly string[],
      runEnv: NodeJS.ProcessEnv,
    ): Promise<CapturedRun> => {
      current = { requests: [], http: [] };
      const input = stdin ? ['-p', '--input-format', 'stream-json'] : ['-p', fill(prompt ?? 'Do the task.', vars)];
      const args = [...input, ...(s.flags ?? RECORDING_FLAGS), ...extra.map((a) => fill(a, vars))];
      const [cmd, argv] = side === 'claude' ? [opts.claudeBin, args] : [process.execPath, [RUNNER_BIN, ...args]];
      const lines = stdinLines(stdin, vars);
      const r = await runProcess(cmd, argv, {
        cwd: repo,
        env: runEnv,
        timeoutMs,
        ...(lines ? { stdin: lines, paced: s.stdinPaced === true } : {}),
      });
      // Let the `end` handlers of the last bodies run.
      await new Promise((res) => setImmediate(res));
      return { args, exitCode: r.code, stdout: r.stdout, stderr: r.stderr, ...current };
    };

    const runSdk = async (extraOptions: Record<string, unknown> = {}, runEnv = env): Promise<CapturedRun> => {
      if (!s.sdk || !opts.sdkEntry) throw new Error(`recording ${s.name}: an sdk run needs the Agent SDK`);
      current = { requests: [], http: [] };
      // A wrapper that notes the arguments the SDK gives the CLI, then runs it.
      const argvFile = join(root, 'sdk-argv.bin');
      const wrapper = join(root, side === 'claude' ? 'claude-wrapper.sh' : 'runner-wrapper.sh');
      const target = side === 'claude' ? `exec '${opts.claudeBin}'` : `exec '${process.execPath}' '${RUNNER_BIN}'`;
      writeFileSync(wrapper, `#!/bin/sh\nprintf '%s\\0' "$@" > '${argvFile}'\n${target} "$@"\n`);
      chmodSync(wrapper, 0o755);
      const config = {
        sdkEntry: opts.sdkEntry,
        prompts: s.sdk.prompts.map((p) => fill(p, vars)),
        ...(s.sdk.canUseTool
          ? { canUseTool: JSON.parse(fill(JSON.stringify(s.sdk.canUseTool), vars)) as unknown }
          : {}),
        options: {
          pathToClaudeCodeExecutable: wrapper,
          cwd: repo,
          env: runEnv,
          ...(JSON.parse(fill(JSON.stringify({ ...s.sdk.options, ...extraOptions }), vars)) as Record<string, unknown>),
        },
      };
      const client = join(__dirname, '..', 'sdk-client.mjs');
      const r = await runProcess(process.execPath, [client, JSON.stringify(config)], {
        cwd: repo,
        env: process.env,
        timeoutMs,
      });
      await new Promise((res) => setImmediate(res));
      const sdkEvents = r.stdout
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const stdout = sdkEvents
        .filter((e) => e['event'] === 'message')
        .map((e) => `${JSON.stringify(e['message'])}\n`)
        .join('');
      let sdkArgv: string[] = [];
      try {
        sdkArgv = readFileSync(argvFile, 'utf8').split('\0').slice(0, -1);
      } catch {
        sdkArgv = [];
      }
      return {
        args: ['(Agent SDK query())'],
        exitCode: r.code,
        stdout,
        stderr: r.stderr,
        ...current,
        sdkEvents,
        sdkArgv,
      };
    };

    let first: CapturedRun;
    let variants: Record<string, CapturedRun> | undefined;
    if (s.variants) {
      variants = {};
      for (const v of s.variants) {
        const vEnv = { ...env };
        for (const k of v.unsetEnv ?? []) delete vEnv[k];
        for (const [k, val] of Object.entries(v.env ?? {})) vEnv[k] = fill(val, vars);
        variants[v.id] = s.sdk
          ? await runSdk(v.sdkOptions, vEnv)
          : await runOnce(s.prompt, s.stdin, [...(s.args ?? []), ...(v.args ?? [])], vEnv);
      }
      first = Object.values(variants)[0] as CapturedRun;
    } else if (s.sdk) {
      first = await runSdk();
    } else {
      first = await runOnce(s.prompt, s.stdin, s.args ?? [], env);
    }
    let resumed: CapturedRun | undefined;
    if (s.resume) {
      const sessionId = sessionIdOf(first.stdout);
      const how = s.resume.continue ? ['--continue'] : ['--resume', sessionId];
      resumed = await runOnce(s.resume.prompt, s.resume.stdin, [...how, ...s.resume.args], env);
    }
    return {
      side,
      first,
      ...(resumed ? { resumed } : {}),
      ...(variants ? { variants } : {}),
      files: readTree(repo),
      paths: { root, repo, home, baseUrl: model.baseUrl, pagesUrl: pages.url },
    };
  } finally {
    await model.close();
    await pages.close();
    if (!process.env['RECORD_KEEP']) rmSync(root, { recursive: true, force: true });
  }
}

/** The session id of a run (its result line, else its init line); '' when none. */
export function sessionIdOf(stdout: string): string {
  let id = '';
  for (const line of stdout.split('\n')) {
    try {
      const m = JSON.parse(line) as Record<string, unknown>;
      if (typeof m['session_id'] === 'string' && (id === '' || m['type'] === 'result')) id = m['session_id'];
    } catch {
      // not a JSON line
    }
  }
  return id;
}
