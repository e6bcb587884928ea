import type { ParsedRequest, StepSpec } from '../../src/fake-model';
import { installRuntimeLogging } from '../../src/worker/logging';
import { makeRepo, startRunnerEnv, testTurnOptions } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';
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

/** The last user message of a request: its text blocks and tool_result contents. */
function lastUser(req: ParsedRequest): { text: string; blocks: number } {
  const m = [...req.messages].reverse().find((x) => x.role === 'user');
  if (!m) return { text: '', blocks: 0 };
  if (typeof m.content === 'string') return { text: m.content, blocks: 1 };
  const text = m.content
    .map((b) => {
      const r = b as { type: string; text?: string; content?: unknown };
      if (r.type === 'text') return r.text ?? '';
      if (r.type === 'tool_result') return typeof r.content === 'string' ? r.content : JSON.stringify(r.content);
      return '';
    })
    .join('\n');
  return { text, blocks: m.content.length };
}

const wake = (input: Record<string, unknown>, id: string): StepSpec => ({
  content: [{ tool_use: { id, name: 'ScheduleWakeup', input } }],
});
const say = (t: string): StepSpec => ({ content: [{ text: t }] });
const SCHEDULED =
  /^Next wakeup scheduled for (\d\d:\d\d:\d\d) \(in (\d+)s\)( \(clamped to (\d+)s from your requested value\))?\. If you owe the user a status update this tick, write it now as ordinary response text; then end the turn — the harness re-invokes you when the wakeup fires or a task-notification arrives\.$/;

describe('ScheduleWakeup as a durable timer of the session', () => {
  let env: RunnerEnv | undefined;
  const workers: WorkerProcess[] = [];
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.kill9().catch(() => undefined);
    await env?.close();
    env = undefined;
  });

  test("ScheduleWakeup: 5 s is clamped to 60 s, 100000 s to 3600 s (a second call replaces the first), stop cancels 1, a missing prompt is 2.1.328's error", async () => {
    const seen: string[] = [];
    env = await startRunnerEnv({
      responder: (req, ctx) => {
        seen.push(lastUser(req).text);
        return [
          wake({ delaySeconds: 5, reason: 'short', prompt: 'Check.' }, 'toolu_w_0'),
          wake({ delaySeconds: 100000, reason: 'long', prompt: 'Check.' }, 'toolu_w_1'),
          wake({ delaySeconds: 60, reason: 'no prompt' }, 'toolu_w_2'),
          wake({ stop: true }, 'toolu_w_3'),
          wake({ stop: true }, 'toolu_w_4'),
          say('Stopped.'),
        ][ctx.step]!;
      },
    });
    const engine = env.engine({
      cwd: makeRepo({ 'a.txt': 'a\n' }),
      defaults: testTurnOptions({ tools: ['Read', 'ScheduleWakeup'] }),
    });
    const t0 = Date.now();
    const { result } = await env.runTurn(engine, 'schedule and stop');
    expect(result).toMatchObject({ subtype: 'success', result: 'Stopped.' });
    const first = SCHEDULED.exec(seen[1]!);
    expect(first?.[4]).toBe('60');
    const inS = Number(first?.[2]);
    // Rounded up to the whole minute: between 60 and 120 s from the call.
    expect(inS).toBeGreaterThanOrEqual(60);
    expect(inS).toBeLessThanOrEqual(121);
    // The clock of the fire time is a whole minute.
    expect(first?.[1]).toMatch(/:00$/);
    expect(Math.abs(t0 + inS * 1000 - Date.now())).toBeLessThan(125_000);
    expect(SCHEDULED.exec(seen[2]!)?.[4]).toBe('3600');
    expect(seen[3]).toBe('`prompt` is required when `stop` is not true.');
    expect(seen[4]).toMatch(/^Loop stopped — cancelled 1 pending wakeup\(s\);/);
    expect(seen[5]).toMatch(
      /^Loop stopped — any dynamic loop in this session is ended; there was no pending wakeup to cancel\./,
    );
  }, 60_000);

  test('ScheduleWakeup: a 60 s wake-up fires once, from the session alone, after the worker that armed it was killed: its prompt starts a turn as a plain user message', async () => {
    const seen: Array<{ text: string; blocks: number; at: number }> = [];
    env = await startRunnerEnv({
      worker: false,
      responder: (req, ctx) => {
        const u = lastUser(req);
        seen.push({ ...u, at: Date.now() });
        if (u.text === '[wake] Check the build.') return say('Checked after waking.');
        return ctx.step === 0
          ? wake({ delaySeconds: 60, reason: 'watching CI run', prompt: '[wake] Check the build.' }, 'toolu_w_60')
          : say('Waiting.');
      },
    });
    workers.push(await startWorkerProcess(env.workerEnv));
    const engine = env.engine({
      cwd: makeRepo({ 'a.txt': 'a\n' }),
      defaults: testTurnOptions({ tools: ['Read', 'ScheduleWakeup'] }),
    });
    const armedAt = Date.now();
    const { result } = await env.runTurn(engine, 'wake me');
    expect(result).toMatchObject({ subtype: 'success', result: 'Waiting.' });
    const scheduled = SCHEDULED.exec(seen[1]!.text);
    expect(scheduled).not.toBeNull();
    const dueAt = armedAt + Number(scheduled![2]) * 1000;
    // No worker holds the timer: kill the one that armed it, start another.
    await workers[0]!.kill9();
    workers.push(await startWorkerProcess(env.workerEnv));
    const woke = await waitFor(
      'the wake-up turn',
      () => seen.find((s) => s.text === '[wake] Check the build.'),
      150_000,
    );
    expect(woke.blocks).toBe(1);
    expect(woke.at).toBeGreaterThanOrEqual(dueAt - 2000);
    expect(woke.at - dueAt).toBeLessThan(10_000);
    await waitFor('the wake-up turn to answer', () => (seen.length >= 3 ? true : undefined), 20_000);
    await new Promise((r) => setTimeout(r, 2000));
    expect(seen.filter((s) => s.text === '[wake] Check the build.')).toHaveLength(1);
  }, 240_000);
});
