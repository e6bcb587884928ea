/**
 * The runTool activity's store reads and writes, on a real JSONL store and real tools: an earlier
 * result is found through the tool_use-id index, nested memory through the attachment lines, and
 * neither reads the whole session.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asyncLocalStorage } from '@temporalio/activity';
import type { Context } from '@temporalio/activity';
import { createRunTool, UNKNOWN_OUTCOME_TEXT } from '../../../../src/activities/run-tool';
import { executeTool } from '../../../../src/activities/tools/execute';
import type { RunToolInput } from '../../../../src/common/tools';
import type { TranscriptEntry } from '../../../../src/common/transcript';
import { JsonlTranscriptStore } from '../../../../src/store/jsonl-store';
import type { TranscriptStore } from '../../../../src/store/transcript-store';
import type { SessionTools } from '../../../../src/activities/session-tools';

const SESSION = 's';
const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

function inActivity<T>(fn: () => Promise<T>): Promise<T> {
  const ctx = {
    heartbeat: () => undefined,
    cancellationSignal: new AbortController().signal,
    info: { workflowExecution: { workflowId: 'turn-1' }, isLocal: false },
    log: quiet,
  } as unknown as Context;
  return asyncLocalStorage.run(ctx, fn);
}

let repo: string;
let store: JsonlTranscriptStore;
/** The store as runTool sees it: `load` (a read of the whole session) throws; other calls are counted. */
let guarded: TranscriptStore;
let calls: string[];

beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), 'run-tool-'));
  mkdirSync(join(repo, '.git'));
  mkdirSync(join(repo, 'sub'));
  writeFileSync(join(repo, 'sub/CLAUDE.md'), 'sub memory');
  writeFileSync(join(repo, 'sub/x.txt'), 'x\n');
  store = new JsonlTranscriptStore(mkdtempSync(join(tmpdir(), 'run-tool-data-')));
  calls = [];
  guarded = new Proxy(store, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (prop === 'load') return () => Promise.reject(new Error('runTool read the whole session'));
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        calls.push(String(prop));
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
});
afterEach(() => rmSync(repo, { recursive: true, force: true }));

const line = (uuid: string, parentUuid: string | null, fields: Partial<TranscriptEntry>): TranscriptEntry =>
  ({ uuid, parentUuid, sessionId: SESSION, timestamp: new Date().toISOString(), ...fields }) as TranscriptEntry;
const toolUse = (uuid: string, parent: string, id: string, name: string, input: Record<string, unknown>) =>
  line(uuid, parent, {
    type: 'assistant',
    message: { role: 'assistant', content: [{ type: 'tool_use', id, name, input }] },
  });
const toolResult = (uuid: string, parent: string, id: string, text: string) =>
  line(uuid, parent, {
    type: 'user',
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: text }] },
  });

function runTool(input: Partial<RunToolInput> & Pick<RunToolInput, 'toolUseId' | 'toolName' | 'assistantUuid'>) {
  const run = createRunTool({
    store: guarded,
    executeTool,
    isIdempotent: (name) => name !== 'Bash',
  });
  return inActivity(() =>
    run({ sessionId: SESSION, cwd: repo, resultUuid: 'new', permission: { behavior: 'allow' }, ...input }),
  );
}

