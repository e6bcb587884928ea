import { temporal } from '@temporalio/proto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StepSpec } from '../../src/fake-model';
import { installRuntimeLogging } from '../../src/worker/logging';
import { sessionWorkflowId } from '../../src/common/ids';
import { NOTIFICATION_HEAD } from '../../src/activities/agents/texts';
import { makeRepo, startRunnerEnv, testTurnOptions } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';
import { isProcessAlive } from '../helpers/processes';
import { lastUserText, textStep, toolCall, waitFor } from '../helpers/model-requests';

installRuntimeLogging('WARN');

const tool = toolCall;
const text = textStep;
const STARTED = /^Monitor started \(task (b[0-9a-z]{8}), expires in (\S+) unless the source ends first;/;

function started(seen: string[]): string {
  const id = seen.map((s) => STARTED.exec(s)?.[1]).find((x) => x !== undefined);
  if (!id) throw new Error(`no Monitor start in ${JSON.stringify(seen)}`);
  return id;
}

const event = (id: string, description: string, e: string): string =>
  `${NOTIFICATION_HEAD}<task-notification>\n<task-id>${id}</task-id>\n<summary>Monitor event: "${description}"</summary>\n<event>${e}</event>\n</task-notification>\n</system-reminder>`;

describe('Monitor: a command whose stdout lines reach the session as events while it runs', () => {
  let env: RunnerEnv | undefined;
  const seen: string[] = [];
  let play: (step: number) => StepSpec = () => text('?');
  beforeAll(async () => {
    env = await startRunnerEnv({
      responder: (req, ctx) => {
        seen.push(lastUserText(req));
        return play(ctx.step);
      },
    });
  });
  afterAll(async () => {
    await env?.close();
  });
  beforeEach(() => {
    seen.length = 0;
  });
  const engineFor = (cwd: string) =>
    env!.engine({
      cwd,
      defaults: testTurnOptions({ tools: ['Bash', 'Monitor', 'TaskStop', 'CronCreate', 'CronList'], subagents: {} }),
    });

  test("each line is an event turn while the command runs, its exit ends the task with 2.1.328's texts; no line is in workflow history", async () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    play = (step) =>
      step === 0
        ? tool(
            'Monitor',
            {
              description: 'three events',
              timeout_ms: 30000,
              command: 'for i in 1 2 3; do echo "event $i"; echo "noise $i" >&2; sleep 1; done',
            },
            'toolu_mon_1',
          )
        : text(step === 1 ? 'Watching.' : 'Noted.');
    const engine = engineFor(repo);
    const first = await env!.runTurn(engine, 'watch it');
    expect(first.result).toMatchObject({ subtype: 'success', result: 'Watching.' });
    const id = started(seen);
    expect(seen[1]).toContain('expires in 30s unless the source ends first');
    // The prompt, the start, three events, the end.
    await waitFor('the end notification', () => (seen.length >= 6 ? true : undefined));
    expect(seen.slice(2, 5)).toEqual([1, 2, 3].map((n) => event(id, 'three events', `event ${n}`)));
    const file = seen[1]!.match(/Output is being written to: (\S+)/)?.[1];
    expect(file).toBeUndefined(); // the start text names no file (2.1.328's)
    expect(seen[5]).toMatch(
      new RegExp(
        `^${escape(NOTIFICATION_HEAD)}<task-notification>\\n<task-id>${id}</task-id>\\n<tool-use-id>toolu_mon_1</tool-use-id>\\n<output-file>(\\S+)</output-file>\\n<status>completed</status>\\n<summary>Monitor "three events" stream ended</summary>\\n</task-notification>\\n</system-reminder>$`,
      ),
    );
    // Stderr is in the output file, not an event.
    const output = readFileSync(/<output-file>(\S+)<\/output-file>/.exec(seen[5]!)![1]!, 'utf8');
    expect(output).toContain('noise 2');
    expect(output.endsWith('\n[exited with code 0]\n')).toBe(true);
    // Content stays out of history: the session's and the task's histories hold refs only.
    const events =
      (await env!.client.workflow.getHandle(sessionWorkflowId(engine.sessionId)).fetchHistory()).events ?? [];
    const history = JSON.stringify(events);
    // Each event is one small signal (a ref, about 400 bytes of history).
    const signals = events.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'taskEvent');
    expect(signals).toHaveLength(3);
    const sizes = signals.map((e) => temporal.api.history.v1.HistoryEvent.encode(e).finish().length);
    process.stderr.write(`[monitor] taskEvent signal sizes (bytes): ${sizes.join(', ')}\n`);
    for (const n of sizes) expect(n).toBeLessThan(1024);
    expect(history).not.toContain('event 2');
    expect(history).not.toContain('noise');
    expect(seen).toHaveLength(6);
  }, 60_000);

  test("TaskStop of a monitor kills its command and answers with 2.1.328's JSON; no notification follows. Past timeout_ms a monitor gets one expiry event", async () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    let stopId = '';
    play = (step) =>
      step === 0
        ? tool('Monitor', { description: 'never ends', timeout_ms: 2000, command: 'sleep 30' }, 'toolu_mon_2')
        : step === 1
          ? tool(
              'Monitor',
              { description: 'to be stopped', timeout_ms: 60000, command: `echo $$ > ${repo}/pid; sleep 30` },
              'toolu_mon_3',
            )
          : step === 2
            ? tool('TaskStop', { task_id: (stopId = STARTED.exec(seen[2] ?? '')?.[1] ?? '') }, 'toolu_stop_3')
            : text(step === 3 ? 'Stopped.' : 'Expired.');
    const engine = engineFor(repo);
    const t0 = Date.now();
    const first = await env!.runTurn(engine, 'watch and stop');
    expect(first.result).toMatchObject({ subtype: 'success', result: 'Stopped.' });
    const expiring = started(seen);
    expect(seen[1]).toContain('expires in 2s');
    expect(seen[2]).toContain('expires in 1m');
    const command = `echo $$ > ${repo}/pid; sleep 30`;
    expect(seen[3]).toBe(
      JSON.stringify({
        message: `Successfully stopped task: ${stopId} (${command})`,
        task_id: stopId,
        task_type: 'local_bash',
        command,
      }),
    );
    const pid = Number(readFileSync(join(repo, 'pid'), 'utf8'));
    await waitFor('the stopped command to die', () => (!isProcessAlive(pid) ? true : undefined), 10_000);
    await waitFor('the expiry notification', () => (seen.length >= 5 ? true : undefined));
    expect(seen[4]).toBe(
      event(
        expiring,
        'never ends',
        '[Monitor expired after 2s with no events delivered. Re-arm it if you still need the watch — and widen the filter if silence was unexpected.]',
      ),
    );
    expect(Date.now() - t0).toBeLessThan(20_000);
    await new Promise((r) => setTimeout(r, 1500));
    expect(seen).toHaveLength(5);
  }, 60_000);

  test("TaskStop of a cron job's id is 2.1.328's no-task error (the job is not a task it stops; CronDelete is), and the job stays", async () => {
    let cronId = '';
    play = (step) =>
      step === 0
        ? tool('CronCreate', { cron: '7 9 * * *', prompt: 'Morning check.' }, 'toolu_cron_1')
        : step === 1
          ? tool(
              'TaskStop',
              { task_id: (cronId = /Scheduled recurring job ([0-9a-f]{8})/.exec(seen[1] ?? '')?.[1] ?? '') },
              'toolu_stop_c',
            )
          : step === 2
            ? tool('CronList', {}, 'toolu_list_c')
            : text('Done.');
    const engine = engineFor(makeRepo({ 'a.txt': 'a\n' }));
    await env!.runTurn(engine, 'schedule, then stop');
    expect(cronId).toMatch(/^[0-9a-f]{8}$/);
    expect(seen[2]).toBe(`<tool_use_error>No task found with ID: ${cronId}</tool_use_error>`);
    expect(seen[3]).toContain(cronId);
  }, 30_000);
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
