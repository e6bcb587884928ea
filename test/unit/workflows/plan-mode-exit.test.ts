/**
 * Leaving plan mode mid-turn (Claude Code 2.1.328 with an approver, recording `plan-mode-sdk`):
 * an approved ExitPlanMode takes the rest of the turn out of plan mode, so the calls after it are
 * decided as in `default` mode, and the next request carries the `## Exited Plan Mode` message.
 */
import type { RunToolSummary } from '../../../src/common/tools';
import type { TranscriptEntry } from '../../../src/common/transcript';
import type { TurnInput } from '../../../src/common/turn';
import { WORKFLOW_STATE_VERSION } from '../../../src/common/turn';
import { decidePermission, turnPolicy } from '../../../src/engine/permissions';
import { buildMessages } from '../../../src/activities/model/request';
import { EXITED_PLAN_MODE_TEXT } from '../../../src/activities/context/plan-mode';
import { PLAN_APPROVED_TEXT } from '../../../src/activities/tools/exit-plan-mode';
import { TurnState } from '../../../src/workflows/turn-state';
import { modelToolNames, offeredTools } from '../../../src/workflows/task-tools';
import { APPROVER_DEFAULT_TOOL_NAMES, optInToolsOf } from '../../../src/common/tools';
import { ENTER_PLAN_MODE_REFUSED } from '../../../src/engine/permissions';
import { entryToSdkMessages } from '../../../src/client/sdk-message';
import { ExitPlanModeTool } from '../../../src/activities/tools/exit-plan-mode';
import type { ToolContext } from '../../../src/activities/tools/types';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const input: TurnInput = {
  v: WORKFLOW_STATE_VERSION,
  sessionId: 's',
  turnId: 's-turn-1',
  turnNumber: 1,
  cwd: '/repo',
  prompt: 'Plan, then fix.',
  promptUuid: 'p',
  parentUuid: null,
  options: {
    model: 'm',
    maxTokens: 100,
    limits: { maxTurns: 5 },
    permissionMode: 'plan',
    tools: ['Read', 'Edit', 'ExitPlanMode'],
    approvals: { timeoutMs: 60_000, onTimeout: 'deny' },
  },
  readFileState: {},
};

const result = (outcome: RunToolSummary['outcome']): RunToolSummary =>
  ({ toolUseId: 't1', resultUuid: 'r1', isError: outcome !== 'ok', outcome }) as RunToolSummary;

const editVerdict = (s: TurnState): string =>
  decidePermission(turnPolicy(s.permissionOptions(input.options), s.skillRules), 'Edit').behavior;

