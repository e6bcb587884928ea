/**
 * The tool catalogue: what `claude -p` 2.1.328 offers the model by default and under each switch
 * (one request each; the model answers with text).
 */
import type { AsyncScenario } from './scenario';
import { ASYNC_FLAGS, ASYNC_TOOLS, say, text } from './scenario';

const todo = (): void => undefined;
const hello = { main: [say(text('Hello.'))] };
/** No `--tools`: Claude Code's own default set. */
const DEFAULT_FLAGS = ['--output-format', 'stream-json', '--verbose', '--model', 'claude-sonnet-5-5'];
const CUSTOM_AGENTS = {
  reviewer: { description: 'Reviews a file for mistakes.', prompt: 'You review.', tools: ['Read', 'Grep'] },
  writer: { description: 'Writes files.', prompt: 'You write.', disallowedTools: ['Bash'], model: 'opus' },
};
const PLANNER_MD = '---\nname: planner\ndescription: Plans work.\ntools: Read\n---\nYou plan.\n';

/** A catalogue scenario: one request with text back. */
const catalogue = (
  name: string,
  title: string,
  over: Partial<Pick<AsyncScenario, 'flags' | 'args' | 'env' | 'files'>> = {},
): AsyncScenario => ({ name, title, agents: hello, pending: true, check: todo, ...over });

export const TOOL_SCENARIOS: readonly AsyncScenario[] = [
  catalogue('tools-default', 'the default tool list of -p (no --tools): tools in full, deferred tools, agent types', {
    flags: DEFAULT_FLAGS,
  }),
  catalogue('tools-async', 'the async tools named in --tools: every schema in full'),
  catalogue('tools-background-disabled', 'CLAUDE_CODE_DISABLE_BACKGROUND_TASKS=1: what the async tools become', {
    env: { CLAUDE_CODE_DISABLE_BACKGROUND_TASKS: '1' },
  }),
  catalogue('tools-cron-disabled', 'CLAUDE_CODE_DISABLE_CRON=1: the Cron tools', {
    env: { CLAUDE_CODE_DISABLE_CRON: '1' },
  }),
  catalogue('tools-fork-subagent', 'CLAUDE_CODE_FORK_SUBAGENT=1: the Agent tool', {
    env: { CLAUDE_CODE_FORK_SUBAGENT: '1' },
  }),
  catalogue('tools-custom-agents', 'custom agent types from --agents and .claude/agents: the agent-type list', {
    args: ['--agents', JSON.stringify(CUSTOM_AGENTS)],
    files: { 'a.txt': 'one\n', '.claude/agents/planner.md': PLANNER_MD },
  }),
  catalogue(
    'tools-no-builtin-agents',
    'CLAUDE_AGENT_SDK_DISABLE_BUILTIN_AGENTS=1 with one --agents type: the agent-type list',
    {
      args: ['--agents', JSON.stringify({ reviewer: CUSTOM_AGENTS.reviewer })],
      env: { CLAUDE_AGENT_SDK_DISABLE_BUILTIN_AGENTS: '1' },
    },
  ),
  catalogue('tools-no-explore-plan', 'CLAUDE_CODE_DISABLE_EXPLORE_PLAN_AGENTS=1: the agent-type list', {
    env: { CLAUDE_CODE_DISABLE_EXPLORE_PLAN_AGENTS: '1' },
  }),
  catalogue('tools-default-no-tool-search', 'ENABLE_TOOL_SEARCH=false without --tools: nothing deferred?', {
    flags: DEFAULT_FLAGS,
    env: { ENABLE_TOOL_SEARCH: 'false' },
  }),
  catalogue('tools-disallow-agent', '--disallowedTools Agent,Monitor: the tool list without them', {
    args: ['--disallowedTools', 'Agent,Monitor'],
  }),
  catalogue('tools-task-alias', '--tools Task,Read: the old name of the Agent tool', {
    flags: ['--output-format', 'stream-json', '--verbose', '--tools', 'Task,Read', '--model', 'claude-sonnet-5-5'],
  }),
];

void ASYNC_FLAGS;
void ASYNC_TOOLS;
