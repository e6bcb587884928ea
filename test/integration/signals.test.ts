import { turnOutcome } from '../../src/client/turn-outcome';
import { installRuntimeLogging } from '../../src/worker/logging';
import type { TurnOutcome } from '../../src/common/turn';
import type { SDKResultMessage } from '../../src/common/sdk-messages';
import type { QueryEngine } from '../../src/client/query-engine';
import { makeRepo, startRunnerEnv } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';
import { startSlowToolsWorker } from '../helpers/slow-tools-worker';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import type { Config } from '../../src/config';
import { sessionStatus } from '../../src/client/session-control';
import { runInterrupt } from '../../src/cli/commands/interrupt';
import { runLimits } from '../../src/cli/commands/limits';
import { runStatus } from '../../src/cli/commands/status';
import { turnProgressQuery } from '../../src/workflows/messages';

installRuntimeLogging('WARN');

/** Polls `check` every 50 ms until it returns a value other than undefined (or `timeoutMs` passes). */
async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The result message of a turn, streamed from its start. */
async function resultOf(engine: QueryEngine, turnWorkflowId: string): Promise<SDKResultMessage> {
  let result: SDKResultMessage | undefined;
  for await (const m of engine.follow({ turnWorkflowId, offset: 0 })) if (m.type === 'result') result = m;
  if (!result) throw new Error('no result');
  return result;
}

describe('interrupting a running turn', () => {
  let env: RunnerEnv;
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of closers.splice(0)) await c();
    await env?.close();
  });

  test('interrupt: mid parallel batch (a later read-only tool done, an earlier one in flight) keeps the chain whole', async () => {
    env = await startRunnerEnv({
      worker: false,
      scenario: {
        steps: [
          {
            content: [
              { tool_use: { id: 'toolu_slow_read_1', name: 'Read', input: { file_path: '{{cwd}}/a.txt' } } },
              { tool_use: { id: 'toolu_fast_glob_1', name: 'Glob', input: { pattern: '*.txt' } } },
            ],
          },
          { expect: { messagesCount: 4 }, content: [{ text: 'second turn ok' }] },
        ],
      },
    });
    const slow = await startSlowToolsWorker(env, 30_000);
    closers.push(() => slow.close());
    const engine = env.engine({ cwd: makeRepo({ 'a.txt': 'alpha\n' }) });
    const started = await engine.start('read a.txt and list the txt files');
    // The Glob (second in the batch) finishes while the Read (first) is still running.
    await waitFor('the Glob result', async () => {
      const lines = await env.store.load(engine.sessionId);
      return lines.some(
        (l) => JSON.stringify(l.message?.content ?? '').includes('toolu_fast_glob_1') && l.type === 'user',
      )
        ? true
        : undefined;
    });
    const t0 = Date.now();
    await engine.interrupt('stop now');
    const first = await resultOf(engine, started.turnWorkflowId);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(first).toMatchObject({ subtype: 'error_during_execution', is_error: true });
    expect(first.errors).toContain('[interrupted] stop now');

    const outcome: TurnOutcome = await turnOutcome(env.client, started.turnWorkflowId);
    const chain = await env.store.chain(engine.sessionId, outcome.leafUuid ?? '');
    const results = chain.flatMap((l) =>
      Array.isArray(l.message?.content)
        ? l.message.content.filter((b) => b.type === 'tool_result').map((b) => String(b['tool_use_id']))
        : [],
    );
    expect(results.sort()).toEqual(['toolu_fast_glob_1', 'toolu_slow_read_1']);

    const second = await env.runTurn(engine, 'go on');
    expect(second.result).toMatchObject({ subtype: 'success', result: 'second turn ok' });
  });
});

