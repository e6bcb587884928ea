/**
 * A long unattended turn: 300 model calls whose context, without compaction, would be more than five
 * times the model's window. The turn compacts itself again and again; the worker process is
 * killed (kill -9) in the middle of one compaction. The turn must still succeed, each compaction
 * must show once in the transcript, the workflow history must stay under 4 KB per step, and the
 * client's memory must stay flat.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { temporal } from '@temporalio/proto';
import { COMPACT_INSTRUCTION } from '../../src/activities/model/compact';
import type { SDKMessage, SDKResultMessage } from '../../src/common/sdk-messages';
import { firstUserText } from '../../src/fake-model/request';
import { makeRepo, startRunnerEnv } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';
import { startWorkerProcess } from '../helpers/worker-process';
import type { WorkerProcess } from '../helpers/worker-process';

jest.setTimeout(600_000);

/** Tool calls of the turn (one model call each, plus the final answer). */
const STEPS = 300;
/** Context window the turn compacts against (tokens); auto-compaction at 80% of it. */
const WINDOW = 20_000;
/** The compaction during which the worker is killed (the summary call is held until then). */
const KILL_AT_COMPACTION = 3;
const MAX_BYTES_PER_STEP = 4096;

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

function heapMb(): number {
  gc();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

/** The highest `step N` the request mentions (tool calls, results, the summary): the last step done. */
function lastStep(body: string): number {
  let max = 0;
  for (const m of body.matchAll(/step (\d+)/g)) max = Math.max(max, Number(m[1]));
  return max;
}

describe('long run', () => {
  let env: RunnerEnv;
  const workers: WorkerProcess[] = [];
  afterAll(async () => {
    for (const w of workers.splice(0)) await w.stop().catch(() => undefined);
    await env?.close();
  });

  test('long run: 300 calls, context over 5x the window, kill -9 during a compaction: success, each compaction once, history under 4 KB per step, flat client memory', async () => {
    let compactionRequests = 0;
    let holding = false;
    env = await startRunnerEnv({
      worker: false,
      responder: (req) => {
        const body = JSON.stringify(req.messages);
        if (firstUserText(req).startsWith(COMPACT_INSTRUCTION)) {
          compactionRequests++;
          const summary = { text: `SUMMARY [case:long-run]: the work is done up to step ${lastStep(body)}.` };
          if (compactionRequests === KILL_AT_COMPACTION) {
            holding = true; // the test kills the worker while this answer is held back
            return { delay_ms: 15_000, content: [summary] };
          }
          return { content: [summary] };
        }
        const next = lastStep(body) + 1;
        if (next > STEPS) return { content: [{ text: 'finished' }] };
        return {
          content: [
            {
              tool_use: {
                name: 'Bash',
                id: `toolu_step_${next}`,
                input: { command: `echo step ${next}; cat notes.txt` },
              },
            },
          ],
        };
      },
    });
    const repo = makeRepo({});
    // ~1,200 characters per result: without compaction the last call would send over 5 windows of context.
    writeFileSync(join(repo, 'notes.txt'), `${'Notes on the work so far, kept for reference. '.repeat(26)}\n`);
    workers.push(await startWorkerProcess(env.workerEnv));

    const engine = env.engine({ cwd: repo });
    const messages: SDKMessage[] = [];
    const heap: number[] = [];
    const started = Date.now();
    const run = (async () => {
      for await (const m of engine.submitMessage('[case:long-run] Work through the steps.', {
        compaction: { autoCompactRatio: 0.8, contextWindowTokens: WINDOW, preserveTokens: 2_000 },
      })) {
        messages.push(m);
        if (m.type === 'assistant' && messages.filter((x) => x.type === 'assistant').length % 50 === 0) {
          heap.push(heapMb());
        }
      }
    })();

    // Kill the worker while the third compaction's summary is being written, then start another.
    const deadline = Date.now() + 300_000;
    let lastLog = Date.now();
    while (!holding) {
      if (Date.now() > deadline) throw new Error('the third compaction never started');
      if (process.env['LONG_RUN_DEBUG'] && Date.now() - lastLog > 10_000) {
        lastLog = Date.now();
        console.log(`long run: ${messages.length} messages so far, ${compactionRequests} compaction calls`);
      }
      await sleep(20);
    }
    await workers[0]!.kill9();
    workers.push(await startWorkerProcess(env.workerEnv));
    await run;
    await engine.end();
    const seconds = (Date.now() - started) / 1000;

    const result = messages.at(-1) as SDKResultMessage;
    expect(result).toMatchObject({ type: 'result', subtype: 'success', result: 'finished', num_turns: STEPS + 1 });

    // Each compaction shows once: one boundary and one summary line per compaction, all streamed.
    const lines = await env.store.load(engine.sessionId);
    const boundaries = lines.filter((l) => l.type === 'system' && l.subtype === 'compact_boundary');
    const summaries = lines.filter((l) => (l as Record<string, unknown>)['isCompactSummary'] === true);
    const streamed = messages.filter((m) => m.type === 'system' && m.subtype === 'compact_boundary');
    expect(boundaries.length).toBeGreaterThanOrEqual(5);
    expect(summaries).toHaveLength(boundaries.length);
    expect(streamed.map((m) => m.uuid).sort()).toEqual(boundaries.map((b) => b.uuid).sort());
    expect(new Set(boundaries.map((b) => b.parentUuid)).size).toBe(boundaries.length);
    const uuids = lines.map((l) => l.uuid);
    expect(new Set(uuids).size).toBe(uuids.length);
    // The killed compaction's summary call was made again (its first answer never arrived), once.
    expect(compactionRequests).toBe(boundaries.length + 1);
    // Without compaction the context would have been several windows.
    const perStepTokens = Math.ceil(JSON.stringify(lines.filter((l) => l.message).slice(0, 20)).length / 4 / 10);
    expect(STEPS * perStepTokens).toBeGreaterThan(5 * WINDOW);

    // History: every run of the turn (it continues as new on the way), under 4 KB per step.
    const state = await engine.state();
    let handle = env.client.workflow.getHandle(state.lastTurnWorkflowId ?? '');
    let bytes = 0;
    let runs = 0;
    for (;;) {
      const history = await handle.fetchHistory();
      bytes += temporal.api.history.v1.History.encode(history).finish().length;
      runs++;
      const prev = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
      if (!prev) break;
      handle = env.client.workflow.getHandle(state.lastTurnWorkflowId ?? '', prev);
    }
    const perStep = bytes / (STEPS + 1);

    // Client memory: the heap of this process (the client) sampled every 50 model calls. The
    // QueryEngine holds no message; what grows is the JSONL store's cache of parsed lines.
    // From the lowest sample: the first may still hold what an earlier suite of this jest worker
    // left, which a later gc() frees, and would hide growth (or show a drop) that is not this run's.
    const growth = (heap.at(-1) ?? 0) - Math.min(...heap);
    const transcriptMb = JSON.stringify(lines).length / 1024 / 1024;
    console.log(
      `long run: ${STEPS + 1} model calls in ${seconds.toFixed(0)} s, ${boundaries.length} compactions, ` +
        `${runs} workflow runs, ${bytes} history bytes (${perStep.toFixed(0)} per step), ` +
        `client heap ${heap.map((h) => h.toFixed(1)).join(' → ')} MB (transcript ${transcriptMb.toFixed(1)} MB)`,
    );
    expect(perStep).toBeLessThan(MAX_BYTES_PER_STEP);
    // Bounded by one copy of the transcript (the store's line cache: parsed lines weigh about three
    // times their JSON, measured 2026-12-02 at ~13 KB per call for ~4.4 KB of JSON), not by what
    // was sent (several windows per compaction).
    expect(growth).toBeLessThan(3 * transcriptMb + 2);
  });
});
