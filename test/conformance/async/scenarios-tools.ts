/**
 * The tool catalogue: what `claude -p` 2.1.328 offers the model by default and under each switch
 * (one request each; the model answers with text), and ToolSearch for deferred tools.
 */
import { expectSent, requestAt, sentResult, streamOf, toolNames, toolOf } from './checks';
import type { Recording } from './recording';
import type { AsyncScenario } from './scenario';
import { say, text, tool } from './scenario';

const hello = { main: [say(text('Hello.'))] };
/** No `--tools`: Claude Code's own default set. */
const DEFAULT_FLAGS = ['--output-format', 'stream-json', '--verbose', '--model', 'claude-sonnet-5-5'];
const CUSTOM_AGENTS = {
  reviewer: { description: 'Reviews a file for mistakes.', prompt: 'You review.', tools: ['Read', 'Grep'] },
  writer: { description: 'Writes files.', prompt: 'You write.', disallowedTools: ['Bash'], model: 'opus' },
};
const PLANNER_MD = '---\nname: planner\ndescription: Plans work.\ntools: Read\n---\nYou plan.\n';

/** The input properties, required list and additionalProperties of each async tool (`--tools`). */
export const ASYNC_TOOL_SCHEMAS: Record<string, { properties: string[]; required?: string[] }> = {
  Agent: {
    properties: ['description', 'prompt', 'subagent_type', 'model', 'effort', 'run_in_background', 'isolation'],
    required: ['description', 'prompt'],
  },
  Bash: {
    properties: ['command', 'timeout', 'description', 'run_in_background', 'dangerouslyDisableSandbox'],
    required: ['command'],
  },
  CronCreate: { properties: ['cron', 'prompt', 'recurring', 'durable'], required: ['cron', 'prompt'] },
  CronDelete: { properties: ['id'], required: ['id'] },
  CronList: { properties: [] },
  ListAgents: { properties: ['channel', 'q', 'cursor'] },
  Monitor: { properties: ['description', 'timeout_ms', 'command', 'ws'], required: ['description', 'timeout_ms'] },
  ScheduleWakeup: { properties: ['delaySeconds', 'reason', 'prompt', 'stop', 'noop'] },
  SendMessage: { properties: ['to', 'summary', 'message', 'notify_when_idle'], required: ['to', 'message'] },
  TaskStop: { properties: ['task_id', 'shell_id'] },
};

/** The names the deferred-tools reminder of the default tool set lists. */
export const DEFAULT_DEFERRED = [
  'CronCreate',
  'CronDelete',
  'CronList',
  'EnterWorktree',
  'ExitWorktree',
  'Monitor',
  'NotebookEdit',
  'SendMessage',
  'TaskStop',
  'WebFetch',
  'WebSearch',
];

/** The head of the deferred-tools reminder (the names follow, one a line). */
export const DEFERRED_HEAD =
  'The following deferred tools are now available via ToolSearch. Their schemas are NOT loaded — calling them directly will fail with InputValidationError. Use ToolSearch with query "select:<name>[,<name>...]" to load tool schemas before calling them:\n';

type Schema = { properties?: Record<string, { enum?: unknown }>; required?: string[]; additionalProperties?: unknown };
const schemaOf = (rec: Recording, name: string): Schema =>
  (toolOf(requestAt(rec, 'main', 0), name)?.['input_schema'] ?? {}) as Schema;
const propsOf = (rec: Recording, name: string): string[] => Object.keys(schemaOf(rec, name).properties ?? {});
const descriptionOf = (rec: Recording, name: string): string =>
  String(toolOf(requestAt(rec, 'main', 0), name)?.['description'] ?? '');

/** Every text of the first request's messages, joined. */
function contextText(rec: Recording): string {
  return requestAt(rec, 'main', 0)
    .messages.flatMap((m) =>
      typeof m.content === 'string' ? [m.content] : m.content.map((b) => String(b['text'] ?? '')),
    )
    .join('\n');
}

/** The agent-type lines the listing reminder shows. */
function agentLines(rec: Recording): string[] {
  const t = contextText(rec);
  const start = t.indexOf('Available agent types for the Agent tool:\n');
  const end = t.indexOf('\n\n', start);
  return t
    .slice(start, end)
    .split('\n')
    .slice(1)
    .map((l) => l.slice(2, l.indexOf(':')));
}

/** A catalogue scenario: one request with text back. */
const catalogue = (
  name: string,
  title: string,
  check: (rec: Recording) => void,
  over: Partial<Pick<AsyncScenario, 'flags' | 'args' | 'env' | 'files' | 'agents' | 'smoke'>> = {},
): AsyncScenario => ({ name, title, agents: hello, pending: true, check, ...over });

