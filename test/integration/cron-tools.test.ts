/**
 * The Cron tools as durable tasks of the session (src/workflows/session-crons.ts): jobs created by
 * a turn fire from the session's own timers (no worker held while waiting, so a worker killed
 * with -9 loses nothing), a recurring job fires again and again until CronDelete, a one-shot
 * fires once, and the texts are 2.1.328's.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StepSpec } from '../../src/fake-model';
import { routeByMarker } from '../../src/fake-model';
import { sessionWorkflowId } from '../../src/common/ids';
import type { SessionInput } from '../../src/common/session';
import { WORKFLOW_STATE_VERSION } from '../../src/common/turn';
import { sessionStateQuery, sessionStatusQuery } from '../../src/workflows/messages';
import { installRuntimeLogging } from '../../src/worker/logging';
import { makeRepo, startRunnerEnv, testTurnOptions } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';
import { lastUserText as lastUser } from '../helpers/model-requests';
import { startWorkerProcess } from '../helpers/worker-process';
import type { WorkerProcess } from '../helpers/worker-process';

installRuntimeLogging('WARN');

async function waitFor<T>(what: string, check: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const call = (name: string, input: Record<string, unknown>, id: string): StepSpec => ({
  content: [{ tool_use: { id, name, input } }],
});
const say = (t: string): StepSpec => ({ content: [{ text: t }] });
/**
 * Ends the session's run (its timers go with it) and starts the next from `input` (its carried
 * state), as continue-as-new does.
 */
async function nextRun(env: RunnerEnv, input: SessionInput): Promise<void> {
  const workflowId = sessionWorkflowId(input.sessionId);
  await env.client.workflow.getHandle(workflowId).terminate('test: the next run starts from the carried state');
  await env.client.workflow.start('sessionWorkflow', { workflowId, taskQueue: env.taskQueue, args: [input] });
}

const CRON_TOOLS = ['Read', 'CronCreate', 'CronList', 'CronDelete'];
const WHEN = '[A-Z][a-z]{2} \\d{1,2} \\d{1,2}:\\d\\d[ap]m';

