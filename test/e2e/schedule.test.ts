/**
 * `agent-runner schedule` end to end: the built CLI against the test dev server, an in-process
 * worker whose `runScheduledBatch` activity runs `agent-runner batch` as its child, the local
 * model server scripting each task (a Bash call that appends the task id to a log, then an answer).
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { taskSessionId } from '../../src/client/batch';
import type { BatchResult } from '../../src/client/batch';
import { firstUserText } from '../../src/fake-model/request';
import type { Responder } from '../../src/fake-model';
import type { ScheduledBatchResult } from '../../src/common/schedule';
import { scheduledBatchId } from '../../src/common/schedule';
import { installRuntimeLogging } from '../../src/worker/logging';
import { runCli } from '../helpers/cli';
import { makeRepo, startRunnerEnv, temporalAddress } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';

installRuntimeLogging('ERROR');
jest.setTimeout(90_000);

/** Step 0 appends the task id to `log` with Bash (a task run twice leaves two lines), step 1 answers. */
function markerResponder(log: string): Responder {
  return (req, ctx) => {
    const id = /task (\S+):/.exec(firstUserText(req))?.[1] ?? 'unknown';
    if (ctx.step === 0)
      return { content: [{ tool_use: { name: 'Bash', input: { command: `echo ${id} >> ${log}` } } }] };
    return { content: [{ text: `done ${id}` }] };
  };
}