export const TOOL_SCENARIOS: readonly AsyncScenario[] = [
  catalogue(
    'tools-default',
    'the default tool list of -p (no --tools): tools in full, deferred tools, agent types',
    (rec) => {
      const req = requestAt(rec, 'main', 0);
      expect(toolNames(req)).toEqual([
        'Agent',
        'Bash',
        'Edit',
        'ListAgents',
        'Read',
        'ReportFindings',
        'ScheduleWakeup',
        'Skill',
        'ToolSearch',
        'Workflow',
        'DeferredToolPlaceholder',
        'Write',
      ]);
      expect(toolOf(req, 'DeferredToolPlaceholder')?.['defer_loading']).toBe(true);
      expect(contextText(rec)).toContain(`${DEFERRED_HEAD}${DEFAULT_DEFERRED.join('\n')}\n`);
      expect(agentLines(rec)).toEqual(['claude', 'Explore', 'general-purpose', 'Plan', 'statusline-setup']);
      // system/init names the Agent tool by its old name, and lists the deferred tools too.
      const init = streamOf(rec, 'system/init')[0];
      expect(init?.['tools']).toEqual(expect.arrayContaining(['Task', ...DEFAULT_DEFERRED]));
      expect(init?.['tools']).not.toContain('Agent');
    },
    { flags: DEFAULT_FLAGS },
  ),
  catalogue(
    'tools-async',
    'the async tools named in --tools: every schema in full, nothing deferred',
    (rec) => {
      const req = requestAt(rec, 'main', 0);
      for (const [name, want] of Object.entries(ASYNC_TOOL_SCHEMAS)) {
        const s = schemaOf(rec, name);
        expect({
          name,
          properties: Object.keys(s.properties ?? {}),
          required: s.required,
          extra: s.additionalProperties,
        }).toEqual({
          name,
          properties: want.properties,
          required: want.required,
          extra: false,
        });
      }
      expect(schemaOf(rec, 'Agent').properties?.['model']?.enum).toEqual(['sonnet', 'opus', 'haiku', 'fable']);
      expect(schemaOf(rec, 'Agent').properties?.['isolation']?.enum).toEqual(['worktree', 'remote']);
      expect(toolNames(req)).not.toContain('ToolSearch');
      expect(contextText(rec)).not.toContain(DEFERRED_HEAD);
      expect(descriptionOf(rec, 'Bash')).toContain(
        '`run_in_background` runs the command detached: it keeps running across turns and re-invokes you when it exits.',
      );
    },
    { smoke: true },
  ),
  catalogue(
    'tools-background-disabled',
    'CLAUDE_CODE_DISABLE_BACKGROUND_TASKS=1: run_in_background leaves Agent and Bash; Monitor stays',
    (rec) => {
      expect(propsOf(rec, 'Agent')).not.toContain('run_in_background');
      expect(propsOf(rec, 'Bash')).not.toContain('run_in_background');
      expect(toolNames(requestAt(rec, 'main', 0))).toEqual(
        expect.arrayContaining(['Monitor', 'SendMessage', 'TaskStop']),
      );
      expect(descriptionOf(rec, 'Agent')).toContain(
        "- The agent's final message is returned to you as the tool result; it is not shown to the user — relay what matters.",
      );
    },
    { env: { CLAUDE_CODE_DISABLE_BACKGROUND_TASKS: '1' } },
  ),
  catalogue(
    'tools-cron-disabled',
    'CLAUDE_CODE_DISABLE_CRON=1: the Cron tools are gone',
    (rec) => {
      expect(toolNames(requestAt(rec, 'main', 0)).filter((t) => t.startsWith('Cron'))).toEqual([]);
      expect(toolNames(requestAt(rec, 'main', 0))).toContain('ScheduleWakeup');
    },
    { env: { CLAUDE_CODE_DISABLE_CRON: '1' } },
  ),
  catalogue(
    'tools-fork-subagent',
    'CLAUDE_CODE_FORK_SUBAGENT=1: every agent runs in the background (no run_in_background)',
    (rec) => {
      expect(propsOf(rec, 'Agent')).not.toContain('run_in_background');
      expect(descriptionOf(rec, 'Agent')).toContain(
        'A fork runs in the background and keeps its tool output out of your context.',
      );
    },
    { env: { CLAUDE_CODE_FORK_SUBAGENT: '1' } },
  ),
  catalogue(
    'tools-custom-agents',
    'custom agent types from --agents and .claude/agents: the agent-type list (sorted, case-insensitively)',
    (rec) => {
      expect(agentLines(rec)).toEqual([
        'claude',
        'Explore',
        'general-purpose',
        'Plan',
        'planner',
        'reviewer',
        'statusline-setup',
        'writer',
      ]);
      const t = contextText(rec);
      expect(t).toContain('\n- planner: Plans work. (Tools: Read)\n');
      expect(t).toContain('\n- reviewer: Reviews a file for mistakes. (Tools: Read, Grep)\n');
      expect(t).toContain('\n- writer: Writes files. (Tools: All tools except Bash)\n');
      expect(streamOf(rec, 'system/init')[0]?.['agents']).toEqual([
        'claude',
        'Explore',
        'general-purpose',
        'Plan',
        'planner',
        'reviewer',
        'statusline-setup',
        'writer',
      ]);
    },
    {
      args: ['--agents', JSON.stringify(CUSTOM_AGENTS)],
      files: { 'a.txt': 'one\n', '.claude/agents/planner.md': PLANNER_MD },
    },
  ),
  catalogue(
    'tools-no-builtin-agents',
    'CLAUDE_AGENT_SDK_DISABLE_BUILTIN_AGENTS=1 with one --agents type: only it is listed; subagent_type becomes required in words',
    (rec) => {
      expect(agentLines(rec)).toEqual(['reviewer']);
      expect(streamOf(rec, 'system/init')[0]?.['agents']).toEqual(['reviewer']);
      expect(descriptionOf(rec, 'Agent')).toContain(
        'subagent_type is required: the general-purpose agent is not available in this session, so choose `"fork"` or one of the listed agent types.',
      );
    },
    {
      args: ['--agents', JSON.stringify({ reviewer: CUSTOM_AGENTS.reviewer })],
      env: { CLAUDE_AGENT_SDK_DISABLE_BUILTIN_AGENTS: '1' },
    },
  ),
  catalogue(
    'tools-no-explore-plan',
    'CLAUDE_CODE_DISABLE_EXPLORE_PLAN_AGENTS=1: Explore and Plan leave the agent-type list',
    (rec) => expect(agentLines(rec)).toEqual(['claude', 'general-purpose', 'statusline-setup']),
    { env: { CLAUDE_CODE_DISABLE_EXPLORE_PLAN_AGENTS: '1' } },
  ),
  catalogue(
    'tools-default-no-tool-search',
    'ENABLE_TOOL_SEARCH=false without --tools: every tool in full, nothing deferred',
    (rec) => {
      const names = toolNames(requestAt(rec, 'main', 0));
      expect(names).toEqual(expect.arrayContaining(DEFAULT_DEFERRED));
      expect(names).not.toContain('ToolSearch');
      expect(names).not.toContain('DeferredToolPlaceholder');
      expect(contextText(rec)).not.toContain(DEFERRED_HEAD);
    },
    { flags: DEFAULT_FLAGS, env: { ENABLE_TOOL_SEARCH: 'false' } },
  ),
  catalogue(
    'tools-disallow-agent',
    '--disallowedTools Agent,Monitor: the tool list without them',
    (rec) => {
      const names = toolNames(requestAt(rec, 'main', 0));
      expect(names).not.toContain('Agent');
      expect(names).not.toContain('Monitor');
      expect(names).toEqual(expect.arrayContaining(['ListAgents', 'SendMessage', 'TaskStop']));
    },
    { args: ['--disallowedTools', 'Agent,Monitor'] },
  ),
  catalogue(
    'tools-task-alias',
    '--tools Task,Read: Task is the old name of the Agent tool; without SendMessage agents cannot be continued',
    (rec) => {
      expect(toolNames(requestAt(rec, 'main', 0))).toEqual(['Agent', 'DeferredToolPlaceholder', 'Read']);
      expect(streamOf(rec, 'system/init')[0]?.['tools']).toEqual(['Task', 'Read']);
      expect(descriptionOf(rec, 'Agent')).toContain(
        '- A previously spawned agent cannot be continued from here; every Agent call starts fresh (except subagent_type: "fork", which inherits your context).',
      );
    },
    { flags: ['--output-format', 'stream-json', '--verbose', '--tools', 'Task,Read', '--model', 'claude-sonnet-5-5'] },
  ),
  catalogue(
    'tools-tool-search',
    'default tools: a deferred tool called before ToolSearch (it runs), ToolSearch select: (tool_reference blocks; the schemas join the tool list)',
    (rec) => {
      // Called without loading, TaskStop still runs (the reminder's "will fail" is not enforced).
      expectSent(rec, 'toolu_as_main_0_0', '<tool_use_error>No task found with ID: nope</tool_use_error>', true);
      const search = sentResult(rec, 'toolu_as_main_0_1');
      expect(search.block['content']).toEqual([
        { type: 'tool_reference', tool_name: 'TaskStop' },
        { type: 'tool_reference', tool_name: 'Monitor' },
      ]);
      const next = requestAt(rec, 'main', 1);
      const last = next.messages.at(-1);
      expect(Array.isArray(last?.content) ? last.content.at(-1) : undefined).toMatchObject({
        type: 'text',
        text: 'Tool loaded.',
      });
      // The loaded tools are sent in full from then on, in name order among the others.
      expect(toolNames(next)).toEqual([
        'Agent',
        'Bash',
        'Edit',
        'ListAgents',
        'Monitor',
        'Read',
        'ReportFindings',
        'ScheduleWakeup',
        'Skill',
        'TaskStop',
        'ToolSearch',
        'Workflow',
        'DeferredToolPlaceholder',
        'Write',
      ]);
      expectSent(rec, 'toolu_as_main_1_0', '<tool_use_error>No task found with ID: nope</tool_use_error>', true);
    },
    {
      flags: [...DEFAULT_FLAGS, '--permission-mode', 'acceptEdits', '--allowedTools', 'TaskStop,ToolSearch'],
      agents: {
        main: [
          say(
            tool('TaskStop', { task_id: 'nope' }),
            tool('ToolSearch', { query: 'select:TaskStop,Monitor', max_results: 5 }),
          ),
          say(tool('TaskStop', { task_id: 'nope' })),
          say(text('Done.')),
        ],
      },
    },
  ),
];
