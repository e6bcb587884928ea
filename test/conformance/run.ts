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
import { findTemporalCli } from '../../src/host/dev-server';
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
  /** The scenario's `homeAfter` files of HOME afterwards: relative path → content (absent when missing). */
  homeFiles?: Record<string, string>;
  durationMs: number;
  /** The scenario's second run (`resume`), when it has one. */
  resumed?: ResumedRun;
  /** Paths that differ between the sides and mean the same: this side's repository and HOME. */
  paths: { repo: string; home: string };
}

/** What the second run (`--resume …`) of a scenario did. */
export interface ResumedRun {
  exitCode: number | null;
  stderr: string;
  messages: StreamMessage[];
  strayLines: string[];
  requests: ParsedRequest[];
  /** Session id of the first run. */
  firstSessionId: string;
  /** Session id the second run reported. */
  sessionId: string;
  /** The first run's transcript is byte-identical after the second run. */
  firstTranscriptUnchanged: boolean;
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

/** Makes `dir` a git repository with one commit of its files, identical on every run (fixed author and dates). */
export function gitInit(dir: string): void {
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'Conformance',
    GIT_AUTHOR_EMAIL: 'conformance@example.com',
    GIT_COMMITTER_NAME: 'Conformance',
    GIT_COMMITTER_EMAIL: 'conformance@example.com',
    GIT_AUTHOR_DATE: '2024-01-01T00:00:00Z',
    GIT_COMMITTER_DATE: '2024-01-01T00:00:00Z',
  };
  for (const args of [
    ['init', '-q', '-b', 'main'],
    ['add', '-A'],
    ['commit', '-q', '-m', 'initial'],
  ]) {
    const r = spawnSync('git', args, { cwd: dir, env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
  }
}

/** All files under `dir` (relative path → UTF-8 content), `.git` left out. */
export function snapshotRepo(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      if (name === '.git') continue;
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(dir, p)] = readFileSync(p, 'utf8');
    }
  };
  walk(dir);
  return out;
}

/** The files named (relative to `dir`) that exist: relative path → UTF-8 content. */
export function snapshotFiles(dir: string, rels: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rel of rels) {
    try {
      out[rel] = readFileSync(join(dir, rel), 'utf8');
    } catch {
      // absent
    }
  }
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
  opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number; stdin?: string },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: opts.cwd,
      env: opts.env,
      stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (opts.stdin !== undefined) child.stdin?.end(opts.stdin);
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
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

/** A stream-json user message line (`--input-format stream-json`). */
export function userMessageLine(text: string): string {
  return `${JSON.stringify({ type: 'user', message: { role: 'user', content: text } })}\n`;
}

/**
 * The stored transcript of a session, as text ('' when not found): Claude Code's under
 * `HOME/.claude/projects/<dir>/<id>.jsonl`, ours under the runner's data directory.
 */
