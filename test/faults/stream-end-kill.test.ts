import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Responder } from '../../src/fake-model';
import { billedUsage, repeatedCompletedCalls } from '../../src/fake-model';
import type { SDKResultMessage } from '../../src/common/sdk-messages';
import { installRuntimeLogging } from '../../src/worker/logging';
import { makeRepo, startRunnerEnv } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';
import { collect, expectIntactTranscript, startChildWorker, waitFor } from './helpers/fault-env';
import type { ChildWorker } from './helpers/fault-env';

installRuntimeLogging('WARN');

/** Model calls of the turn: one Bash step per call, then a final answer. */
const CALLS = 10;
const TIMEOUTS = { modelHeartbeatMs: 2000, toolHeartbeatMs: 2000, modelMaxAttempts: 10 };

/** Bash steps that append their number to a log, then a final answer; ids new on every attempt. */
const steps: Responder = (req, { attempt }) => {
  const step = req.messages.filter((m) => m.role === 'assistant').length;
  if (step >= CALLS - 1) return { chunk_delay_ms: 5, content: [{ text: 'all steps done' }] };
  return {
    chunk_delay_ms: 5,
    content: [
      { text: `Step ${step}: appending to the log. `.repeat(4) },
      {
        tool_use: { id: `toolu_s${step}_a${attempt}`, name: 'Bash', input: { command: `echo ${step} >> steps.log` } },
      },
    ],
  };
};

describe('faults: kill -9 of the worker right at the end of every model response', () => {
  let env: RunnerEnv;
  let worker: ChildWorker | undefined;
  afterEach(async () => {
    await worker?.stop().catch(() => undefined);
    await env?.close();
  });

  test(`stream-end kill: ${CALLS} model calls, the worker killed after each response's stream ends; no completed call is made twice and billed usage is counted exactly`, async () => {
    env = await startRunnerEnv({ responder: steps, worker: false });
    const repo = makeRepo({});
    const engine = env.engine({ cwd: repo });
    const faultEnv = { ...env.workerEnv, FAULT_KILL_AT: 'stream-end' };
    worker = await startChildWorker(faultEnv, { stickyMs: 1000 });
    const started = Date.now();
    const turn = collect(engine.submitMessage('run the steps', { timeouts: TIMEOUTS }));
    let kills = 0;
    let done = false;
    void turn.finally(() => {
      done = true;
    });
    while (!done) {
      const w: ChildWorker = worker;
      await waitFor('a response to end, or the turn', () => done || /fault: stream-end/.test(w.stderr()), 120_000);
      if (done) break;
      await w.kill9();
      kills++;
      worker = await startChildWorker(faultEnv, { stickyMs: 1000 });
    }
    const messages = await turn;
    const result = messages.at(-1) as SDKResultMessage;
    expect(result).toMatchObject({ type: 'result', subtype: 'success', result: 'all steps done', num_turns: CALLS });
    expect(kills).toBe(CALLS); // every response's worker was killed once

    const log = env.fake.requests();
    const repeated = repeatedCompletedCalls(log);
    const made = billedUsage(log);
    expect(repeated).toEqual([]);
    expect(result.usage).toMatchObject(made);
    expectIntactTranscript(env.dataDir, engine.sessionId);
    // The tools ran once each, for the calls the transcript holds.
    const ran = readFileSync(join(repo, 'steps.log'), 'utf8').trim().split('\n');
    expect(ran).toEqual(Array.from({ length: CALLS - 1 }, (_, i) => String(i)));
    console.log(
      `stream-end kill: ${kills} kills survived in ${((Date.now() - started) / 1000).toFixed(1)} s; ` +
        `${log.filter((r) => r.outcome === 'completed').length} completed model requests for ${CALLS} calls; ` +
        `completed calls repeated: ${repeated.length}; billed usage counted ${JSON.stringify(pickUsage(result.usage))} ` +
        `vs made ${JSON.stringify(made)}`,
    );
  }, 600_000);
});

function pickUsage(u: SDKResultMessage['usage']): Record<string, number> {
  return {
    input_tokens: u.input_tokens,
    output_tokens: u.output_tokens,
    cache_creation_input_tokens: u.cache_creation_input_tokens,
    cache_read_input_tokens: u.cache_read_input_tokens,
  };
}
