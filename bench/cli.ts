/**
 * The whole process, as a user runs it, side by side with the real `claude -p` on the same
 * scenario and the same local model, in one run: a 4-call turn (Read, Edit, Bash, answer).
 *
 * - `claude -p`: the reference (the conformance harness's install, `.cache/claude-code`);
 * - warm: `agent-runner -p` with the background server already running;
 * - cold: `agent-runner -p` with no server (it starts the background server; the run ends when
 *   the result is printed and the process exits);
 * - cold, `--no-daemon`: a private embedded server started and stopped inside the run;
 * plus the start-up of `--help` and of `status` against a running server.
 * Whole-process wall time (spawn to exit) and the turn's own `duration_ms`, medians.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startFakeModelServer } from '../src/fake-model';
import { findTemporalCli } from '../src/host/dev-server';
import { PROJECT_ROOT, progress } from './env';
import type { Measurement } from './stats';
import { median, renderTable, round } from './stats';

/** Options of {@link measureCli}. */
export interface CliOptions {
  /** Measured runs per variant (after one warm-up each). */
  rounds: number;
}

const BIN = join(PROJECT_ROOT, 'bin', 'agent-runner.js');
const CLAUDE = join(
  PROJECT_ROOT,
  '.cache',
  'claude-code',
  'node_modules',
  '@anthropic-ai',
  `claude-code-${process.platform}-${process.arch}`,
  'claude',
);
const FLAGS = ['--output-format', 'json', '--permission-mode', 'acceptEdits', '--allowedTools', 'Read,Edit,Bash'];

interface Run {
  ms: number;
  code: number | null;
  durationMs: number | null;
  sessionId: string | null;
  stderr: string;
}

function exec(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((done) => {
    const started = performance.now();
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => {
      const ms = performance.now() - started;
      let durationMs: number | null = null;
      let sessionId: string | null = null;
      try {
        const r = JSON.parse(stdout.trim().split('\n').pop() ?? '') as {
          duration_ms?: number;
          subtype?: string;
          session_id?: string;
        };
        durationMs = r.subtype === 'success' ? (r.duration_ms ?? null) : null;
        sessionId = r.session_id ?? null;
      } catch {
        durationMs = null;
      }
      done({ ms, code, durationMs, sessionId, stderr });
    });
  });
}

function freshRepo(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'src', 'greet.ts'), 'export const greeting = "helo";\n');
}