describe('CronCreate, CronList and CronDelete as durable tasks of the session', () => {
  let env: RunnerEnv | undefined;
  const workers: WorkerProcess[] = [];
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.kill9().catch(() => undefined);
    await env?.close();
    env = undefined;
  });

  test('cron: a recurring job fires twice from the session after kill -9 of the worker that created it, then CronDelete ends it; a one-shot fires once; errors and list as 2.1.328', async () => {
    const seen: Array<{ text: string; at: number }> = [];
    // A one-shot two minutes ahead (local time, as cron reads it).
    const at = new Date(Date.now() + 120_000);
    const oneShot = `${at.getMinutes()} ${at.getHours()} ${at.getDate()} ${at.getMonth() + 1} *`;
    let recurringId = '';
    let ticks = 0;
    // A fire's turn is told from a retry of its model call (a loaded machine) by the conversation's
    // length: a retried call sends the same messages, a later fire's turn sends more.
    const tickAnswers = new Map<number, StepSpec>();
    env = await startRunnerEnv({
      worker: false,
      responder: (req, ctx) => {
        const text = lastUser(req);
        const again = text === '[cron] Tick.' ? tickAnswers.get(req.messages.length) : undefined;
        if (again) return again;
        seen.push({ text, at: Date.now() });
        if (text === '[cron] Tick.') {
          ticks++;
          const answer = ticks === 1 ? say('Ticked.') : call('CronDelete', { id: recurringId }, `toolu_del_${ticks}`);
          tickAnswers.set(req.messages.length, answer);
          return answer;
        }
        if (text === '[once] Reminder.') return say('Reminded.');
        if (text.startsWith('Cancelled job')) return say('Deleted.');
        return [
          call('CronCreate', { cron: '* * * * *', prompt: '[cron] Tick.' }, 'toolu_c_0'),
          call('CronCreate', { cron: oneShot, prompt: '[once] Reminder.', recurring: false }, 'toolu_c_1'),
          call('CronCreate', { cron: 'not a cron', prompt: 'x' }, 'toolu_c_2'),
          call('CronCreate', { cron: '0 0 31 2 *', prompt: 'x', recurring: false }, 'toolu_c_3'),
          call('CronDelete', { id: 'nope' }, 'toolu_c_4'),
          call('CronList', {}, 'toolu_c_5'),
          say('Scheduled.'),
        ][ctx.step]!;
      },
    });
    workers.push(await startWorkerProcess(env.workerEnv));
    const engine = env.engine({ cwd: makeRepo({ 'a.txt': 'a\n' }), defaults: testTurnOptions({ tools: CRON_TOOLS }) });
    const { result } = await env.runTurn(engine, 'schedule');
    expect(result).toMatchObject({ subtype: 'success', result: 'Scheduled.' });

    const created = new RegExp(
      `^Scheduled recurring job ([0-9a-f]{8}) \\(Every minute\\)\\. Next run: ${WHEN}\\. Session-only \\(not written to disk, dies when Claude exits\\)\\. Auto-expires after 7 days\\. Use CronDelete to cancel sooner\\.$`,
    ).exec(seen[1]!.text);
    expect(created).not.toBeNull();
    recurringId = created![1]!;
    const once = new RegExp(
      `^Scheduled one-shot task ([0-9a-f]{8}) \\(${oneShot.replace(/\*/g, '\\*')}\\)\\. Next run: ${WHEN}\\. Session-only \\(not written to disk, dies when Claude exits\\)\\. It will fire once then auto-delete\\.$`,
    ).exec(seen[2]!.text);
    expect(once).not.toBeNull();
    expect(seen[3]!.text).toBe(
      "<tool_use_error>Invalid cron expression 'not a cron'. Expected 5 fields: M H DoM Mon DoW.</tool_use_error>",
    );
    expect(seen[4]!.text).toBe(
      "<tool_use_error>Cron expression '0 0 31 2 *' does not match any calendar date in the next year.</tool_use_error>",
    );
    expect(seen[5]!.text).toBe("<tool_use_error>No scheduled job with id 'nope'</tool_use_error>");
    const list = seen[6]!.text.split('\n');
    expect(list).toHaveLength(2);
    expect(list[0]).toMatch(
      new RegExp(
        `^${recurringId} — Every minute \\(recurring\\) \\[session-only\\], next run ${WHEN}: \\[cron\\] Tick\\.$`,
      ),
    );
    expect(list[1]).toMatch(
      new RegExp(`^${once![1]} — .* \\(one-shot\\) \\[session-only\\], next run ${WHEN}: \\[once\\] Reminder\\.$`),
    );

    // No worker holds the timers: kill the one that created the jobs, start another.
    await workers[0]!.kill9();
    workers.push(await startWorkerProcess(env.workerEnv));
    const status = async (): Promise<Array<{ taskId: string; kind: string; status: string }>> =>
      (
        (await env!.client.workflow.getHandle(sessionWorkflowId(engine.sessionId)).query(sessionStatusQuery)).tasks ??
        []
      ).map((t) => ({ taskId: t.taskId, kind: t.kind, status: t.status }));
    expect(await status()).toEqual(
      expect.arrayContaining([
        { taskId: recurringId, kind: 'cron', status: 'running' },
        { taskId: once![1], kind: 'cron', status: 'running' },
      ]),
    );

    // Every minute, up to half a minute late (its per-job offset): two fires within ~2.5 min.
    await waitFor('the second tick', () => (ticks >= 2 ? true : undefined), 200_000);
    await waitFor('the reminder', () => seen.find((s) => s.text === '[once] Reminder.'), 120_000);
    await waitFor('the deletion', () => seen.find((s) => s.text.startsWith('Cancelled job')), 30_000);
    const tickTimes = seen.filter((s) => s.text === '[cron] Tick.').map((s) => s.at);
    expect(tickTimes[1]! - tickTimes[0]!).toBeGreaterThan(40_000);
    expect(seen.find((s) => s.text.startsWith('Cancelled job'))!.text).toBe(`Cancelled job ${recurringId}.`);
    await new Promise((r) => setTimeout(r, 2000));
    const end = await status();
    expect(end).toEqual(
      expect.arrayContaining([
        { taskId: recurringId, kind: 'cron', status: 'killed' },
        { taskId: once![1], kind: 'cron', status: 'completed' },
      ]),
    );
    expect(seen.filter((s) => s.text === '[once] Reminder.')).toHaveLength(1);
    expect(ticks).toBe(2);
  }, 360_000);

  test('cron: a durable CronCreate with a malformed .claude/scheduled_tasks.json gets an error result at once and creates no job; the file is left as it is', async () => {
    const seen: string[] = [];
    env = await startRunnerEnv({
      responder: (req, ctx) => {
        seen.push(lastUser(req));
        return [
          call('CronCreate', { cron: '* * * * *', prompt: 'Tick.', durable: true }, 'toolu_cd_0'),
          call('CronList', {}, 'toolu_cd_1'),
          say('Done.'),
        ][ctx.step]!;
      },
    });
    const cwd = makeRepo({ 'a.txt': 'a\n', '.claude/scheduled_tasks.json': 'PRIVATE TEXT {' });
    const engine = env.engine({ cwd, defaults: testTurnOptions({ tools: CRON_TOOLS }) });
    const started = Date.now();
    const { result } = await env.runTurn(engine, 'schedule durably');
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(result).toMatchObject({ subtype: 'success', result: 'Done.' });
    expect(seen[1]).toMatch(/durable: true cannot be kept: .*scheduled_tasks\.json: it is not valid JSON/);
    expect(seen[1]).not.toContain('PRIVATE TEXT');
    expect(seen[2]).toBe('No scheduled jobs.');
    expect(readFileSync(join(cwd, '.claude/scheduled_tasks.json'), 'utf8')).toBe('PRIVATE TEXT {');
  }, 120_000);

  test('cron: a job carried in the task table to a new run of the session (what continue-as-new starts) is armed again and fires', async () => {
    const seen: string[] = [];
    env = await startRunnerEnv({
      responder: (req, ctx) => {
        const text = lastUser(req);
        seen.push(text);
        if (text === '[carried] Tick.') return say('Ticked in the new run.');
        return [call('CronCreate', { cron: '* * * * *', prompt: '[carried] Tick.' }, 'toolu_cc_0'), say('Set.')][
          ctx.step
        ]!;
      },
    });
    const cwd = makeRepo({ 'a.txt': 'a\n' });
    const defaults = testTurnOptions({ tools: CRON_TOOLS });
    const engine = env.engine({ cwd, defaults });
    const { result } = await env.runTurn(engine, 'schedule');
    expect(result).toMatchObject({ subtype: 'success', result: 'Set.' });
    const id = /^Scheduled recurring job ([0-9a-f]{8}) /.exec(seen[1]!)![1]!;
    // End this run (its timer goes with it) and start the next from its carried state, as
    // continue-as-new does: the next run re-arms the job from the table alone.
    const handle = env.client.workflow.getHandle(sessionWorkflowId(engine.sessionId));
    const state = await handle.query(sessionStateQuery);
    expect(state.tasks?.entries.find((e) => e.taskId === id)).toMatchObject({ kind: 'cron', status: 'running' });
    await nextRun(env, { v: WORKFLOW_STATE_VERSION, sessionId: engine.sessionId, cwd, defaults, state });
    await waitFor('the carried job to fire', () => (seen.includes('[carried] Tick.') ? true : undefined), 120_000);
    const rows = (await handle.query(sessionStatusQuery)).tasks ?? [];
    expect(rows.find((t) => t.taskId === id)).toMatchObject({ kind: 'cron', status: 'running' });
    expect(rows.find((t) => t.taskId === id)?.cron?.fires).toBe(1);
    await handle.terminate('test done');
  }, 200_000);

  test("cron: a job a subagent creates fires with the subagent's tools and permission mode, not the session's", async () => {
    const toolsOf = new Map<string, string[]>();
    env = await startRunnerEnv({
      responder: routeByMarker(
        [
          {
            marker: '[as:main]',
            steps: [
              {
                content: [
                  {
                    tool_use: {
                      name: 'Agent',
                      input: {
                        description: 'Schedule',
                        prompt: '[as:sub] Schedule it.',
                        subagent_type: 'Explore',
                        run_in_background: false,
                      },
                    },
                  },
                ],
              },
              say('Delegated.'),
            ],
          },
          {
            marker: '[as:sub]',
            steps: [
              {
                content: [
                  {
                    tool_use: { name: 'CronCreate', input: { cron: '0 0 1 1 *', prompt: '[as:fired] Write a file.' } },
                  },
                ],
              },
              say('Scheduled.'),
            ],
          },
          { marker: '[as:fired]', steps: [say('Fired.')] },
        ],
        {
          onRoute: (req, ctx) =>
            toolsOf.set(
              `${ctx.script}#${ctx.scriptStep}`,
              (req.tools ?? []).map((t) => String((t as { name?: string }).name)),
            ),
        },
      ),
    });
    const cwd = makeRepo({ 'a.txt': 'a\n' });
    const defaults = testTurnOptions({
      tools: ['Read', 'Write', 'Bash', 'Agent', ...CRON_TOOLS.slice(1)],
      subagents: {},
    });
    const engine = env.engine({ cwd, defaults });
    const { result } = await env.runTurn(engine, '[as:main] Do the task.');
    expect(result).toMatchObject({ subtype: 'success', result: 'Delegated.' });
    expect(toolsOf.get('[as:main]#0')).toEqual(expect.arrayContaining(['Write', 'Agent']));
    const subTools = toolsOf.get('[as:sub]#0')!;
    expect(subTools).not.toContain('Write');
    // Fire the job now: the next run of the session (as continue-as-new starts it) with the job due.
    const handle = env.client.workflow.getHandle(sessionWorkflowId(engine.sessionId));
    const state = await handle.query(sessionStateQuery);
    const job = state.tasks!.entries.find((e) => e.kind === 'cron')!;
    expect(job.cron?.scheduledBy).toMatchObject({ agentType: 'Explore', permissionMode: 'bypassPermissions' });
    job.cron!.nextFireAtMs = Date.now();
    await nextRun(env, { v: WORKFLOW_STATE_VERSION, sessionId: engine.sessionId, cwd, defaults, state });
    await waitFor('the fire', () => toolsOf.get('[as:fired]#0'), 60_000);
    expect([...toolsOf.get('[as:fired]#0')!].sort()).toEqual([...subTools].sort());
    await handle.terminate('test done');
  }, 120_000);

  test('cron: a client that ends its session ends the session-only jobs with it (CronCreate: "dies when Claude exits"); the session completes', async () => {
    env = await startRunnerEnv({
      responder: (req) => {
        const text = lastUser(req);
        if (text === 'schedule') return call('CronCreate', { cron: '* * * * *', prompt: 'Tick.' }, 'toolu_so_0');
        return say('Set.');
      },
    });
    const engine = env.engine({ cwd: makeRepo({ 'a.txt': 'a\n' }), defaults: testTurnOptions({ tools: CRON_TOOLS }) });
    expect((await env.runTurn(engine, 'schedule')).result).toMatchObject({ subtype: 'success', result: 'Set.' });
    const handle = env.client.workflow.getHandle(sessionWorkflowId(engine.sessionId));
    await engine.end();
    await handle.result();
    expect((await handle.describe()).status.name).toBe('COMPLETED');
  }, 60_000);

  test("cron: a session its client ended, kept running by a pending durable job, takes a resuming client's turn (CronDelete can end the job)", async () => {
    const seen: string[] = [];
    let jobId = '';
    env = await startRunnerEnv({
      responder: (req) => {
        const text = lastUser(req);
        seen.push(text);
        if (text === 'schedule')
          return call('CronCreate', { cron: '0 0 1 1 *', prompt: 'New year.', durable: true }, 'toolu_rs_0');
        if (/^Scheduled .*job [0-9a-f]{8}/.test(text)) {
          jobId = /job ([0-9a-f]{8})/.exec(text)![1]!;
          return say('Set.');
        }
        if (text === 'delete it') return call('CronDelete', { id: jobId }, 'toolu_rs_1');
        return say('Deleted.');
      },
    });
    const cwd = makeRepo({ 'a.txt': 'a\n' });
    const defaults = testTurnOptions({ tools: CRON_TOOLS });
    const first = env.engine({ cwd, defaults });
    expect((await env.runTurn(first, 'schedule')).result).toMatchObject({ subtype: 'success', result: 'Set.' });
    // The -p client exits: it ends the session, which stays running for the durable job.
    await first.end();
    const handle = env.client.workflow.getHandle(sessionWorkflowId(first.sessionId));
    await new Promise((r) => setTimeout(r, 500));
    expect((await handle.describe()).status.name).toBe('RUNNING');
    const resumed = env.engine({ cwd, defaults, sessionId: first.sessionId });
    const { result } = await env.runTurn(resumed, 'delete it');
    expect(result).toMatchObject({ subtype: 'success', result: 'Deleted.' });
    expect(seen).toContain(`Cancelled job ${jobId}.`);
    // No job left and ended again by the resumed client: the session completes.
    await resumed.end();
    await handle.result();
    expect((await handle.describe()).status.name).toBe('COMPLETED');
  }, 60_000);

  test('cron: an over-large scheduled prompt is a tool error; a recurring job whose fires keep failing ends failed', async () => {
    const seen: string[] = [];
    const big = 'x'.repeat(100_001);
    env = await startRunnerEnv({
      responder: (req, ctx) => {
        const text = lastUser(req);
        seen.push(text);
        if (text === '[cron] Fail.') return { errors: [{ status: 413 }], content: [{ text: 'never' }] };
        return [
          call('CronCreate', { cron: '* * * * *', prompt: big }, 'toolu_big_0'),
          call('ScheduleWakeup', { delaySeconds: 60, prompt: big, reason: 'r' }, 'toolu_big_1'),
          call('CronCreate', { cron: '0 0 1 1 *', prompt: '[cron] Fail.' }, 'toolu_big_2'),
          say('Set.'),
        ][ctx.step]!;
      },
    });
    const cwd = makeRepo({ 'a.txt': 'a\n' });
    const defaults = testTurnOptions({ tools: [...CRON_TOOLS, 'ScheduleWakeup'] });
    const engine = env.engine({ cwd, defaults });
    expect((await env.runTurn(engine, 'schedule')).result).toMatchObject({ subtype: 'success', result: 'Set.' });
    const tooLong =
      'The prompt is 100001 characters; a scheduled prompt is at most 100000 (it is sent at every fire). Write the details to a file and have the prompt refer to it.';
    expect(seen[1]).toBe(`<tool_use_error>${tooLong}</tool_use_error>`);
    expect(seen[2]).toBe(tooLong);
    const handle = env.client.workflow.getHandle(sessionWorkflowId(engine.sessionId));
    const state = await handle.query(sessionStateQuery);
    const jobs = (state.tasks?.entries ?? []).filter((e) => e.kind === 'cron');
    expect(jobs).toHaveLength(1);
    const job = jobs[0]!;
    expect(job.cron?.failedFires).toBe(0);
    // Two fires have failed already; the third in a row ends the job.
    job.cron!.failedFires = 2;
    job.cron!.nextFireAtMs = Date.now();
    await nextRun(env, { v: WORKFLOW_STATE_VERSION, sessionId: engine.sessionId, cwd, defaults, state });
    const deadline = Date.now() + 60_000;
    let ended: { status: string; description: string } | undefined;
    while (!ended && Date.now() < deadline) {
      const rows = (await handle.query(sessionStatusQuery)).tasks ?? [];
      const r = rows.find((t) => t.taskId === job.taskId);
      if (r && r.status !== 'running') ended = r;
      else await new Promise((res) => setTimeout(res, 300));
    }
    expect(ended?.status).toBe('failed');
    expect(ended?.description).toMatch(/ \(ended: its last 3 fires failed\)$/);
    await handle.terminate('test done');
  }, 90_000);
});
