import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Responder, StepSpec } from '../../src/fake-model';
import { billedUsage, repeatedCompletedCalls } from '../../src/fake-model';
import type { SDKResultMessage } from '../../src/common/sdk-messages';
import { createLoadSession } from '../../src/activities/transcript';
import { installRuntimeLogging } from '../../src/worker/logging';
import { transcriptPath } from '../../src/store/jsonl-store';
import { makeRepo, startRunnerEnv } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';
import { checkTranscript } from './helpers/transcript-check';
import { collect, expectIntactTranscript, seededRandom, startChildWorker, waitFor } from './helpers/fault-env';
import type { ChildWorker } from './helpers/fault-env';

installRuntimeLogging('WARN');

/** Seed of the kill points; FAULT_SEED=<n> replays another sequence. */
const SEED = Number(process.env['FAULT_SEED'] ?? 20261130);
const KILLS = 20;
/** Short timeouts so that each kill costs seconds: a dead worker's activity is retried after 2 s. */
const TIMEOUTS = { modelHeartbeatMs: 2000, toolHeartbeatMs: 2000, modelMaxAttempts: 10 };

const pad = (n: number): string => String(n).padStart(4, '0');

/**
 * The long turn: a cycle of Read (with a streamed text), Edit, Bash (appending its step number to
 * bash.log) and a parallel Read + Glob, until the test sets `finish`; then one last answer.
 */
function longTurn(state: { finish: boolean }): Responder {
  return (req) => {
    const step = req.messages.filter((m) => m.role === 'assistant').length;
    const base: StepSpec = { delay_ms: 100, chunk_delay_ms: 15 };
    if (state.finish || step >= 600) return { ...base, content: [{ text: 'finished' }] };
    const kinds: StepSpec['content'][] = [
      [
        { text: `Step ${step}: reading the file again to see where we are. `.repeat(3) },
        { tool_use: { name: 'Read', input: { file_path: '{{cwd}}/edit.txt' } } },
      ],
      [
        {
          tool_use: {
            name: 'Edit',
            input: { file_path: '{{cwd}}/edit.txt', old_string: `L${pad(step)}\n`, new_string: `done ${step}\n` },
          },
        },
      ],
      [{ tool_use: { name: 'Bash', input: { command: `echo ${step} >> bash.log && sleep 0.2` } } }],
      [
        { tool_use: { name: 'Read', input: { file_path: '{{cwd}}/a.txt' } } },
        { tool_use: { name: 'Glob', input: { pattern: '*.txt' } } },
      ],
    ];
    return { ...base, content: kinds[step % kinds.length] };
  };
}

describe('faults: kill -9 of the worker process, again and again', () => {
  let env: RunnerEnv;
  let worker: ChildWorker | undefined;
  afterEach(async () => {
    await worker?.stop().catch(() => undefined);
    await env?.close();
  });

  test(`worker kill: ${KILLS} kill -9 at seeded random points of a long Read/Edit/Bash turn; it completes with an intact transcript`, async () => {
    const state = { finish: false };
    env = await startRunnerEnv({ responder: longTurn(state), worker: false });
    const lines = Array.from({ length: 700 }, (_, i) => `L${pad(i)}\n`).join('');
    const repo = makeRepo({ 'edit.txt': lines, 'a.txt': 'alpha\n' });
    const engine = env.engine({ cwd: repo });
    const file = transcriptPath(env.dataDir, engine.sessionId);
    const lineCount = (): number =>
      existsSync(file) ? checkTranscript(env.dataDir, engine.sessionId, { allowTornLines: true }).lines : 0;
    const rnd = seededRandom(SEED);

    worker = await startChildWorker(env.workerEnv, { stickyMs: 1000 });
    const started = Date.now();
    const turn = collect(engine.submitMessage('work through the file', { timeouts: TIMEOUTS }));
    const kills: Array<{ atLine: number; afterMs: number; recoveredMs: number }> = [];
    for (let k = 0; k < KILLS; k++) {
      // A random point: after 1-3 new transcript lines, then 0-900 ms more.
      const base = lineCount();
      await waitFor(`progress before kill ${k + 1}`, () => lineCount() >= base + 1 + Math.floor(rnd() * 3), 90_000);
      const afterMs = Math.floor(rnd() * 900);
      await sleep(afterMs);
      const atLine = lineCount();
      const killedAt = Date.now();
      await worker.kill9();
      worker = await startChildWorker(env.workerEnv, { stickyMs: 1000 });
      await waitFor(`progress after kill ${k + 1}`, () => lineCount() > atLine, 90_000);
      kills.push({ atLine, afterMs, recoveredMs: Date.now() - killedAt });
    }
    state.finish = true;
    const messages = await turn;
    const elapsed = Date.now() - started;
    const result = messages.at(-1) as SDKResultMessage;
    expect(result).toMatchObject({ type: 'result', subtype: 'success', result: 'finished' });
    expect(kills).toHaveLength(KILLS);

    const report = expectIntactTranscript(env.dataDir, engine.sessionId);
    expect(report.toolUses).toBeGreaterThan(KILLS);
    // Non-idempotent tools are never re-run: each Bash step appended its number at most once.
    const bashRuns = readFileSync(join(repo, 'bash.log'), 'utf8').trim().split('\n');
    expect(new Set(bashRuns).size).toBe(bashRuns.length);
    // A model call is repeated only when a worker died between the reply and its line on disk.
    const repeated = repeatedCompletedCalls(env.fake.requests());
    expect(repeated.length).toBeLessThanOrEqual(KILLS);
    // Billing: every token the fake model reported sending is counted, except what a worker
    // killed mid-stream never read (a kill can land between the server's write and the read).
    const made = billedUsage(env.fake.requests());
    const counted = result.usage;
    for (const k of [
      'input_tokens',
      'output_tokens',
      'cache_creation_input_tokens',
      'cache_read_input_tokens',
    ] as const) {
      expect(counted[k]).toBeLessThanOrEqual(made[k]);
    }
    // …and everything the workers did record (attempt usage, lines) is in the turn's totals.
    const recorded = (await createLoadSession(env.store, () => null)(engine.sessionId)).usage;
    expect(pick(counted)).toEqual(recorded);
    const entries = await env.store.load(engine.sessionId);
    const unknown = entries.filter((e) => JSON.stringify(e.message?.content ?? '').includes('outcome is unknown'));
    const recovered = kills.map((k) => k.recoveredMs).sort((a, b) => a - b);
    console.log(
      `worker kill (seed ${SEED}): ${KILLS} kills in ${(elapsed / 1000).toFixed(1)} s; ${report.lines} lines, ` +
        `${report.toolUses} tool calls, ${result.num_turns} model calls; ${unknown.length} unknown-outcome results; ` +
        `${repeated.length} model calls repeated; kill → next line: median ${recovered[KILLS >> 1]} ms, ` +
        `max ${recovered.at(-1)} ms; billed tokens counted ${totalOf(counted)} of ${totalOf(made)} made ` +
        `(${JSON.stringify(pick(counted))} vs ${JSON.stringify(made)})`,
    );
  }, 420_000);
});

type UsageLike = {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
};
const pick = (u: UsageLike): UsageLike => ({
  input_tokens: u.input_tokens,
  output_tokens: u.output_tokens,
  cache_creation_input_tokens: u.cache_creation_input_tokens,
  cache_read_input_tokens: u.cache_read_input_tokens,
});
const totalOf = (u: UsageLike): number =>
  u.input_tokens + u.output_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;
