/**
 * Runs one scenario with the real `claude -p` and with `agent-runner -p`: the same repository
 * (created afresh at the same path for each run), the same flags, the same scripted model.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { startFakeModelServer } from '../../src/fake-model';
import type { FakeModelServer, ParsedRequest, StepSpec } from '../../src/fake-model';
import { firstUserText } from '../../src/fake-model/request';
import { findTemporalCli } from '../../src/worker/dev-server';
import { REPO_ROOT } from './install';
import type { ConformanceScenario } from './scenarios';
import { DEFAULT_FILES } from './scenarios';

/** The two programs compared. */
export type Side = 'claude' | 'ours';

/** `agent-runner`'s entry point (built by `npm run build`). */
export const RUNNER_BIN = join(REPO_ROOT, 'bin', 'agent-runner.js');

/** Tools both CLIs get, in the order of `--tools`. */
export const TOOLS = ['Read', 'Write', 'Edit', 'Bash', 'Glob', 'Grep'] as const;

/** Flags given to both CLIs in every scenario (before the scenario's own). */
export const COMMON_FLAGS: readonly string[] = [
  '--output-format',
  'stream-json',
  '--verbose',
  '--permission-mode',
  'acceptEdits',
  '--allowedTools',
  TOOLS.join(','),
  '--tools',
  TOOLS.join(','),
  '--model',
  'claude-sonnet-5-5',
];

/** A stream-json line, parsed. */
export type StreamMessage = Record<string, unknown>;

/** What one CLI did in one scenario. */
export interface SideRun {
  side: Side;
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** stdout lines that parsed as JSON objects. */
  messages: StreamMessage[];
  /** stdout lines that did not. */
  strayLines: string[];
  /** Requests the scripted model received, in arrival order. */
  requests: ParsedRequest[];
  /** The repository afterwards: relative path → content. */
  files: Record<string, string>;
  durationMs: number;
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p);
    newest = Math.max(newest, st.isDirectory() ? newestMtime(p) : st.mtimeMs);
  }
  return newest;
}

/** Builds the runner (`npm run build`) when dist/ is missing or older than src/. */
export function ensureRunnerBuilt(): void {
  const entry = join(REPO_ROOT, 'dist', 'src', 'cli', 'main.js');
  let built = 0;
  try {
    built = statSync(entry).mtimeMs;
  } catch {
    built = 0;
  }
  if (built > newestMtime(join(REPO_ROOT, 'src'))) return;
  const r = spawnSync('npm', ['run', 'build'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 5 * 60_000 });
  if (r.status !== 0) throw new Error(`npm run build failed:\n${r.stdout}\n${r.stderr}`);
}

/** Marker in the prompt that tells the scripted model which scenario it plays. */
export function promptFor(s: ConformanceScenario): string {
  return `[conformance:${s.name}] Do the task.`;
}

/** Steps with explicit tool-use ids (`toolu_conf_<step>_<block>`), identical for both runs. */
export function withToolIds(steps: readonly StepSpec[]): StepSpec[] {
  return steps.map((step, si) => ({
    ...step,
    content: (step.content ?? []).map((c, ci) => {
      const id = `toolu_conf_${si}_${ci}`;
      if (c.tool_use) return { tool_use: { ...c.tool_use, id } };
      if (c.raw_tool_use) return { raw_tool_use: { ...c.raw_tool_use, id } };
      return c;
    }),
  }));
}

/** The scripted model for all scenarios, recording every request it gets. */
export interface ScriptedModel {
  server: FakeModelServer;
  requests: ParsedRequest[];
  close(): Promise<void>;
}

/** Starts one fake model server that plays every scenario (chosen by the prompt's marker). */
export async function startScriptedModel(scenarios: readonly ConformanceScenario[]): Promise<ScriptedModel> {
  const byName = new Map(scenarios.map((s) => [s.name, withToolIds(s.steps)]));
  const requests: ParsedRequest[] = [];
  const server = await startFakeModelServer({
    responder: (req, ctx) => {
      requests.push(JSON.parse(JSON.stringify(req)) as ParsedRequest);
      const name = /\[conformance:([\w-]+)\]/.exec(firstUserText(req))?.[1];
      const steps = name === undefined ? undefined : byName.get(name);
      if (!steps) throw new Error(`no conformance scenario named in the prompt: ${firstUserText(req).slice(-200)}`);
      const step = steps[ctx.step];
      if (!step) throw new Error(`scenario ${name} has no step ${ctx.step}`);
      return step;
    },
  });
  return { server, requests, close: () => server.close() };
}