/** A Glob call costing exactly $0.003 on claude-sonnet-5-5, answered after `delay_ms`. */
const slowGlob = (delayMs: number) => ({
  content: [{ tool_use: { name: 'Glob', input: { pattern: '*.txt' } } }],
  usage: { input_tokens: 1000, output_tokens: 100, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  delay_ms: delayMs,
});
const CALL_USD = 0.003;

/** Captures what a CLI command prints. */
function captureIo(): { stdout: (s: string) => void; stderr: (s: string) => void; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { stdout: (l) => out.push(l), stderr: (l) => err.push(l), out, err };
}

function cliConfig(env: RunnerEnv): Config {
  return loadConfig({ env: env.workerEnv });
}

/** A scenario whose first call runs `command` in Bash; the next turn's call checks the interrupt note. */
function slowBashScenario(command: string) {
  return {
    steps: [
      {
        content: [{ text: 'running it' }, { tool_use: { name: 'Bash', input: { command, description: 'slow' } } }],
        usage: { input_tokens: 1000, output_tokens: 100, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      },
      {
        expect: { messagesCount: 4, lastToolResultContains: 'Interrupted', lastToolResultIsError: true },
        content: [{ text: 'continuing after the interrupt' }],
      },
    ],
  };
}

function processRunning(pattern: string): boolean {
  const ps = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
  return ps.split('\n').some((l) => l.includes(pattern) && !l.includes('ps -eo'));
}

describe('signals and queries on a running turn', () => {
  let env: RunnerEnv;
  afterEach(async () => env?.close());

  test('setLimits: a budget lowered below the spend mid-turn (agent-runner limits) ends the turn at its next check', async () => {
    env = await startRunnerEnv({ scenario: { steps: Array.from({ length: 15 }, () => slowGlob(300)) } });
    const engine = env.engine({ cwd: makeRepo({ 'a.txt': 'a' }) });
    const started = await engine.start('loop for a while');
    const handle = env.client.workflow.getHandle(started.turnWorkflowId);
    const seen = await waitFor('two model calls', async () => {
      const p = await handle.query(turnProgressQuery);
      return p.numTurns >= 2 ? p.numTurns : undefined;
    });
    const io = captureIo();
    expect(await runLimits(cliConfig(env), engine.sessionId, { maxBudgetUsd: '0.001' }, io)).toBe(0);
    expect(io.out[0]).toContain('max budget $0.0010');
    const result = await resultOf(engine, started.turnWorkflowId);
    expect(result.subtype).toBe('error_max_budget_usd');
    expect(result.num_turns).toBeLessThanOrEqual(seen + 1); // the call in flight may finish, no more
    expect(result.total_cost_usd).toBeCloseTo(result.num_turns * CALL_USD, 12);
    expect(result.errors?.[0]).toBe(`Reached maximum budget ($0.001): spent $${result.total_cost_usd.toFixed(6)}`);
    // Later turns of the session keep the lowered limit.
    expect((await sessionStatus(env.client, engine.sessionId)).session.limits.maxBudgetUsd).toBe(0.001);
  });

  test('setLimits: a budget raised mid-turn lets the turn go on past the old limit to success', async () => {
    env = await startRunnerEnv({
      scenario: { steps: [...Array.from({ length: 5 }, () => slowGlob(400)), { content: [{ text: 'all done' }] }] },
    });
    const engine = env.engine({ cwd: makeRepo({ 'a.txt': 'a' }) });
    // $0.007 would stop it after 3 calls ($0.009).
    const started = await engine.start('loop', { limits: { maxBudgetUsd: 0.007 } });
    const handle = env.client.workflow.getHandle(started.turnWorkflowId);
    await waitFor('the first model call', async () =>
      (await handle.query(turnProgressQuery)).numTurns >= 1 ? true : undefined,
    );
    await engine.setLimits({ maxBudgetUsd: 1 });
    const result = await resultOf(engine, started.turnWorkflowId);
    expect(result).toMatchObject({ subtype: 'success', num_turns: 6, result: 'all done' });
    expect(result.total_cost_usd).toBeGreaterThan(0.007);
  });

  test('interrupt: mid Bash (agent-runner status, then agent-runner interrupt) ends the turn cleanly; the next turn succeeds without an API 400', async () => {
    const sleep = `sleep 24.${Math.floor(Math.random() * 1e6)}`;
    env = await startRunnerEnv({ scenario: slowBashScenario(`${sleep} && touch finished.txt`) });
    const repo = makeRepo({});
    const engine = env.engine({ cwd: repo });
    const started = await engine.start('run the slow thing', { limits: { maxBudgetUsd: 5 } });
    const status = await waitFor('the Bash call', async () => {
      const s = await sessionStatus(env.client, engine.sessionId);
      return s.turn?.activity === 'runTool Bash' ? s : undefined;
    });
    expect(status.session).toMatchObject({ busy: true, turnCount: 0, currentTurnWorkflowId: started.turnWorkflowId });
    expect(status.turn).toMatchObject({ numTurns: 1, limits: { maxBudgetUsd: 5 } });
    expect(status.turn?.costUsd).toBeCloseTo(CALL_USD, 12);
    // The activity is shown as soon as it is scheduled; the command starts a moment later.
    await waitFor('the sleep process', async () => (processRunning(sleep) ? true : undefined));

    const cli = captureIo();
    expect(await runStatus(cliConfig(env), engine.sessionId, {}, cli)).toBe(0);
    expect(cli.out[0]).toMatch(/activity\s+Bash: sleep [\d.]+ && touch finished\.txt \(\d+ s\)/);
    expect(cli.out[0]).toMatch(/model calls\s+1/);
    expect(cli.out[0]).toMatch(/limits\s+max budget \$5\.0000/);
    const json = captureIo();
    expect(await runStatus(cliConfig(env), engine.sessionId, { json: true }, json)).toBe(0);
    expect(JSON.parse(json.out[0] ?? '')).toMatchObject({
      session: { busy: true },
      turn: { activity: 'runTool Bash' },
    });

    const t0 = Date.now();
    const io = captureIo();
    expect(await runInterrupt(cliConfig(env), engine.sessionId, { reason: 'stop the sleep' }, io)).toBe(0);
    expect(io.out[0]).toBe(`interrupt sent to ${started.turnWorkflowId}`);
    const first = await resultOf(engine, started.turnWorkflowId);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(first).toMatchObject({
      subtype: 'error_during_execution',
      num_turns: 1,
      errors: ['[interrupted] stop the sleep'],
    });

    const second = await env.runTurn(engine, 'what happened?');
    expect(second.result).toMatchObject({ subtype: 'success', result: 'continuing after the interrupt' });
    expect(env.fake.requests().filter((r) => r.status >= 400)).toEqual([]);
    // The command was killed (at the activity's next heartbeat), not left to finish.
    await waitFor('the sleep to be killed', async () => (processRunning(sleep) ? undefined : true), 15_000);
    expect(existsSync(join(repo, 'finished.txt'))).toBe(false);
    const idle = captureIo();
    expect(await runInterrupt(cliConfig(env), engine.sessionId, {}, idle)).toBe(0);
    expect(idle.out[0]).toContain('is idle');
  });

  test('cancel: cancelling the turn workflow ends it like an interrupt (a completed workflow with a clean result)', async () => {
    env = await startRunnerEnv({ scenario: slowBashScenario('sleep 24.5') });
    const engine = env.engine({ cwd: makeRepo({}) });
    const started = await engine.start('run the slow thing');
    const handle = env.client.workflow.getHandle(started.turnWorkflowId);
    await waitFor('the Bash call', async () =>
      (await handle.query(turnProgressQuery)).activity === 'runTool Bash' ? true : undefined,
    );
    await handle.cancel();
    const first = await resultOf(engine, started.turnWorkflowId);
    expect(first).toMatchObject({
      subtype: 'error_during_execution',
      errors: ['[interrupted] Interrupted: the turn workflow was cancelled'],
    });
    // An error result (here: an interrupt) lists the turn as Failed, its outcome in the failure.
    expect((await handle.describe()).status.name).toBe('FAILED');
    const second = await env.runTurn(engine, 'go on');
    expect(second.result).toMatchObject({ subtype: 'success', result: 'continuing after the interrupt' });
  });
});
