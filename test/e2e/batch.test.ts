/**
 * `agent-runner batch` end to end: the built CLI (`npm run build` first) as a child process
 * against the test dev server (TEMPORAL_ADDRESS), workers in-process or as `agent-runner worker`
 * children, the local model server scripting every task's conversation with a responder.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { WorkflowNotFoundError } from '@temporalio/client';
import { defaultBatchId, taskSessionId } from '../../src/client/batch';
import type { BatchResult } from '../../src/client/batch';
import { listSessions } from '../../src/client/list';
import { repeatedCompletedCalls } from '../../src/fake-model';
import type { Responder, StepSpec } from '../../src/fake-model';
import { firstUserText } from '../../src/fake-model/request';
import { turnWorkflowId } from '../../src/common/ids';
import { makeRepo, startRunnerEnv, temporalAddress } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';
import { startWorkerProcess } from '../helpers/worker-process';
import type { WorkerProcess } from '../helpers/worker-process';

jest.setTimeout(120_000);

const BIN = join(__dirname, '..', '..', 'bin', 'agent-runner.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface Child {
  proc: ChildProcess;
  done: Promise<Run>;
  stderr(): string;
}

function startCli(args: string[], env: NodeJS.ProcessEnv, cwd: string): Child {
  const proc = spawn(process.execPath, [BIN, ...args], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  proc.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const done = new Promise<Run>((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`agent-runner ${args.join(' ')} timed out\n${stderr}`));
    }, 100_000);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      // let the pipes drain
      setImmediate(() => resolve({ code, stdout, stderr }));
    });
  });
  return { proc, done, stderr: () => stderr };
}

function readResults(path: string): BatchResult[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as BatchResult);
}

function writeTasks(dir: string, lines: Array<Record<string, unknown> | string>): string {
  const file = join(dir, 'tasks.jsonl');
  writeFileSync(file, `${lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n')}\n`);
  return file;
}

/**
 * Every task's conversation: step 0 appends the task id to runs.log with Bash (a non-idempotent
 * tool: a task run twice would leave two lines), step 1 answers `done <id>`.
 */
function markerResponder(markerLog: string, extra: Partial<StepSpec> = {}): Responder {
  return (req, ctx) => {
    const id = /task (\S+):/.exec(firstUserText(req))?.[1] ?? 'unknown';
    if (ctx.step === 0) {
      return { ...extra, content: [{ tool_use: { name: 'Bash', input: { command: `echo ${id} >> ${markerLog}` } } }] };
    }
    return { ...extra, content: [{ text: `done ${id}` }] };
  };
}

async function turnExists(env: RunnerEnv, workflowId: string): Promise<boolean> {
  try {
    await env.client.workflow.getHandle(workflowId).describe();
    return true;
  } catch (e) {
    if (e instanceof WorkflowNotFoundError) return false;
    throw e;
  }
}

/** Each task's conversation (key = session id) has exactly one completed call per step. */
function completedStepsBySession(env: RunnerEnv): Map<string, number[]> {
  const m = new Map<string, number[]>();
  for (const e of env.fake.completedCalls()) m.set(e.conversationKey, [...(m.get(e.conversationKey) ?? []), e.step]);
  return m;
}

