import { loadConfig } from '../../../src/config';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  readPromptFile,
  splitToolList,
  subagentSettingsFrom,
  turnOptionsFrom,
  UsageError,
} from '../../../src/cli/turn-options';
import { SettingsError } from '../../../src/config-files';

const config = loadConfig({ env: {} });

describe('CLI turn options', () => {
  test('splitToolList: commas, spaces and repeated flags; scoped rules stay whole', () => {
    expect(splitToolList(['Bash(git commit:*) Edit', 'Read,Glob'])).toEqual([
      'Bash(git commit:*)',
      'Edit',
      'Read',
      'Glob',
    ]);
  });
  test('turnOptionsFrom: --tools passes the Cron tools and ScheduleWakeup through; CLAUDE_CODE_DISABLE_CRON=1 takes the Cron tools away (2.1.328)', () => {
    const tools = ['Read', 'CronCreate', 'CronList', 'CronDelete', 'ScheduleWakeup'];
    expect(turnOptionsFrom(config, { tools }, { env: {} }).tools).toEqual([
      'Read',
      'CronCreate',
      'CronList',
      'CronDelete',
      'ScheduleWakeup',
    ]);
    expect(turnOptionsFrom(config, { tools }, { env: { CLAUDE_CODE_DISABLE_CRON: '1' } }).tools).toEqual([
      'Read',
      'ScheduleWakeup',
    ]);
  });
  test('turnOptionsFrom: --batch-api on the Anthropic API gives the batch settings; on Bedrock, Vertex or Foundry it is refused before anything runs', () => {
    const config = loadConfig({ env: {} });
    expect(turnOptionsFrom(config, { batchApi: true }, { env: {} }).batchApi).toMatchObject({
      maxWaitMs: expect.any(Number),
      windowMs: expect.any(Number),
    });
    expect(turnOptionsFrom(config, {}, { env: {} }).batchApi).toBeUndefined();
    for (const v of ['CLAUDE_CODE_USE_BEDROCK', 'CLAUDE_CODE_USE_VERTEX', 'CLAUDE_CODE_USE_FOUNDRY']) {
      expect(() =>
        turnOptionsFrom(loadConfig({ env: { [v]: '1' } }), { batchApi: true }, { env: { [v]: '1' } }),
      ).toThrow(/--batch-api needs the Anthropic API/);
    }
  });
  test('turnOptionsFrom: flags override config defaults', () => {
    const o = turnOptionsFrom(config, {
      model: 'claude-haiku-4-5',
      maxTurns: '3',
      maxBudgetUsd: '0.5',
      permissionMode: 'acceptEdits',
    });
    expect(o).toMatchObject({
      model: 'claude-haiku-4-5',
      limits: { maxTurns: 3, maxBudgetUsd: 0.5 },
      permissionMode: 'acceptEdits',
    });
  });
  test('turnOptionsFrom: Claude Code model aliases (sonnet, opus, haiku) name the ids claude -p sends; full ids stay as given', () => {
    expect(turnOptionsFrom(config, { model: 'sonnet' }).model).toBe('claude-sonnet-5-5');
    expect(turnOptionsFrom(config, { model: 'Opus' }).model).toBe('claude-opus-5-5');
    expect(turnOptionsFrom(config, { model: 'opus', fallbackModel: 'sonnet' }).fallbackModel).toBe('claude-sonnet-5-5');
    expect(() => turnOptionsFrom(config, { model: 'claude-sonnet-5-5', fallbackModel: 'sonnet' })).toThrow(
      '--fallback-model must differ',
    );
    expect(turnOptionsFrom(config, { model: 'my-proxy-model' }).model).toBe('my-proxy-model');
    expect(turnOptionsFrom(loadConfig({ env: { AGENT_RUNNER_MODEL: 'haiku' } }), {}, { env: {} }).model).toBe(
      'claude-haiku-5-5',
    );
    // A budget on an alias is checked against the id's price, not refused as an unknown "sonnet".
    expect(turnOptionsFrom(config, { model: 'sonnet', maxBudgetUsd: '1' }).limits.maxBudgetUsd).toBe(1);
  });
  test('turnOptionsFrom: bad values are usage errors naming the flag', () => {
    expect(() => turnOptionsFrom(config, { maxTurns: '0' })).toThrow(UsageError);
    expect(() => turnOptionsFrom(config, { maxBudgetUsd: 'lots' })).toThrow('--max-budget-usd');
    expect(() => turnOptionsFrom(config, { permissionMode: 'yolo' })).toThrow('--permission-mode');
    expect(() => turnOptionsFrom(config, { tools: ['Read', 'Teleport'] })).toThrow('Teleport');
  });
  test('turnOptionsFrom: --tools default (the Agent SDK preset) offers every built-in tool', () => {
    expect(turnOptionsFrom(config, { tools: ['default'] }).tools).toBeUndefined();
    expect(turnOptionsFrom(config, { tools: ['Read,Bash'] }).tools).toEqual(['Read', 'Bash']);
  });
  test('turnOptionsFrom: --tools accepts AskUserQuestion and ExitPlanMode but never offers them (headless, as Claude Code)', () => {
    expect(turnOptionsFrom(config, { tools: ['Read,AskUserQuestion,ExitPlanMode'] }).tools).toEqual(['Read']);
  });
  test('turnOptionsFrom: --tools accepts the opt-in NotebookEdit and names it among the available tools', () => {
    expect(turnOptionsFrom(config, { tools: ['Read,NotebookEdit'] }).tools).toEqual(['Read', 'NotebookEdit']);
    expect(() => turnOptionsFrom(config, { tools: ['Teleport'] })).toThrow(
      'available: Read, Write, Edit, Bash, Glob, Grep, WebSearch, WebFetch, Agent, SendMessage, TaskStop, ListAgents, Skill, ToolSearch, NotebookEdit, AskUserQuestion, ExitPlanMode',
    );
  });
  test('turnOptionsFrom: a USD limit on a model without a price is refused, naming the model and where prices live', () => {
    for (const flags of [
      { model: 'claude-mystery-9', maxBudgetUsd: '0.0001' },
      { model: 'claude-mystery-9', budgetPool: 'nightly' },
    ]) {
      let error: unknown;
      try {
        turnOptionsFrom(config, flags);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(UsageError);
      expect(String(error)).toContain('"claude-mystery-9" has no price');
      expect(String(error)).toContain('prices:');
      expect(String(error)).toContain(
        flags.maxBudgetUsd !== undefined ? '--max-budget-usd 0.0001' : '--budget-pool nightly',
      );
    }
    // Without a USD limit the model may have no price (the cost is reported as unknown).
    expect(turnOptionsFrom(config, { model: 'claude-mystery-9', maxTurns: '2' }).model).toBe('claude-mystery-9');
    // A dated id of a priced model has its price.
    expect(turnOptionsFrom(config, { model: 'claude-haiku-4-5-20251001', maxBudgetUsd: '1' }).limits.maxBudgetUsd).toBe(
      1,
    );
  });

  test('turnOptionsFrom: system prompt files; a file comes before the flag of its layer', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prompt-files-'));
    writeFileSync(join(dir, 'system.md'), 'From the file.\n');
    writeFileSync(join(dir, 'append.md'), 'Appended from the file.');
    expect(
      turnOptionsFrom(config, {
        systemPromptFile: join(dir, 'system.md'),
        appendSystemPromptFile: join(dir, 'append.md'),
      }),
    ).toMatchObject({ systemPrompt: 'From the file.\n', appendSystemPrompt: 'Appended from the file.' });
    expect(
      turnOptionsFrom(config, { appendSystemPrompt: 'inline', appendSystemPromptFile: join(dir, 'append.md') })
        .appendSystemPrompt,
    ).toBe('Appended from the file.\n\ninline');
  });
  test('turnOptionsFrom: a missing system prompt file is a usage error naming the flag and the file', () => {
    expect(() => turnOptionsFrom(config, { systemPromptFile: '/nonexistent/system.md' })).toThrow(
      new UsageError('--system-prompt-file: cannot read /nonexistent/system.md: no such file'),
    );
    expect(() => turnOptionsFrom(config, { appendSystemPromptFile: tmpdir() })).toThrow(
      `--append-system-prompt-file: ${tmpdir()} is not a file`,
    );
    expect(() => readPromptFile('--system-prompt-file', 'missing.md', '/x')).toThrow('/x/missing.md');
  });
  test('turnOptionsFrom: --setting-sources, with an unknown source named', () => {
    expect(turnOptionsFrom(config, { settingSources: 'project,local' }).settingSources).toEqual(['project', 'local']);
    expect(turnOptionsFrom(config, { settingSources: '' }).settingSources).toEqual([]);
    expect(turnOptionsFrom(config, {}).settingSources).toBeUndefined();
    expect(() => turnOptionsFrom(config, { settingSources: 'user,bogus' })).toThrow(SettingsError);
    expect(() => turnOptionsFrom(config, { settingSources: 'bogus' })).toThrow(
      '--setting-sources: unknown source "bogus"',
    );
  });
  test('turnOptionsFrom: --fallback-model must differ from the model', () => {
    expect(turnOptionsFrom(config, { model: 'a', fallbackModel: 'b' }).fallbackModel).toBe('b');
    expect(() => turnOptionsFrom(config, { model: 'a', fallbackModel: 'a' })).toThrow(UsageError);
    expect(() => turnOptionsFrom(config, { fallbackModel: config.model.name })).toThrow('--fallback-model');
    expect(() => turnOptionsFrom(config, { fallbackModel: ' ' })).toThrow('--fallback-model must not be empty');
  });

  test("subagentSettingsFrom: Claude Code's spawn depth and background switch from the environment; a bad depth is a usage error", () => {
    expect(subagentSettingsFrom({})).toEqual({});
    expect(subagentSettingsFrom({ CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH: '1' })).toEqual({ maxSpawnDepth: 1 });
    expect(subagentSettingsFrom({ CLAUDE_CODE_DISABLE_BACKGROUND_TASKS: '1' })).toEqual({ backgroundTasks: false });
    expect(() => subagentSettingsFrom({ CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH: 'two' })).toThrow(UsageError);
  });

  test('turnOptionsFrom: --tools takes the task tools (Task is Agent) and leaves out the tools the runner lacks', () => {
    const config = loadConfig({ env: {} });
    const warnings: string[] = [];
    const o = turnOptionsFrom(
      config,
      { tools: ['Task,Read,Monitor,EnterWorktree,SendMessage'] },
      { warn: (l) => warnings.push(l) },
    );
    expect(o.tools).toEqual(['Agent', 'Read', 'Monitor', 'SendMessage']);
    // A name left out is said, not dropped in silence.
    expect(warnings).toEqual([expect.stringContaining('--tools: EnterWorktree left out')]);
    expect(o.subagents).toEqual({});
    expect(() => turnOptionsFrom(config, { tools: ['Nope'] }, {})).toThrow(/unknown tool\(s\) Nope/);
  });
});