/**
 * Writes the scenario's files under `dir`, with distinct modification times in an order that is
 * neither alphabetical nor its reverse (files sort by their reversed path), so that the order of
 * Glob and Grep results shows whether it follows names or times.
 */
export function createRepo(dir: string, files: Readonly<Record<string, string>>): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const base = Date.UTC(2024, 0, 1) / 1000;
  const reversed = (p: string): string => [...p].reverse().join('');
  const byAge = Object.keys(files).sort((a, b) => (reversed(a) < reversed(b) ? -1 : 1));
  for (const [rel, content] of Object.entries(files)) {
    const p = join(dir, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, content);
    const t = base + byAge.indexOf(rel) * 3600;
    utimesSync(p, t, t);
  }
}

/** All files under `dir` (relative path → UTF-8 content). */
export function snapshotRepo(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(dir, p)] = readFileSync(p, 'utf8');
    }
  };
  walk(dir);
  return out;
}

/** Options of {@link runScenario}. */
export interface RunOptions {
  claudeBin: string;
  model: ScriptedModel;
  /** Per-run timeout, ms. @default 120000 */
  timeoutMs?: number;
}

function runProcess(
  cmd: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${cmd} ${args.join(' ')} timed out after ${opts.timeoutMs} ms\n${stdout}\n${stderr}`));
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

function parseLines(stdout: string): { messages: StreamMessage[]; strayLines: string[] } {
  const messages: StreamMessage[] = [];
  const strayLines: string[] = [];
  for (const line of stdout.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const v: unknown = JSON.parse(line);
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) messages.push(v as StreamMessage);
      else strayLines.push(line);
    } catch {
      strayLines.push(line);
    }
  }
  return { messages, strayLines };
}

/**
 * Environment of both runs: offline, a throwaway HOME, the scripted model as the API. Claude
 * Code's background tasks are off because the runner has none (a timed-out command is killed).
 */
export function baseEnv(home: string, baseUrl: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: home,
    LANG: 'C.UTF-8',
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: 'conformance-dummy-key',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    CLAUDE_CODE_DISABLE_BACKGROUND_TASKS: '1',
  };
}

/**
 * Runs the scenario with both CLIs, one after the other, in a repository created afresh at the
 * same path each time (so paths in outputs are comparable as they are).
 */
export async function runScenario(s: ConformanceScenario, opts: RunOptions): Promise<Record<Side, SideRun>> {
  const root = mkdtempSync(join(tmpdir(), `conformance-${s.name}-`));
  const repo = join(root, 'repo');
  const temporalCli = findTemporalCli();
  const args = ['-p', promptFor(s), ...(s.flags ?? COMMON_FLAGS), ...(s.args ?? [])];
  const out = {} as Record<Side, SideRun>;
  try {
    for (const side of ['claude', 'ours'] as const) {
      createRepo(repo, s.files ?? DEFAULT_FILES);
      const home = join(root, `home-${side}`);
      mkdirSync(home, { recursive: true });
      for (const [rel, content] of Object.entries(s.homeFiles ?? {})) {
        mkdirSync(dirname(join(home, rel)), { recursive: true });
        writeFileSync(join(home, rel), content.split('{{repo}}').join(repo));
      }
      const env = baseEnv(home, opts.model.server.baseUrl);
      if (side === 'ours') {
        env['AGENT_RUNNER_DATA_DIR'] = join(root, 'runner-data');
        env['TEMPORAL_CLI_PATH'] = temporalCli;
      }
      const [cmd, argv] = side === 'claude' ? [opts.claudeBin, args] : [process.execPath, [RUNNER_BIN, ...args]];
      const firstRequest = opts.model.requests.length;
      const started = Date.now();
      const r = await runProcess(cmd, argv, { cwd: repo, env, timeoutMs: opts.timeoutMs ?? 120_000 });
      out[side] = {
        side,
        exitCode: r.code,
        stdout: r.stdout,
        stderr: r.stderr,
        ...parseLines(r.stdout),
        requests: opts.model.requests.slice(firstRequest),
        files: snapshotRepo(repo),
        durationMs: Date.now() - started,
      };
      if (process.env['CONFORMANCE_KEEP']) cpSync(repo, join(root, `repo-after-${side}`), { recursive: true });
    }
  } finally {
    // CONFORMANCE_KEEP=1 keeps the folder (both repositories, HOMEs, the runner's data) to inspect.
    if (!process.env['CONFORMANCE_KEEP']) rmSync(root, { recursive: true, force: true });
  }
  return out;
}