describe('runTool', () => {
  test("runTool: a session tool's answer is recorded whole: its follow-up text after the tool_result, its attachments, its allow rules; a refusal keeps the input as a denial", async () => {
    // A session tool of the shape Skill answers with (src/activities/session-tools/skill.ts).
    const sessionTools: SessionTools = {
      handles: (name) => name === 'Skill',
      run: (_input, toolInput) =>
        Promise.resolve(
          (toolInput as { skill: string }).skill === 'locked'
            ? { content: 'needs an allow rule', isError: true, outcome: 'denied' as const }
            : {
                content: 'Launching skill: notes',
                isError: false,
                outcome: 'ok' as const,
                followUp: [{ type: 'text' as const, text: 'the skill body' }],
                allowedRules: ['Bash(git log *)'],
              },
        ),
    };
    await store.appendMany([
      line('p', null, { type: 'user', message: { role: 'user', content: 'go' } }),
      toolUse('a', 'p', 'toolu_1', 'Skill', { skill: 'notes' }),
      toolUse('a2', 'a', 'toolu_2', 'Skill', { skill: 'locked' }),
    ]);
    const run = createRunTool({ store: guarded, executeTool, isIdempotent: () => false, sessionTools });
    const base = { sessionId: SESSION, cwd: repo, permission: { behavior: 'allow' as const }, toolName: 'Skill' };
    const ok = await inActivity(() => run({ ...base, assistantUuid: 'a', toolUseId: 'toolu_1', resultUuid: 'r1' }));
    expect(ok).toMatchObject({ outcome: 'ok', allowedRules: ['Bash(git log *)'] });
    const line1 = await store.get(SESSION, 'r1');
    expect(line1?.message?.content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_1', content: 'Launching skill: notes' },
      { type: 'text', text: 'the skill body' },
    ]);
    expect(line1?.toolRun?.allowedRules).toEqual(['Bash(git log *)']);
    const denied = await inActivity(() =>
      run({ ...base, assistantUuid: 'a2', toolUseId: 'toolu_2', resultUuid: 'r2' }),
    );
    expect(denied).toMatchObject({ outcome: 'denied', isError: true, deniedInput: { skill: 'locked' } });
  });
  test("runTool: a result written under another uuid at the call's place is returned as is, found by tool_use id", async () => {
    await store.appendMany([
      line('p', null, { type: 'user', message: { role: 'user', content: 'go' } }),
      toolUse('a', 'p', 'toolu_1', 'Read', { file_path: join(repo, 'sub/x.txt') }),
      toolResult('old', 'a', 'toolu_1', 'the first attempt'),
    ]);
    const r = await runTool({ assistantUuid: 'a', toolUseId: 'toolu_1', toolName: 'Read' });
    expect(r).toMatchObject({ resultUuid: 'old', replayed: true, outcome: 'ok' });
    expect(calls).toContain('toolResultLines');
    expect(await store.get(SESSION, 'new')).toBeUndefined();
  });

  test("runTool: a tool_result of the same id elsewhere in the chain (a compaction's copy) is another call's: the tool runs", async () => {
    await store.appendMany([
      line('p', null, { type: 'user', message: { role: 'user', content: 'go' } }),
      toolUse('a', 'p', 'toolu_1', 'Read', { file_path: join(repo, 'sub/x.txt') }),
      toolResult('copy', 'p', 'toolu_1', 'kept by a compaction'),
    ]);
    const r = await runTool({ assistantUuid: 'a', toolUseId: 'toolu_1', toolName: 'Read' });
    expect(r).toMatchObject({ resultUuid: 'new', replayed: false, outcome: 'ok' });
  });

  test('runTool: a Read below the working directory brings its nested memory, once per turn, from the attachment lines only', async () => {
    await store.appendMany([
      line('p', null, { type: 'user', message: { role: 'user', content: 'go' } }),
      line('ctx', 'p', { type: 'attachment', attachments: [], settingSources: ['project'] }),
      toolUse('a', 'ctx', 'toolu_1', 'Read', { file_path: join(repo, 'sub/x.txt') }),
      toolUse('a2', 'a', 'toolu_2', 'Read', { file_path: join(repo, 'sub/x.txt') }),
    ]);
    await runTool({ assistantUuid: 'a', toolUseId: 'toolu_1', toolName: 'Read', resultUuid: 'r1' });
    const first = await store.get(SESSION, 'r1');
    expect(first?.attachments).toEqual([
      {
        type: 'nested_memory',
        file: expect.objectContaining({ path: join(repo, 'sub/CLAUDE.md'), content: 'sub memory' }),
      },
    ]);
    expect(calls).toContain('attachmentLines');
    await runTool({ assistantUuid: 'a2', toolUseId: 'toolu_2', toolName: 'Read', resultUuid: 'r2', parentUuid: 'r1' });
    expect((await store.get(SESSION, 'r2'))?.attachments).toBeUndefined();
  });

  test('runTool: a Bash call that ran reads no attachment lines; a second attempt after a crash mid-run reports an unknown outcome', async () => {
    await store.appendMany([
      line('p', null, { type: 'user', message: { role: 'user', content: 'go' } }),
      toolUse('a', 'p', 'toolu_ok', 'Bash', { command: 'echo hi' }),
      toolUse('a2', 'a', 'toolu_b', 'Bash', { command: 'echo ran >> ran.txt' }),
    ]);
    expect(
      await runTool({ assistantUuid: 'a', toolUseId: 'toolu_ok', toolName: 'Bash', resultUuid: 'r1' }),
    ).toMatchObject({
      outcome: 'ok',
    });
    expect(calls).not.toContain('attachmentLines');
    await store.markToolRunStarted(SESSION, 'toolu_b'); // the first attempt started it, then died
    const r = await runTool({ assistantUuid: 'a2', toolUseId: 'toolu_b', toolName: 'Bash', parentUuid: 'r1' });
    expect(r).toMatchObject({ outcome: 'unknown', isError: true });
    const stored = await store.get(SESSION, 'new');
    expect(stored?.message?.content).toEqual([
      expect.objectContaining({ content: UNKNOWN_OUTCOME_TEXT, is_error: true }),
    ]);
  });
});