function readTranscript(side: Side, root: string, home: string, sessionId: string): string {
  const read = (p: string): string => {
    try {
      return readFileSync(p, 'utf8');
    } catch {
      return '';
    }
  };
  if (side === 'ours') return read(join(root, 'runner-data', 'sessions', `${sessionId}.jsonl`));
  const projects = join(home, '.claude', 'projects');
  let dirs: string[] = [];
  try {
    dirs = readdirSync(projects);
  } catch {
    return '';
  }
  return dirs.map((d) => read(join(projects, d, `${sessionId}.jsonl`))).join('');
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
  const input = s.streamInput
    ? { args: ['-p', '--input-format', 'stream-json'], stdin: userMessageLine(promptFor(s)) }
    : { args: ['-p', promptFor(s)], ...(s.stdin !== undefined ? { stdin: s.stdin } : {}) };
  const args = [...input.args, ...(s.flags ?? COMMON_FLAGS), ...(s.args ?? [])];
  const out = {} as Record<Side, SideRun>;
  try {
    for (const side of ['claude', 'ours'] as const) {
      createRepo(repo, s.files ?? DEFAULT_FILES);
      if (s.setup !== undefined) {
        const r = spawnSync('bash', ['-c', s.setup], { cwd: repo, encoding: 'utf8' });
        if (r.status !== 0) throw new Error(`setup of ${s.name} failed: ${r.stderr}`);
      }
      if (s.git) gitInit(repo);
      const home = join(root, `home-${side}`);
      mkdirSync(home, { recursive: true });
      for (const [rel, content] of Object.entries(s.homeFiles ?? {})) {
        mkdirSync(dirname(join(home, rel)), { recursive: true });
        writeFileSync(join(home, rel), content.split('{{repo}}').join(repo));
      }
      const env = { ...baseEnv(home, opts.model.server.baseUrl), ...(s.env ?? {}) };
      if (side === 'ours') {
        env['AGENT_RUNNER_DATA_DIR'] = join(root, 'runner-data');
        env['TEMPORAL_CLI_PATH'] = temporalCli;
      }
      const [cmd, argv] = side === 'claude' ? [opts.claudeBin, args] : [process.execPath, [RUNNER_BIN, ...args]];
      const firstRequest = opts.model.requests.length;
      const started = Date.now();
      const timeoutMs = opts.timeoutMs ?? 120_000;
      const cwd = s.cwd === undefined ? repo : join(repo, s.cwd);
      mkdirSync(cwd, { recursive: true });
      const r = await runProcess(cmd, argv, {
        cwd,
        env,
        timeoutMs,
        ...(input.stdin !== undefined ? { stdin: input.stdin } : {}),
      });
      const lines = parseLines(r.stdout);
      const firstEnd = opts.model.requests.length;
      let resumed: ResumedRun | undefined;
      if (s.resume) {
        const firstSessionId = String(lines.messages.find((m) => m['type'] === 'result')?.['session_id'] ?? '');
        const transcript = (): string => readTranscript(side, root, home, firstSessionId);
        const before = transcript();
        const flags2 = [
          '-p',
          s.resume.prompt,
          ...(s.flags ?? COMMON_FLAGS),
          ...(s.resume.continue ? ['--continue'] : ['--resume', firstSessionId]),
          ...s.resume.args,
        ];
        const [cmd2, argv2] =
          side === 'claude' ? [opts.claudeBin, flags2] : [process.execPath, [RUNNER_BIN, ...flags2]];
        const first2 = opts.model.requests.length;
        const r2 = await runProcess(cmd2, argv2, { cwd, env, timeoutMs });
        const l2 = parseLines(r2.stdout);
        resumed = {
          exitCode: r2.code,
          stderr: r2.stderr,
          ...l2,
          requests: opts.model.requests.slice(first2),
          firstSessionId,
          sessionId: String(l2.messages.find((m) => m['type'] === 'result')?.['session_id'] ?? ''),
          firstTranscriptUnchanged: before !== '' && transcript() === before,
        };
      }
      out[side] = {
        side,
        exitCode: r.code,
        stdout: r.stdout,
        stderr: r.stderr,
        ...lines,
        requests: opts.model.requests.slice(firstRequest, firstEnd),
        files: snapshotRepo(repo),
        homeFiles: snapshotFiles(home, s.homeAfter ?? []),
        durationMs: Date.now() - started,
        ...(resumed ? { resumed } : {}),
        paths: { repo, home },
      };
      if (process.env['CONFORMANCE_KEEP']) {
        cpSync(repo, join(root, `repo-after-${side}`), { recursive: true });
        // The model requests and the stdout of the side, to inspect by hand.
        writeFileSync(join(root, `requests-${side}.json`), JSON.stringify(out[side].requests, null, 2));
        writeFileSync(join(root, `stdout-${side}.jsonl`), r.stdout);
      }
    }
  } finally {
    // CONFORMANCE_KEEP=1 keeps the folder (both repositories, HOMEs, the runner's data) to inspect.
    if (!process.env['CONFORMANCE_KEEP']) rmSync(root, { recursive: true, force: true });
  }
  return out;
}