describe('agent-runner batch', () => {
  let env: RunnerEnv | undefined;
  const workers: WorkerProcess[] = [];
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.stop().catch(() => undefined);
    await env?.close();
    env = undefined;
  });

  function cliEnv(e: RunnerEnv): NodeJS.ProcessEnv {
    return { ...e.workerEnv, TEMPORAL_ADDRESS: temporalAddress() };
  }

  test('batch: 50 tasks with concurrency 10 complete; results, summary and list agree', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dar-batch-50-'));
    const marker = join(dir, 'runs.log');
    env = await startRunnerEnv({ responder: markerResponder(marker) });
    const repo = makeRepo({});
    const file = writeTasks(
      dir,
      Array.from({ length: 50 }, (_, i) => ({
        id: `t${i}`,
        prompt: `task t${i}: mark and answer`,
        cwd: repo,
        allowedTools: ['Bash'],
      })),
    );
    const batchId = `fifty-${Date.now()}`;
    const out = join(dir, 'results.jsonl');
    const started = Date.now();
    const r = await startCli(
      ['batch', file, '--concurrency', '10', '--out', out, '--batch-id', batchId, '--progress', 'lines'],
      cliEnv(env),
      dir,
    ).done;
    const elapsed = Date.now() - started;
    expect({ code: r.code, stderr: r.stderr.slice(-3000) }).toMatchObject({ code: 0 });
    const results = readResults(out);
    expect(results).toHaveLength(50);
    expect(new Set(results.map((x) => x.task_id)).size).toBe(50);
    for (const x of results) {
      expect(x).toMatchObject({ type: 'result', subtype: 'success', is_error: false, batch_id: batchId, num_turns: 2 });
      expect(x.result).toBe(`done ${x.task_id}`);
      expect(x.session_id).toBe(taskSessionId(batchId, x.task_id));
    }
    expect(readFileSync(marker, 'utf8').trim().split('\n').sort()).toEqual(
      Array.from({ length: 50 }, (_, i) => `t${i}`).sort(),
    );
    expect(env.fake.completedCalls()).toHaveLength(100);
    expect(repeatedCompletedCalls(env.fake.requests())).toEqual([]);
    // Progress lines (no TTY: no ANSI), the summary table on stdout.
    expect(r.stderr).not.toContain('\x1b[');
    expect(r.stderr).toMatch(/✓ t\d+ success · 2 turns/);
    expect(r.stdout).toMatch(/^TASK\s+STATUS\s+TURNS\s+COST\s+TIME\s+SESSION/m);
    expect(r.stdout).toMatch(/50 tasks: 50 succeeded, 0 failed/);
    // Search attributes: the batch's 50 sessions, all success.
    const rows = await (async () => {
      for (let i = 0; ; i++) {
        const rs = await listSessions(env!.client, { batchId });
        if ((rs.length === 50 && rs.every((x) => x.agentStatus === 'success')) || i > 50) return rs;
        await sleep(200);
      }
    })();
    expect(rows).toHaveLength(50);
    expect(rows.every((x) => x.agentStatus === 'success' && (x.costUsd ?? 0) > 0)).toBe(true);
    const list = await startCli(['list', '--batch', batchId, '--json'], cliEnv(env), dir).done;
    expect(list.code).toBe(0);
    expect(list.stdout.trim().split('\n')).toHaveLength(50);
    console.log(
      `batch throughput: 50 tasks (100 model calls, 50 Bash runs), concurrency 10: ${elapsed} ms wall ` +
        `(CLI start included), ${(50 / (elapsed / 1000)).toFixed(2)} tasks/s`,
    );
  });

  test('batch: kill -9 of the batch command halfway; running it again finishes the rest, no task runs twice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dar-batch-kill-'));
    const marker = join(dir, 'runs.log');
    env = await startRunnerEnv({ worker: false, responder: markerResponder(marker, { delay_ms: 700 }) });
    workers.push(await startWorkerProcess(env.workerEnv));
    const repo = makeRepo({});
    const n = 20;
    const file = writeTasks(
      dir,
      Array.from({ length: n }, (_, i) => ({ id: `k${i}`, prompt: `task k${i}: mark and answer`, cwd: repo })),
    );
    const batchId = defaultBatchId(file, readFileSync(file, 'utf8'));
    const args = (out: string): string[] => [
      'batch',
      file,
      '--concurrency',
      '4',
      '--out',
      out,
      '--progress',
      'lines',
      '--dangerously-skip-permissions',
    ];

    const first = startCli(args(join(dir, 'results-1.jsonl')), cliEnv(env), dir);
    for (let i = 0; readResults(join(dir, 'results-1.jsonl')).length < 6; i++) {
      if (i > 600) throw new Error(`no progress:\n${first.stderr()}`);
      await sleep(50);
    }
    first.proc.kill('SIGKILL');
    const killed = await first.done;
    expect(killed.code).toBeNull();
    const before = readResults(join(dir, 'results-1.jsonl')).length;
    expect(before).toBeLessThan(n);

    const second = await startCli(args(join(dir, 'results-2.jsonl')), cliEnv(env), dir).done;
    expect({ code: second.code, stderr: second.stderr.slice(-3000) }).toMatchObject({ code: 0 });
    expect(second.stderr).toContain(`agent-runner batch ${batchId}:`);
    const results = readResults(join(dir, 'results-2.jsonl'));
    expect(results).toHaveLength(n);
    expect(results.every((x) => x.subtype === 'success')).toBe(true);
    const earlier = (second.stderr.match(/\(finished earlier, not run again\)/g) ?? []).length;
    const attached = (second.stderr.match(/\(re-attached\)/g) ?? []).length;
    expect(earlier).toBeGreaterThanOrEqual(before);
    expect(earlier + attached).toBeLessThan(n); // something was left to start

    // No task ran twice: one Bash run per task, one completed model call per step, one turn per session.
    expect(readFileSync(marker, 'utf8').trim().split('\n').sort()).toEqual(
      Array.from({ length: n }, (_, i) => `k${i}`).sort(),
    );
    const steps = completedStepsBySession(env);
    expect(steps.size).toBe(n);
    for (let i = 0; i < n; i++) {
      const sid = taskSessionId(batchId, `k${i}`);
      expect([sid, steps.get(sid)?.sort()]).toEqual([sid, [0, 1]]);
      expect(await turnExists(env, turnWorkflowId(sid, 2))).toBe(false);
    }
    expect(repeatedCompletedCalls(env.fake.requests())).toEqual([]);
    console.log(
      `batch kill/resume: ${before} results before kill -9; re-run: ${earlier} finished earlier, ${attached} re-attached, ${n - earlier - attached} started`,
    );
  });

  test('batch: a malformed line is reported with its line number and skipped; the rest runs; exit 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dar-batch-bad-'));
    env = await startRunnerEnv({ responder: markerResponder(join(dir, 'runs.log')) });
    const repo = makeRepo({});
    const file = writeTasks(dir, [
      { id: 'a', prompt: 'task a: go', cwd: repo },
      '{"id": "b", "prompt": "task b: go"',
      { id: 'c', prompt: 'task c: go', repo },
      { id: 'd', prompt: 'task d: go', maxTurns: 'three' },
      { id: 'e', prompt: 'task e: go', cwd: repo },
    ]);
    const out = join(dir, 'results.jsonl');
    const r = await startCli(['batch', file, '--out', out, '--progress', 'none'], cliEnv(env), dir).done;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${file}:2: skipped: not valid JSON`);
    expect(r.stderr).toMatch(
      new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:4: skipped: task "d": maxTurns:`),
    );
    const results = readResults(out);
    expect(results.map((x) => `${x.task_id}:${x.subtype}`).sort()).toEqual(['a:success', 'c:success', 'e:success']);
    expect(r.stdout).toContain('line 2: skipped: not valid JSON');
    expect(r.stdout).toMatch(/3 tasks: 3 succeeded, 0 failed, 2 malformed lines skipped/);

    // Usage errors exit 2 and run nothing.
    const missing = await startCli(['batch', join(dir, 'nope.jsonl')], cliEnv(env), dir).done;
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('not found');
    const badFlag = await startCli(['batch', file, '--concurrency', '0'], cliEnv(env), dir).done;
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toContain('--concurrency must be a positive integer');
    const onlyBad = writeTasks(mkdtempSync(join(tmpdir(), 'dar-batch-bad2-')), ['not json']);
    const none = await startCli(['batch', onlyBad], cliEnv(env), dir).done;
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no valid task');
  });

  test('batch: the batch stops at its budget (--max-budget-usd, a budget pool)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dar-batch-budget-'));
    // $0.21 per model call: 100k uncached input tokens at $2/MTok plus 1k output at $10/MTok.
    const usage = {
      input_tokens: 100_000,
      output_tokens: 1000,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    };
    env = await startRunnerEnv({
      responder: (req, ctx) => {
        const id = /task (\S+):/.exec(firstUserText(req))?.[1] ?? 'unknown';
        if (ctx.step < 2) {
          return {
            usage,
            delay_ms: 150,
            content: [{ tool_use: { name: 'Bash', input: { command: `echo ${id}-${ctx.step}` } } }],
          };
        }
        return { usage, content: [{ text: `done ${id}` }] };
      },
    });
    const repo = makeRepo({});
    const n = 8;
    const file = writeTasks(
      dir,
      Array.from({ length: n }, (_, i) => ({ id: `m${i}`, prompt: `task m${i}: three calls`, cwd: repo })),
    );
    const out = join(dir, 'results.jsonl');
    const r = await startCli(
      ['batch', file, '--concurrency', '2', '--max-budget-usd', '1', '--out', out, '--progress', 'lines'],
      cliEnv(env),
      dir,
    ).done;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('budget $1');
    const results = readResults(out);
    expect(results).toHaveLength(n);
    const budgetStops = results.filter((x) => x.subtype === 'error_max_budget_usd');
    expect(budgetStops.length).toBeGreaterThanOrEqual(n - 2);
    const skipped = results.filter((x) => x.num_turns === 0);
    expect(skipped.length).toBeGreaterThanOrEqual(3);
    // A task is either skipped by the batch, or (if it started just as the pool ran out) stopped by
    // the pool before its first call: both are budget stops with no model call.
    for (const x of skipped) {
      expect(x.errors?.join(' ')).toMatch(/not started: the batch budget of \$1|Budget pool exhausted \(\$1\)/);
    }
    const calls = env.fake.completedCalls().length;
    const spent = results.reduce((s, x) => s + x.total_cost_usd, 0);
    // Each member starts at most one call after the pool is exhausted (it waits for the pool's ack).
    expect(calls).toBeLessThanOrEqual(Math.ceil(1 / 0.21) + 2);
    expect(spent).toBeLessThanOrEqual(1 + 2 * 0.21 + 1e-9);
    expect(spent).toBeGreaterThanOrEqual(1 - 1e-9);
    // Calls cost $0.21 each, so the pool's last call crosses $1: the batch says by how much.
    expect(r.stderr).toMatch(/the batch spent \$\d+\.\d{4} of its \$1 budget: \$\d+\.\d{4} \(\d+\.\d%\) over/);
    console.log(
      `batch budget: $1 limit, ${calls} model calls, $${spent.toFixed(4)} spent, ${skipped.length} tasks not started`,
    );
  });

  test('batch: re-running an unchanged file says loudly that nothing ran and how to run again; --retry-failed re-runs only the failed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dar-batch-rerun-'));
    const fixed = join(dir, 'fixed');
    env = await startRunnerEnv({
      responder: (req) => {
        const id = /task (\S+):/.exec(firstUserText(req))?.[1] ?? 'unknown';
        if (id === 'bad' && !existsSync(fixed)) {
          return { content: [{ tool_use: { name: 'Bash', input: { command: 'echo again' } } }] };
        }
        return { content: [{ text: `done ${id}` }] };
      },
    });
    const repo = makeRepo({});
    const file = writeTasks(dir, [
      { id: 'good', prompt: 'task good: answer', cwd: repo },
      { id: 'bad', prompt: 'task bad: answer', cwd: repo, maxTurns: 1, allowedTools: ['Bash'] },
    ]);
    const run = async (extra: string[] = []) => {
      const out = join(dir, `results-${Date.now()}.jsonl`);
      const r = await startCli(
        ['batch', file, '--out', out, '--progress', 'lines', ...extra],
        cliEnv(env as RunnerEnv),
        dir,
      ).done;
      return { ...r, results: new Map(readResults(out).map((x) => [x.task_id, x])) };
    };

    const first = await run();
    expect(first.code).toBe(1);
    expect(first.results.get('bad')?.subtype).toBe('error_max_turns');
    expect(first.stderr).not.toContain('earlier run');

    const again = await run();
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('NOTHING RAN. All 2 tasks had finished in an earlier run of this batch');
    // The suggested commands carry every flag of the run (here --out and --progress).
    expect(again.stderr).toMatch(
      /to run every task again as a new batch: +agent-runner batch \S+ --out \S+ --progress lines --batch-id \S+-2 /,
    );
    expect(again.stderr).toMatch(
      /to run again only the 1 that failed: +agent-runner batch \S+ --out \S+ --progress lines --retry-failed/,
    );
    expect(again.stderr).toContain('(finished earlier, not run again)');

    writeFileSync(fixed, '');
    const retry = await run(['--retry-failed']);
    expect(retry.code).toBe(0);
    expect(retry.results.get('bad')).toMatchObject({ subtype: 'success', result: 'done bad' });
    expect(retry.results.get('bad')?.session_id).not.toBe(first.results.get('bad')?.session_id);
    expect(retry.results.get('good')?.session_id).toBe(first.results.get('good')?.session_id);
    expect(retry.stderr).toContain('bad: failed in an earlier run; retrying as a new session');
    expect(retry.stderr).toContain('1 of 2 tasks had finished in an earlier run of this batch and were not run again');
    // The failed first attempt's spend stays the task's: on its result line and in the summary's total.
    const badFirst = first.results.get('bad')!;
    expect(badFirst.total_cost_usd).toBeGreaterThan(0);
    expect(retry.results.get('bad')?.earlier_attempts).toEqual([
      {
        session_id: badFirst.session_id,
        subtype: 'error_max_turns',
        num_turns: badFirst.num_turns,
        total_cost_usd: badFirst.total_cost_usd,
        total_cost_usd_known: true,
      },
    ]);
    const spent = [retry.results.get('good'), retry.results.get('bad')].reduce(
      (sum, r) => sum + (r?.total_cost_usd ?? 0),
      badFirst.total_cost_usd,
    );
    const total = (out: string): string | undefined => /^2 tasks: .* · \$(\d+\.\d{4}) · /m.exec(out)?.[1];
    expect(total(retry.stdout)).toBe(spent.toFixed(4));

    const settled = await run();
    expect(settled.code).toBe(0);
    expect(settled.results.get('bad')?.session_id).toBe(retry.results.get('bad')?.session_id);
    expect(settled.stderr).toContain('NOTHING RAN');
    expect(settled.stderr).not.toContain('--retry-failed');
    expect(settled.results.get('bad')?.earlier_attempts).toEqual(retry.results.get('bad')?.earlier_attempts);
    expect(total(settled.stdout)).toBe(spent.toFixed(4));
  });
});
