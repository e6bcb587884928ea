import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import type { Responder } from '../../src/fake-model';
import type { SDKResultMessage } from '../../src/common/sdk-messages';
import { installRuntimeLogging } from '../../src/worker/logging';
import { sessionsDir, transcriptPath } from '../../src/store/jsonl-store';
import { makeRepo, startRunnerEnv } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';
import { checkTranscript } from './helpers/transcript-check';
import { collect, expectIntactTranscript, startChildWorker, waitFor } from './helpers/fault-env';
import type { ChildWorker } from './helpers/fault-env';

installRuntimeLogging('WARN');

const TIMEOUTS = { modelHeartbeatMs: 5000, toolHeartbeatMs: 5000, modelMaxAttempts: 4 };

/**
 * Model: Bash steps printing 20 KB each (a ~40 KB tool_result line) until 12 model messages,
 * then "done"; a prompt containing "continue" gets "resumed" at once.
 */
const responder: Responder = (req) => {
  // The prompt may be followed by the session's context (memory, git status) in the request.
  const prompts = req.messages.filter((m) => m.role === 'user').map((m) => JSON.stringify(m.content));
  if (prompts.some((t) => t.includes('continue'))) return { content: [{ text: 'resumed' }] };
  const step = req.messages.filter((m) => m.role === 'assistant').length;
  if (step >= 12) return { content: [{ text: 'done' }] };
  return {
    delay_ms: 50,
    content: [{ tool_use: { name: 'Bash', input: { command: `head -c 20000 /dev/zero | tr '\\0' a; echo ${step}` } } }],
  };
};

/** Lines of the session file so far (0 when it does not exist). */
function lineCount(env: RunnerEnv, sessionId: string): number {
  try {
    return checkTranscript(env.dataDir, sessionId, { allowTornLines: true }).lines;
  } catch {
    return 0;
  }
}

/** Makes a file unwritable even for root: `chattr +i` as root, chmod otherwise; null when impossible here. */
function makeUnwritable(file: string): { how: string; undo(): void } | null {
  if (process.getuid?.() !== 0) {
    chmodSync(file, 0o444);
    return { how: 'chmod 444', undo: () => chmodSync(file, 0o644) };
  }
  try {
    execFileSync('chattr', ['+i', file], { stdio: 'ignore' });
    return { how: 'chattr +i', undo: () => execFileSync('chattr', ['-i', file], { stdio: 'ignore' }) };
  } catch {
    return null;
  }
}

describe('faults: the transcript store cannot be written', () => {
  let env: RunnerEnv;
  const children: ChildWorker[] = [];
  afterEach(async () => {
    for (const c of children.splice(0)) await c.stop().catch(() => undefined);
    await env?.close();
  });

  function expectStoreError(result: SDKResultMessage, code: RegExp): void {
    expect(result).toMatchObject({ type: 'result', subtype: 'error_during_execution', is_error: true });
    const errors = (result as { errors?: string[] }).errors?.join('\n') ?? '';
    expect(errors).toContain('Transcript store error');
    expect(errors).toMatch(code);
  }

  test('store faults: a full disk (the session file is /dev/full: ENOSPC) ends the turn at once with a clear error; the session resumes once the disk is back', async () => {
    env = await startRunnerEnv({ responder });
    const engine = env.engine({ cwd: makeRepo({}) });
    const file = transcriptPath(env.dataDir, engine.sessionId);
    mkdirSync(sessionsDir(env.dataDir), { recursive: true });
    symlinkSync('/dev/full', file);
    const started = Date.now();
    const { result } = await env.runTurn(engine, 'hello', { timeouts: TIMEOUTS });
    const elapsed = Date.now() - started;
    expectStoreError(result, /ENOSPC/);
    expect(elapsed).toBeLessThan(20_000);
    expect(env.fake.requests()).toHaveLength(0); // the prompt could not be recorded: no model call

    rmSync(file);
    const again = await env.runTurn(engine, 'continue', { timeouts: TIMEOUTS });
    expect(again.result).toMatchObject({ subtype: 'success', result: 'resumed' });
    expectIntactTranscript(env.dataDir, engine.sessionId);
    console.log(`store fault ENOSPC: error result after ${elapsed} ms`);
  });

  test('store faults: the disk fills mid-turn (RLIMIT_FSIZE 256 KiB on the worker: EFBIG) ends the turn with a clear error and no torn line; the session resumes', async () => {
    env = await startRunnerEnv({ responder, worker: false });
    children.push(await startChildWorker(env.workerEnv, { fileSizeLimitKb: 256 }));
    const engine = env.engine({ cwd: makeRepo({}) });
    const started = Date.now();
    const { result } = await env.runTurn(engine, 'fill the disk', { timeouts: TIMEOUTS });
    const elapsed = Date.now() - started;
    expectStoreError(result, /EFBIG|too large/i);
    const file = transcriptPath(env.dataDir, engine.sessionId);
    expect(statSync(file).size).toBeLessThanOrEqual(256 * 1024);
    const first = checkTranscript(env.dataDir, engine.sessionId);
    expect(first.tornLines).toBe(0);
    expect(first.unanswered.length).toBeLessThanOrEqual(1); // the call whose result could not be stored
    expect(first.problems.filter((p) => !first.unanswered.some((id) => p.includes(id)))).toEqual([]);

    // Space is back (a worker without the limit): the next turn continues the same conversation.
    await children.shift()?.stop();
    children.push(await startChildWorker(env.workerEnv));
    const again = await env.runTurn(engine, 'continue', { timeouts: TIMEOUTS });
    expect(again.result).toMatchObject({ subtype: 'success', result: 'resumed' });
    expectIntactTranscript(env.dataDir, engine.sessionId, { allowUnanswered: first.unanswered });
    console.log(
      `store fault EFBIG: error result after ${elapsed} ms with ${first.lines} lines (${statSync(file).size} bytes), ` +
        `${first.unanswered.length} call left unanswered`,
    );
  });

  test('store faults: the session file turns read-only mid-turn (chattr +i as root) ends the turn with a clear error and an unchanged file; the session resumes', async () => {
    env = await startRunnerEnv({ responder });
    const engine = env.engine({ cwd: makeRepo({}) });
    const file = transcriptPath(env.dataDir, engine.sessionId);
    const turn = collect(engine.submitMessage('write until read-only', { timeouts: TIMEOUTS }));
    await waitFor('5 transcript lines', () => lineCount(env, engine.sessionId) >= 5);
    const ro = makeUnwritable(file);
    if (!ro) {
      await turn;
      console.warn('store fault read-only: skipped (chattr +i is not available here)');
      return;
    }
    const sizeAtLock = statSync(file).size;
    let messages;
    try {
      messages = await turn;
    } finally {
      ro.undo();
    }
    const result = messages.at(-1) as SDKResultMessage;
    expectStoreError(result, /EPERM|EACCES|not permitted|permission denied/i);
    expect(statSync(file).size).toBe(sizeAtLock);
    const first = checkTranscript(env.dataDir, engine.sessionId);
    expect(first.tornLines).toBe(0);
    expect(first.unanswered.length).toBeLessThanOrEqual(1);

    const again = await env.runTurn(engine, 'continue', { timeouts: TIMEOUTS });
    expect(again.result).toMatchObject({ subtype: 'success', result: 'resumed' });
    expectIntactTranscript(env.dataDir, engine.sessionId, { allowUnanswered: first.unanswered });
    console.log(`store fault read-only (${ro.how}): error result, file unchanged at ${sizeAtLock} bytes`);
  });
});
