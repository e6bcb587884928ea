/**
 * The runHooks activity with real hook commands: the event's JSON is read from the store, the
 * outcome is stored under the event's key, and a retry never runs the hooks again.
 */
import { asyncLocalStorage } from '@temporalio/activity';
import type { Context } from '@temporalio/activity';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HooksConfig, RunHooksInput } from '../../../../src/common/hooks';
import { createRunHooks, updatedInputOf } from '../../../../src/activities/hooks/run-hooks';
import { storeHooksConfig } from '../../../../src/client/stored-config';
import { JsonlTranscriptStore } from '../../../../src/store/jsonl-store';

const SESSION = '22222222-2222-4222-8222-222222222222';

function inActivity<T>(fn: () => Promise<T>): Promise<T> {
  const ctx = {
    heartbeat: () => undefined,
    cancellationSignal: new AbortController().signal,
    info: { workflowExecution: { workflowId: 'turn-1' } },
  } as unknown as Context;
  return asyncLocalStorage.run(ctx, fn);
}

let store: JsonlTranscriptStore;
let cwd: string;
beforeEach(async () => {
  store = new JsonlTranscriptStore(mkdtempSync(join(tmpdir(), 'hooks-data-')));
  cwd = mkdtempSync(join(tmpdir(), 'hooks-cwd-'));
  await store.append({
    v: 1,
    type: 'assistant',
    uuid: 'a1',
    parentUuid: null,
    sessionId: SESSION,
    timestamp: new Date().toISOString(),
    message: {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'rm -rf /' } }],
    },
  });
});

/** Input overrides; `tool: null` leaves the tool out (events without one). */
type Extra = Partial<Omit<RunHooksInput, 'tool'>> & { tool?: RunHooksInput['tool'] | null };

async function setup(hooks: HooksConfig): Promise<(i: Extra) => ReturnType<ReturnType<typeof createRunHooks>>> {
  const configRef = await storeHooksConfig(store, SESSION, hooks, cwd);
  const run = createRunHooks({ store });
  return ({ tool, ...extra }) =>
    inActivity(() =>
      run({
        sessionId: SESSION,
        cwd,
        configRef,
        event: 'PreToolUse',
        eventKey: 'turn-1/PreToolUse/toolu_1',
        permissionMode: 'default',
        ...(tool === null ? {} : { tool: tool ?? { name: 'Bash', toolUseId: 'toolu_1', assistantUuid: 'a1' } }),
        ...extra,
      }),
    );
}