describe('plan mode exit', () => {
  test('ExitPlanMode: with an approver its call always asks, whatever the mode', () => {
    const p = decidePermission(turnPolicy(input.options, []), 'ExitPlanMode');
    expect(p).toMatchObject({ behavior: 'deny', ask: true });
  });

  test('ExitPlanMode: without it in the offered tools (headless, older histories) it does not ask', () => {
    const p = decidePermission(turnPolicy({ ...input.options, tools: ['Read', 'Edit'] }, []), 'ExitPlanMode');
    expect(p).not.toMatchObject({ ask: true });
  });

  test('TurnState: an approved ExitPlanMode leaves plan mode for the rest of the turn', () => {
    const s = new TurnState(input);
    expect(editVerdict(s)).toBe('deny');
    s.recordToolResult(result('ok'), { id: 't1', name: 'ExitPlanMode' });
    expect(s.planExited).toBe(true);
    expect(s.permissionOptions(input.options).permissionMode).toBe('default');
    expect(editVerdict(s)).not.toBe('deny');
  });

  test('TurnState: a denied ExitPlanMode keeps plan mode', () => {
    const s = new TurnState(input);
    s.recordToolResult(result('denied'), { id: 't1', name: 'ExitPlanMode' });
    expect(s.planExited).toBe(false);
    expect(s.permissionOptions(input.options).permissionMode).toBe('plan');
    expect(editVerdict(s)).toBe('deny');
  });

  test('TurnState: leaving plan mode does not change a turn that was not in it', () => {
    const s = new TurnState({ ...input, options: { ...input.options, permissionMode: 'acceptEdits' } });
    s.recordToolResult(result('ok'), { id: 't1', name: 'ExitPlanMode' });
    expect(s.permissionOptions({ permissionMode: 'acceptEdits' as const }).permissionMode).toBe('acceptEdits');
  });

  test('the default tool set with an approver (approverTools) offers AskUserQuestion, EnterPlanMode and ExitPlanMode', () => {
    const { tools: _tools, ...rest } = input.options;
    void _tools;
    const withApprover = { ...rest, approverTools: [...APPROVER_DEFAULT_TOOL_NAMES] };
    expect(optInToolsOf(withApprover)).toEqual(['AskUserQuestion', 'EnterPlanMode', 'ExitPlanMode']);
    expect(offeredTools(withApprover)).toEqual(expect.arrayContaining(['Bash', 'AskUserQuestion', 'ExitPlanMode']));
    expect(modelToolNames(withApprover)).toEqual(expect.arrayContaining(['Skill', 'ToolSearch', 'EnterPlanMode']));
    expect(decidePermission(turnPolicy(withApprover, []), 'ExitPlanMode')).toMatchObject({ ask: true });
    // A turn recorded before approverTools: the default list, nothing opt-in.
    expect(optInToolsOf(rest)).toEqual([]);
    expect(modelToolNames(rest)).toBeUndefined();
    expect(decidePermission(turnPolicy(rest, []), 'ExitPlanMode')).not.toMatchObject({ ask: true });
  });

  test('EnterPlanMode: runs in plan mode, refused once the turn left it', () => {
    const options = { ...input.options, tools: ['Read', 'Edit', 'ExitPlanMode', 'EnterPlanMode'] };
    const s = new TurnState({ ...input, options });
    expect(decidePermission(turnPolicy(s.permissionOptions(options), []), 'EnterPlanMode').behavior).not.toBe('deny');
    s.recordToolResult(result('ok'), { id: 't1', name: 'ExitPlanMode' });
    expect(decidePermission(turnPolicy(s.permissionOptions(options), []), 'EnterPlanMode')).toEqual({
      behavior: 'deny',
      message: ENTER_PLAN_MODE_REFUSED,
      reason: 'mode',
    });
  });

  test('ExitPlanMode: tool_use_result names the plan file and carries its text (null without one)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'plan-'));
    try {
      const planFile = join(dir, 'plan.md');
      const ctx = { planFile: () => Promise.resolve(planFile) } as unknown as ToolContext;
      expect((await ExitPlanModeTool.run({}, ctx)).structured).toEqual({
        plan: null,
        isAgent: false,
        filePath: planFile,
      });
      await writeFile(planFile, '1. Fix add.\n');
      expect((await ExitPlanModeTool.run({}, ctx)).structured).toEqual({
        plan: '1. Fix add.\n',
        isAgent: false,
        filePath: planFile,
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('entryToSdkMessages: an approved ExitPlanMode result is preceded by system/status (permissionMode default)', () => {
    const entry = (outcome: string) =>
      ({
        uuid: 'r1',
        type: 'user',
        sessionId: 's',
        parentUuid: 'a1',
        timestamp: 't',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: PLAN_APPROVED_TEXT }] },
        toolRun: { tool: 'ExitPlanMode', outcome },
      }) as unknown as TranscriptEntry;
    const msgs = entryToSdkMessages(entry('ok'));
    expect(msgs.map((m) => `${m.type}${'subtype' in m ? `/${String(m.subtype)}` : ''}`)).toEqual([
      'system/status',
      'user',
    ]);
    expect(msgs[0]).toMatchObject({ status: null, permissionMode: 'default', session_id: 's' });
    expect(entryToSdkMessages(entry('error')).map((m) => m.type)).toEqual(['user']);
  });

  test('buildMessages: ExitPlanMode goes back to the model without the plan the model wrote (2.1.328 sends {})', () => {
    const chain = [
      { uuid: 'p', type: 'user', parentUuid: null, message: { role: 'user', content: 'Plan.' } },
      {
        uuid: 'a1',
        type: 'assistant',
        parentUuid: 'p',
        message: {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 't1', name: 'ExitPlanMode', input: { plan: '1. Fix.' } }],
        },
      },
    ] as unknown as TranscriptEntry[];
    const sent = buildMessages(chain)[1]?.content as Array<{ input: unknown }>;
    expect(sent[0]?.input).toEqual({});
  });

  test('buildMessages: an approved ExitPlanMode is followed by the Exited Plan Mode system message', () => {
    const line = (uuid: string, type: 'user' | 'assistant', content: unknown): TranscriptEntry =>
      ({ uuid, type, parentUuid: null, message: { role: type, content } }) as unknown as TranscriptEntry;
    const chain = [
      line('p', 'user', 'Plan, then fix.'),
      line('a1', 'assistant', [{ type: 'tool_use', id: 't1', name: 'ExitPlanMode', input: {} }]),
      line('r1', 'user', [{ type: 'tool_result', tool_use_id: 't1', content: PLAN_APPROVED_TEXT }]),
    ];
    const messages = buildMessages(chain);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'system']);
    const last = messages[3]?.content as Array<{ text: string }>;
    expect(last[0]?.text).toBe(EXITED_PLAN_MODE_TEXT);
    const refused = [
      ...chain.slice(0, 2),
      line('r1', 'user', [{ type: 'tool_result', tool_use_id: 't1', content: 'No.', is_error: true }]),
    ];
    expect(buildMessages(refused).map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
  });
});