describe('agent-runner schedule', () => {
  let env: RunnerEnv | undefined;
  /** The marker log of the running test (one model server for the suite). */
  let currentLog = '';
  afterAll(async () => env?.close());

  test('schedule: an every-2s schedule fires batches with their own ids; a repeated fire (backfill) runs no task again; pause stops fires; delete removes it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dar-schedule-'));
    const log = join(dir, 'runs.log');
    currentLog = log;
    env = await startRunnerEnv({ responder: (req, ctx) => markerResponder(currentLog)(req, ctx) });
    const e = env;
    const cliEnv = { ...e.workerEnv, TEMPORAL_ADDRESS: temporalAddress() };
    const cli = (args: string[]) => runCli(args, { env: cliEnv, cwd: dir });
    const repo = makeRepo({});
    const file = join(dir, 'tasks.jsonl');
    writeFileSync(
      file,
      ['a', 'b'].map((id) => JSON.stringify({ id, prompt: `task ${id}: mark and answer`, cwd: repo })).join('\n'),
    );
    const id = `sch-${randomUUID().slice(0, 8)}`;

    // Refused before anything is created: a bad spec, an unknown batch flag, a flag the schedule sets.
    const badCron = await cli(['schedule', 'create', id, '--cron', '0 3 * *', '--', file]);
    expect({ code: badCron.code, err: badCron.stderr }).toMatchObject({
      code: 2,
      err: expect.stringMatching(/4 fields/),
    });
    const badFlag = await cli(['schedule', 'create', id, '--every', '2s', '--', file, '--concurency', '2']);
    expect({ code: badFlag.code, err: badFlag.stderr }).toMatchObject({
      code: 2,
      err: expect.stringMatching(/unknown option '--concurency'/),
    });
    const ownId = await cli(['schedule', 'create', id, '--every', '2s', '--', file, '--batch-id', 'x']);
    expect({ code: ownId.code, err: ownId.stderr }).toMatchObject({
      code: 2,
      err: expect.stringMatching(/--batch-id is not for a schedule/),
    });

    const created = await cli([
      'schedule',
      'create',
      id,
      '--every',
      '2s',
      '--catchup-window',
      '1m',
      '--',
      file,
      '--concurrency',
      '2',
      '--allowedTools',
      'Bash',
      '--out',
      'results-{batch_id}.jsonl',
    ]);
    expect({ code: created.code, err: created.stderr }).toMatchObject({ code: 0 });
    expect(created.stdout).toMatch(
      new RegExp(`schedule "${id}" created \\(every 2s, overlap SKIP, catch-up window 1m\\)`),
    );
    const handle = e.client.schedule.getHandle(id);

    // Two fires complete (overlap SKIP: a fire while a batch runs is skipped).
    const done: Array<{ workflowId: string; runId: string; scheduledAt: Date; result: ScheduledBatchResult }> = [];
    const deadline = Date.now() + 45_000;
    while (done.length < 2 && Date.now() < deadline) {
      const d = await handle.describe();
      for (const a of d.info.recentActions) {
        if (done.some((x) => x.workflowId === a.action.workflow.workflowId)) continue;
        const h = e.client.workflow.getHandle(a.action.workflow.workflowId, a.action.workflow.firstExecutionRunId);
        if ((await h.describe()).status.name === 'RUNNING') continue;
        done.push({
          workflowId: a.action.workflow.workflowId,
          runId: a.action.workflow.firstExecutionRunId,
          scheduledAt: a.scheduledAt,
          result: await h.result(),
        });
      }
      if (done.length < 2) await new Promise((r) => setTimeout(r, 300));
    }
    await handle.pause('test');
    expect(done.length).toBeGreaterThanOrEqual(2);
    const fires = done.slice(0, 2);
    for (const f of fires) {
      const batchId = scheduledBatchId(id, f.scheduledAt);
      expect(f.result).toMatchObject({ batchId, exitCode: 0, summary: expect.stringMatching(/^2 tasks: 2 succeeded/) });
      const results = JSON.parse(
        `[${readFileSync(join(dir, `results-${batchId}.jsonl`), 'utf8')
          .trim()
          .split('\n')
          .join(',')}]`,
      ) as BatchResult[];
      expect(results.map((r) => [r.task_id, r.batch_id, r.subtype, r.session_id]).sort()).toEqual(
        ['a', 'b'].map((t) => [t, batchId, 'success', taskSessionId(batchId, t)]),
      );
    }
    expect(fires[0]!.result.batchId).not.toBe(fires[1]!.result.batchId);

    // Pause stops fires.
    const taken = (await handle.describe()).info.numActionsTaken;
    await new Promise((r) => setTimeout(r, 4500));
    const paused = await handle.describe();
    expect(paused.state.paused).toBe(true);
    expect(paused.info.numActionsTaken).toBe(taken);
    // Wait for every fire to end (a third may have started before the pause), then count runs.
    for (const a of paused.info.runningActions) {
      await e.client.workflow.getHandle(a.workflow.workflowId, a.workflow.firstExecutionRunId).result();
    }
    const linesBefore = readFileSync(log, 'utf8').trim().split('\n');
    const callsBefore = e.fake.completedCalls().length;
    expect(linesBefore.length).toBe(2 * taken);

    // A repeated fire of the first scheduled time (Temporal's backfill, as a catch-up would) is
    // the same batch: its tasks had finished, none runs again.
    const first = fires[0]!.scheduledAt;
    await handle.backfill({
      start: new Date(first.getTime() - 500),
      end: new Date(first.getTime() + 500),
      overlap: 'ALLOW_ALL',
    });
    let again: ScheduledBatchResult | undefined;
    for (let i = 0; i < 100 && !again; i++) {
      const d = await handle.describe();
      const rerun = d.info.recentActions.find(
        (a) =>
          a.action.workflow.workflowId === fires[0]!.workflowId &&
          a.action.workflow.firstExecutionRunId !== fires[0]!.runId,
      );
      if (rerun)
        again = await e.client.workflow
          .getHandle(rerun.action.workflow.workflowId, rerun.action.workflow.firstExecutionRunId)
          .result();
      else await new Promise((r) => setTimeout(r, 200));
    }
    expect(again).toMatchObject({ batchId: fires[0]!.result.batchId, exitCode: 0 });
    expect(readFileSync(log, 'utf8').trim().split('\n')).toEqual(linesBefore);
    expect(e.fake.completedCalls().length).toBe(callsBefore);

    // list shows it (paused), describe names the fires' batch ids.
    const list = await cli(['schedule', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`^${id}\\s+paused\\s+every 2s\\s+-\\s+\\S+\\s+batch\\s+${file}$`, 'm'));
    const described = await cli(['schedule', 'describe', id, '--json']);
    expect(described.code).toBe(0);
    const json = JSON.parse(described.stdout) as { recent_fires: Array<{ batch_id: string }>; overlap: string };
    expect(json.overlap).toBe('SKIP');
    expect(json.recent_fires.map((f) => f.batch_id)).toEqual(
      expect.arrayContaining(fires.map((f) => f.result.batchId)),
    );

    // delete removes it; an unknown id is a clear error.
    const del = await cli(['schedule', 'delete', id]);
    expect({ code: del.code, out: del.stdout }).toMatchObject({ code: 0, out: expect.stringContaining('deleted') });
    for (let i = 0; i < 50 && (await cli(['schedule', 'list'])).stdout.includes(id); i++)
      await new Promise((r) => setTimeout(r, 200));
    expect((await cli(['schedule', 'list'])).stdout).not.toContain(id);
    const gone = await cli(['schedule', 'pause', id]);
    expect({ code: gone.code, err: gone.stderr }).toMatchObject({
      code: 1,
      err: expect.stringContaining(`no schedule "${id}"`),
    });
    expect(existsSync(log)).toBe(true);
  });

  test('schedule: a --prompt schedule runs its prompt as a batch of one task; trigger fires a paused schedule once', async () => {
    const e = env!;
    const dir = mkdtempSync(join(tmpdir(), 'dar-schedule-p-'));
    const log = join(dir, 'runs.log');
    currentLog = log;
    const cliEnv = { ...e.workerEnv, TEMPORAL_ADDRESS: temporalAddress() };
    const cli = (args: string[]) => runCli(args, { env: cliEnv, cwd: dir });
    const id = `p-${randomUUID().slice(0, 8)}`;
    const prompt = 'task p1: mark and answer';
    const created = await cli([
      'schedule',
      'create',
      id,
      '--every',
      '1h',
      '--paused',
      '--prompt',
      prompt,
      '--',
      '--allowedTools',
      'Bash',
    ]);
    expect({ code: created.code, err: created.stderr }).toMatchObject({ code: 0 });
    expect(created.stdout).toContain(', paused');
    const handle = e.client.schedule.getHandle(id);
    const d0 = await handle.describe();
    // The action holds a path, never the prompt.
    expect(JSON.stringify(d0.action.args)).not.toContain(prompt);
    const trig = await cli(['schedule', 'trigger', id]);
    expect({ code: trig.code, out: trig.stdout }).toMatchObject({ code: 0, out: expect.stringContaining('triggered') });
    let fire: { workflowId: string; runId: string; scheduledAt: Date } | undefined;
    for (let i = 0; i < 100 && !fire; i++) {
      const a = (await handle.describe()).info.recentActions[0];
      if (a)
        fire = {
          workflowId: a.action.workflow.workflowId,
          runId: a.action.workflow.firstExecutionRunId,
          scheduledAt: a.scheduledAt,
        };
      else await new Promise((r) => setTimeout(r, 200));
    }
    expect(fire).toBeDefined();
    const result = (await e.client.workflow.getHandle(fire!.workflowId, fire!.runId).result()) as ScheduledBatchResult;
    expect(result).toMatchObject({ batchId: scheduledBatchId(id, fire!.scheduledAt), exitCode: 0 });
    expect(result.summary).toMatch(/^1 tasks: 1 succeeded/);
    expect(readFileSync(log, 'utf8').trim().split('\n')).toEqual(['p1']);
    // Its session is the fire batch's task `prompt`.
    expect(await e.store.exists(taskSessionId(result.batchId, 'prompt'))).toBe(true);
    expect((await cli(['schedule', 'delete', id])).code).toBe(0);
  });

  test('schedule: an unreachable server is a clear error', async () => {
    const r = await runCli(['schedule', 'list'], {
      env: { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:1' },
      timeoutMs: 60_000,
    });
    // As every command: a server that cannot be reached is a configuration to change (exit 2).
    expect({ code: r.code, err: r.stderr }).toMatchObject({
      code: 2,
      err: expect.stringContaining('cannot reach Temporal at 127.0.0.1:1'),
    });
  });
});