describe('runHooks', () => {
  it("passes Claude Code's stdin JSON, stores a changed input, and runs once per event key", async () => {
    writeFileSync(
      join(cwd, 'hook.sh'),
      '#!/bin/sh\ncat > "$CLAUDE_PROJECT_DIR/stdin.json"\necho run >> "$CLAUDE_PROJECT_DIR/count.txt"\n' +
        'echo \'{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"echo safe"}}}\'\n',
      { mode: 0o755 },
    );
    const run = await setup({ PreToolUse: [{ matcher: 'Bash', command: './hook.sh', source: 's' }] });
    const first = await run({});
    expect(first).toMatchObject({ decision: 'allow', updatedInput: true, replayed: false });
    expect(JSON.parse(readFileSync(join(cwd, 'stdin.json'), 'utf8'))).toEqual({
      session_id: SESSION,
      transcript_path: '',
      cwd,
      permission_mode: 'default',
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'rm -rf /' },
      tool_use_id: 'toolu_1',
    });
    expect(await updatedInputOf(store, SESSION, first.outcomeRef)).toEqual({ command: 'echo safe' });
    // The outcome in history is small: the changed input is not in it.
    expect(JSON.stringify(first)).not.toContain('echo safe');
    const again = await run({});
    expect(again).toMatchObject({ decision: 'allow', replayed: true, outcomeRef: first.outcomeRef });
    expect(readFileSync(join(cwd, 'count.txt'), 'utf8')).toBe('run\n');
  });

  it("an attempt that finds a dead attempt's run marker does not run the hooks again", async () => {
    writeFileSync(join(cwd, 'hook.sh'), '#!/bin/sh\necho run >> count.txt\nexit 2\n', { mode: 0o755 });
    const run = await setup({ PreToolUse: [{ matcher: '', command: './hook.sh', source: 's' }] });
    const key = 'turn-1/PreToolUse/dead';
    const { createHash } = await import('node:crypto');
    await store.markToolRunStarted(SESSION, `hook-${createHash('sha256').update(key).digest('hex').slice(0, 40)}`);
    expect(await run({ eventKey: key })).toMatchObject({ decision: null, replayed: false });
    expect(() => readFileSync(join(cwd, 'count.txt'))).toThrow();
  });

  it("writes a Stop hook's feedback as a meta line where the workflow planned it", async () => {
    const run = await setup({
      Stop: [{ matcher: '', command: 'echo \'{"decision":"block","reason":"run the tests"}\'', source: 's' }],
    });
    const o = await run({
      event: 'Stop',
      eventKey: 'turn-1/Stop/1',
      stop: { lastAssistantUuid: 'a1', stopHookActive: false },
      contextLine: { uuid: 'ctx-1', parentUuid: 'a1' },
    });
    expect(o).toMatchObject({ decision: 'block', reason: 'run the tests', contextWritten: true });
    const line = await store.get(SESSION, 'ctx-1');
    expect(line).toMatchObject({
      type: 'user',
      parentUuid: 'a1',
      isMeta: true,
      message: { content: [{ type: 'text', text: 'Stop hook feedback:\nrun the tests' }] },
    });
  });

  it('runs only the hooks whose matcher selects the tool, the SessionStart source or the PreCompact trigger', async () => {
    const log = (tag: string): string => `echo ${tag} >> ran.txt`;
    const run = await setup({
      PreToolUse: [
        { matcher: 'Edit, Bash', command: log('list'), source: 's' },
        { matcher: 'B.sh', command: log('regex'), source: 's' },
        { matcher: '^Bas$', command: log('anchored'), source: 's' },
      ],
      SessionStart: [
        { matcher: 'resume', command: log('resume'), source: 's' },
        { matcher: 'startup', command: log('startup'), source: 's' },
      ],
      PreCompact: [{ matcher: 'manual', command: log('manual'), source: 's' }],
    });
    await run({});
    await run({ event: 'SessionStart', eventKey: 'turn-1/SessionStart', source: 'startup' });
    await run({ event: 'PreCompact', eventKey: 'turn-1/PreCompact/0', source: 'auto' });
    const ran = readFileSync(join(cwd, 'ran.txt'), 'utf8').trim().split('\n').sort();
    expect(ran).toEqual(['list', 'regex', 'startup']);
  });

  it("names the tool in a PostToolUse hook's context for the model", async () => {
    const run = await setup({
      PostToolUse: [
        {
          matcher: 'Bash',
          command: 'echo \'{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"ran"}}\'',
          source: 's',
        },
      ],
    });
    await run({
      event: 'PostToolUse',
      eventKey: 'turn-1/PostToolUse/toolu_1',
      contextLine: { uuid: 'ctx-2', parentUuid: 'a1' },
    });
    expect(await store.get(SESSION, 'ctx-2')).toMatchObject({
      hookEvent: 'PostToolUse',
      message: { content: [{ type: 'text', text: 'PostToolUse:Bash hook additional context: ran' }] },
    });
  });

  it("marks a Stop hook's later feedback of a turn (stop_hook_active), not the first", async () => {
    const run = await setup({ Stop: [{ matcher: '', command: 'echo again >&2; exit 2', source: 's' }] });
    const stop = (n: number, active: boolean): ReturnType<typeof run> =>
      run({
        event: 'Stop',
        eventKey: `turn-1/Stop/${n}`,
        stop: { lastAssistantUuid: 'a1', stopHookActive: active },
        contextLine: { uuid: `stop-${n}`, parentUuid: 'a1' },
      });
    await stop(1, false);
    await stop(2, true);
    expect((await store.get(SESSION, 'stop-1'))?.['stopHookActive']).toBeUndefined();
    expect((await store.get(SESSION, 'stop-2'))?.['stopHookActive']).toBe(true);
  });

  describe('UserPromptSubmit notices', () => {
    beforeEach(async () => {
      await store.append({
        v: 1,
        type: 'user',
        uuid: 'p1',
        parentUuid: 'prev',
        sessionId: SESSION,
        timestamp: new Date().toISOString(),
        message: { role: 'user', content: 'deploy with key sk-123' },
      });
    });
    const ups = (run: Awaited<ReturnType<typeof setup>>): ReturnType<typeof run> =>
      run({
        event: 'UserPromptSubmit',
        eventKey: 'turn-1/UserPromptSubmit',
        tool: null,
        promptUuid: 'p1',
        contextLine: { uuid: 'ctx-u', parentUuid: 'p1' },
        noticeLine: { uuid: 'notice-1', parentUuid: 'p1', blockedParentUuid: 'prev' },
      });

    it("a block writes Claude Code's notice where the prompt hung, marked to leave the conversation", async () => {
      const run = await setup({
        UserPromptSubmit: [
          { matcher: '', command: 'echo "no keys" >&2; exit 2', source: 's' },
          {
            matcher: '',
            command: 'echo \'{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"c"}}\'',
            source: 's',
          },
        ],
      });
      expect(await ups(run)).toMatchObject({ decision: 'block', notice: 'blocked' });
      expect(await store.get(SESSION, 'notice-1')).toMatchObject({
        type: 'system',
        subtype: 'informational',
        parentUuid: 'prev',
        dropsTurn: true,
        level: 'warning',
        preventContinuation: true,
        content:
          'UserPromptSubmit operation blocked by hook:\n[echo "no keys" >&2; exit 2]: no keys\n\n\nOriginal prompt: deploy with key sk-123',
        promptSubmitOutcome: { kind: 'blocked_by_hook', prompt_kept: false, reason: 'no keys' },
      });
      // The turn ends: no context for the model.
      expect(await store.get(SESSION, 'ctx-u')).toBeUndefined();
    });

    it('a block without a reason says "Blocked by hook" and gives no reason', async () => {
      const run = await setup({
        UserPromptSubmit: [{ matcher: '', command: 'echo \'{"decision":"block"}\'', source: 's' }],
      });
      await ups(run);
      expect(await store.get(SESSION, 'notice-1')).toMatchObject({
        content:
          'UserPromptSubmit operation blocked by hook:\nBlocked by hook\n\nOriginal prompt: deploy with key sk-123',
        promptSubmitOutcome: { kind: 'blocked_by_hook', prompt_kept: false },
      });
    });

    it('continue: false writes "Operation stopped by hook" after the prompt, which is kept', async () => {
      const run = await setup({
        UserPromptSubmit: [{ matcher: '', command: 'echo \'{"continue":false,"stopReason":"not now"}\'', source: 's' }],
      });
      expect(await ups(run)).toMatchObject({ notice: 'stopped', stop: { reason: 'not now' } });
      const line = await store.get(SESSION, 'notice-1');
      expect(line).toMatchObject({
        parentUuid: 'p1',
        content: 'Operation stopped by hook: not now',
        promptSubmitOutcome: { kind: 'stopped_by_hook', prompt_kept: true, reason: 'not now' },
      });
      expect(line?.['dropsTurn']).toBeUndefined();
    });
  });

  it('reports invalid JSON output as a configuration error naming the source', async () => {
    const run = await setup({
      PreToolUse: [{ matcher: '', command: "echo '{nope'", source: 'f.json: hooks.PreToolUse[0].hooks[0]' }],
    });
    const o = await run({});
    expect(o.configErrors?.[0]).toMatch(/^f\.json: hooks\.PreToolUse\[0\]\.hooks\[0\]: the hook printed invalid JSON/);
  });

  it('reports valid JSON output over the 64 KiB kept as too large, not as invalid JSON', async () => {
    const big = `node -e 'process.stdout.write(JSON.stringify({ additionalContext: "C".repeat(200000) }))'`;
    const run = await setup({
      PreToolUse: [{ matcher: '', command: big, source: 'f.json: hooks.PreToolUse[0].hooks[0]' }],
    });
    const o = await run({});
    expect(o.configErrors?.[0]).toMatch(
      /^f\.json: hooks\.PreToolUse\[0\]\.hooks\[0\]: the hook printed 2000\d\d characters on stdout, more than the 65536 /,
    );
    expect(o.configErrors?.[0]).not.toContain('invalid JSON');
  });
});
