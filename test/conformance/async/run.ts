/**
 * Runs one asynchronous-tools scenario with one program (the real `claude -p`, or
 * `agent-runner -p`) against a scripted model that routes each request to its conversation by
 * marker, and records everything: each request body with its arrival time, each stdout line with
 * its time, the exit code, stderr, the task output files and the repository afterwards. The run
 * lasts as long as the program keeps itself alive (background work included), up to a timeout.
 */
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import type { MarkedScript, ParsedRequest } from '../../../src/fake-model';
import { routeByMarker, startFakeModelServer } from '../../../src/fake-model';
import { findTemporalCli } from '../../../src/host/dev-server';
import { CLAUDE_CODE_VERSION } from '../install';
import type { Side, StreamMessage } from '../run';
import { RUNNER_BIN, baseEnv, createRepo, gitInit, snapshotRepo } from '../run';
import type { RecordedRequest, Recording } from './recording';
import type { AsyncScenario } from './scenario';
import { ASYNC_FLAGS, marker } from './scenario';

/** The temp paths of one run (normalised away in recordings). */
export interface RunPaths {
  root: string;
  repo: string;
  home: string;
  /** `CLAUDE_CODE_TMPDIR` and `TMPDIR` of the run. */
  tmp: string;
}

/** A run before normalisation, with its paths. */
export interface RawRun {
  recording: Recording;
  paths: RunPaths;
}

/** Options of {@link runAsync}. */
export interface RunAsyncOptions {
  /** The `claude` executable (for side `claude`). */
  claudeBin?: string;
  /** Keep the run's folder (repository, HOME, temp files) for inspection. @default false */
  keep?: boolean;
}

const round = (ms: number): number => Math.round(ms / 100) * 100;

/** The argv after the program: `-p <prompt>` and the scenario's flags. */
export function scenarioArgs(s: AsyncScenario): string[] {
  return ['-p', `${marker('main')} ${s.prompt ?? 'Do the task.'}`, ...(s.flags ?? ASYNC_FLAGS), ...(s.args ?? [])];
}

/** The scripted conversations of a scenario, `main` first. */
export function scenarioScripts(s: AsyncScenario): MarkedScript[] {
  const names = ['main', ...Object.keys(s.agents).filter((n) => n !== 'main')];
  return names.map((n) => ({ marker: marker(n), steps: s.agents[n] ?? [] }));
}

function collectTaskOutputs(tmp: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    let names: string[] = [];
    try {
      names = readdirSync(d).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const p = join(d, name);
      let st;
      try {
        st = statSync(p);
      } catch {
        continue; // a dangling symlink
      }
      if (st.isDirectory()) walk(p);
      else if (name.endsWith('.output')) out[relative(tmp, p)] = readFileSync(p, 'utf8').slice(0, 4096);
    }
  };
  walk(tmp);
  return out;
}

function writeFiles(base: string, files: Readonly<Record<string, string>>, repo: string): void {
  for (const [rel, content] of Object.entries(files)) {
    const p = join(base, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, content.split('{{repo}}').join(repo));
  }
}

/**
 * Runs scenario `s` with one program and returns what happened (not normalised).
 * @throws Error when the program cannot be started
 */
export async function runAsync(s: AsyncScenario, side: Side, opts: RunAsyncOptions = {}): Promise<RawRun> {
  // A fixed-length root, so prompts (and token counts) have the same size in every run.
  const root = mkdtempSync(join(tmpdir(), 'conformance-async-'));
  const paths: RunPaths = { root, repo: join(root, 'repo'), home: join(root, 'home'), tmp: join(root, 'tmp') };
  const requests: RecordedRequest[] = [];
  let started = Date.now();
  const server = await startFakeModelServer({
    responder: routeByMarker(scenarioScripts(s), {
      onRoute: (req, ctx) => {
        const route = ctx.script.startsWith('[as:') ? ctx.script.slice(4, -1) : ctx.script;
        requests.push({
          seq: requests.length + 1,
          atMs: round(Date.now() - started),
          route,
          step: ctx.scriptStep,
          body: JSON.parse(JSON.stringify(req)) as ParsedRequest,
        });
      },
    }),
  });
  try {
    createRepo(paths.repo, {});
    writeFiles(paths.repo, s.files ?? { 'a.txt': 'one\ntwo\nthree\n' }, paths.repo);
    if (s.git) gitInit(paths.repo);
    mkdirSync(paths.home, { recursive: true });
    mkdirSync(paths.tmp, { recursive: true });
    writeFiles(paths.home, s.homeFiles ?? {}, paths.repo);
    const env: NodeJS.ProcessEnv = { ...baseEnv(paths.home, server.baseUrl), TMPDIR: paths.tmp };
    delete env['CLAUDE_CODE_DISABLE_BACKGROUND_TASKS'];
    env['CLAUDE_CODE_TMPDIR'] = paths.tmp;
    Object.assign(env, s.env ?? {});
    if (side === 'ours') {
      env['AGENT_RUNNER_DATA_DIR'] = join(root, 'runner-data');
      env['TEMPORAL_CLI_PATH'] = findTemporalCli();
    }
    const argv = scenarioArgs(s);
    if (side === 'claude' && !opts.claudeBin) throw new Error('runAsync: claudeBin is required for side claude');
    const [cmd, args] = side === 'claude' ? [opts.claudeBin!, argv] : [process.execPath, [RUNNER_BIN, ...argv]];
    started = Date.now();
    const proc = await new Promise<{
      code: number | null;
      signal: string | null;
      lines: Array<{ atMs: number; line: string }>;
      stderr: string;
    }>((resolve, reject) => {
      const child = spawn(cmd, args, { cwd: paths.repo, env, stdio: ['ignore', 'pipe', 'pipe'] });
      const lines: Array<{ atMs: number; line: string }> = [];
      let partial = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        const parts = (partial + d).split('\n');
        partial = parts.pop() ?? '';
        for (const line of parts) if (line.trim() !== '') lines.push({ atMs: round(Date.now() - started), line });
      });
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), s.timeoutMs ?? 120_000);
      child.once('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        if (partial.trim() !== '') lines.push({ atMs: round(Date.now() - started), line: partial });
        resolve({ code, signal, lines, stderr });
      });
    });
    const stream: StreamMessage[] = [];
    const streamTimesMs: number[] = [];
    const strayLines: string[] = [];
    for (const { atMs, line } of proc.lines) {
      try {
        const v: unknown = JSON.parse(line);
        if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
          stream.push(v as StreamMessage);
          streamTimesMs.push(atMs);
          continue;
        }
      } catch {
        // not JSON
      }
      strayLines.push(line);
    }
    const recording: Recording = {
      meta: {
        scenario: s.name,
        title: s.title,
        side,
        version: side === 'claude' ? CLAUDE_CODE_VERSION : 'agent-runner',
        argv,
        env: { ...(s.env ?? {}) },
        exitCode: proc.code,
        signal: proc.signal,
        durationMs: round(Date.now() - started),
        streamTimesMs,
        strayLines,
        stderr: proc.stderr,
        taskOutputs: collectTaskOutputs(paths.tmp),
        files: existsSync(paths.repo) ? snapshotRepo(paths.repo) : {},
      },
      requests,
      stream,
    };
    return { recording, paths };
  } finally {
    await server.close();
    if (!opts.keep) rmSync(root, { recursive: true, force: true });
  }
}