export async function measureCli(opts: CliOptions): Promise<Measurement> {
  const work = mkdtempSync(join(tmpdir(), 'dar-bench-cli-'));
  let runNo = 0;
  const fake = await startFakeModelServer({
    responder: (_req, ctx) => {
      switch (ctx.step) {
        case 0:
          return { content: [{ tool_use: { name: 'Read', input: { file_path: '{{cwd}}/src/greet.ts' } } }] };
        case 1:
          return {
            content: [
              {
                tool_use: {
                  name: 'Edit',
                  input: { file_path: '{{cwd}}/src/greet.ts', old_string: '"helo"', new_string: '"hello"' },
                },
              },
            ],
          };
        case 2:
          return { content: [{ tool_use: { name: 'Bash', input: { command: 'cat src/greet.ts' } } }] };
        default:
          return { content: [{ text: 'Fixed the greeting.' }], usage: { output_tokens: 8 } };
      }
    },
  });
  const base: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: join(work, 'home'),
    LANG: 'C.UTF-8',
    ANTHROPIC_BASE_URL: fake.baseUrl,
    ANTHROPIC_API_KEY: 'bench-key',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    CLAUDE_CODE_DISABLE_BACKGROUND_TASKS: '1',
    TEMPORAL_CLI_PATH: findTemporalCli(),
  };
  mkdirSync(join(work, 'home'), { recursive: true });
  const warmData = join(work, 'warm-data');
  const prompt = (): string => `[bench:${runNo++}] fix the typo in src/greet.ts`;
  const ours =
    (dataDir: string, extra: string[] = []) =>
    async (): Promise<Run> => {
      const repo = join(work, 'repo');
      freshRepo(repo);
      return exec(process.execPath, [BIN, '-p', prompt(), ...FLAGS, ...extra], repo, {
        ...base,
        AGENT_RUNNER_DATA_DIR: dataDir,
      });
    };
  const stop = (dataDir: string): Promise<Run> =>
    exec(process.execPath, [BIN, 'server', 'stop'], work, { ...base, AGENT_RUNNER_DATA_DIR: dataDir });
  const claudeAvailable = existsSync(CLAUDE);
  if (!claudeAvailable)
    progress(`cli: ${CLAUDE} is missing (npm run test:conformance installs it): no claude -p column`);
  let coldN = 0;
  const variants: Array<{ name: string; run: () => Promise<Run>; after?: () => Promise<unknown> }> = [
    ...(claudeAvailable
      ? [
          {
            name: 'claude -p',
            run: async (): Promise<Run> => {
              const repo = join(work, 'repo');
              freshRepo(repo);
              return exec(CLAUDE, ['-p', prompt(), ...FLAGS, '--model', 'claude-sonnet-5-5'], repo, base);
            },
          },
        ]
      : []),
    { name: 'agent-runner -p, warm (background server running)', run: ours(warmData) },
    {
      name: 'agent-runner -p, cold (starts the background server)',
      run: () => ours(join(work, `cold-${++coldN}`))(),
      after: () => stop(join(work, `cold-${coldN}`)),
    },
    {
      name: 'agent-runner -p, cold, --no-daemon (private server)',
      run: () => ours(join(work, `nd-${++coldN}`), ['--no-daemon'])(),
    },
  ];
  const samples = new Map<string, Run[]>(variants.map((v) => [v.name, []]));
  const startup = { help: [] as number[], status: [] as number[] };
  let sessionId: string | null = null;
  try {
    progress('cli: warming up');
    for (const v of variants) {
      const r = await v.run();
      if (r.code !== 0) throw new Error(`${v.name}: exit ${String(r.code)}\n${r.stderr.slice(-2000)}`);
      await v.after?.();
    }
    for (let round = 0; round < opts.rounds; round++) {
      progress(`cli: round ${round + 1}/${opts.rounds}`);
      for (const v of variants) {
        const r = await v.run();
        if (r.code !== 0) throw new Error(`${v.name}: exit ${String(r.code)}\n${r.stderr.slice(-2000)}`);
        samples.get(v.name)?.push(r);
        if (v.name.includes('warm')) sessionId = r.sessionId;
        await v.after?.();
      }
      startup.help.push((await exec(process.execPath, [BIN, '--help'], work, base)).ms);
      const st = await exec(process.execPath, [BIN, 'status', sessionId ?? 'none'], work, {
        ...base,
        AGENT_RUNNER_DATA_DIR: warmData,
      });
      if (st.code !== 0) throw new Error(`status: exit ${String(st.code)}\n${st.stderr}`);
      startup.status.push(st.ms);
    }
  } finally {
    await stop(warmData);
    await fake.close();
    rmSync(work, { recursive: true, force: true });
  }
  const rows = variants.map((v) => {
    const runs = samples.get(v.name) ?? [];
    return {
      name: v.name,
      wallMs: round(median(runs.map((r) => r.ms)), 0),
      turnMs: round(median(runs.map((r) => r.durationMs ?? Number.NaN)), 0),
    };
  });
  const claude = rows.find((r) => r.name === 'claude -p');
  const ratio = (ms: number): string => (claude ? `${round(ms / claude.wallMs)}x` : '-');
  const help = round(median(startup.help), 0);
  const status = round(median(startup.status), 0);
  const table = renderTable(
    `Whole process vs claude -p: a 4-call turn (Read, Edit, Bash, answer), same local model, ${opts.rounds} rounds, medians`,
    ['variant', 'wall ms', 'vs claude -p', 'turn duration_ms'],
    [
      ...rows.map((r) => [
        r.name,
        String(r.wallMs),
        ratio(r.wallMs),
        Number.isFinite(r.turnMs) ? String(r.turnMs) : '-',
      ]),
      ['agent-runner --help', String(help), '', ''],
      ['agent-runner status <session> (server running)', String(status), '', ''],
    ],
  );
  return {
    name: 'cli',
    table,
    json: {
      rounds: opts.rounds,
      rows,
      ratios: Object.fromEntries(rows.map((r) => [r.name, claude ? round(r.wallMs / claude.wallMs) : null])),
      helpMs: help,
      statusMs: status,
    },
  };
}
