/** Agent limits and edges: the spawn depth, worktree isolation, input errors, --max-turns with a background agent. */
import { expectSent, pick, requestAt, resultsOf, sentResult, streamOf, toolNames } from './checks';
import { SUBAGENT_TOOLS, agent, ask, expectNotificationTurn, slow, texts } from './helpers';
import type { AsyncScenario } from './scenario';
import { say, text, tool } from './scenario';
import { agentHandback, noSuchTool } from './texts';

export const AGENT_LIMIT_SCENARIOS: readonly AsyncScenario[] = [
  {
    name: 'agent-depth',
    title: 'agents that spawn agents: the spawn-depth limit (3) and what the deepest agent gets',
    agents: {
      main: [
        say(agent({ description: 'Level 1', prompt: ask('d1', 'Go deeper.'), run_in_background: false })),
        ...texts('Done.'),
      ],
      ...Object.fromEntries(
        [1, 2, 3, 4, 5, 6].map((n) => [
          `d${n}`,
          [
            say(
              agent({
                description: `Level ${n + 1}`,
                prompt: ask(`d${n + 1}`, 'Go deeper.'),
                run_in_background: false,
              }),
            ),
            say(text(`Level ${n} done.`)),
          ],
        ]),
      ),
      d7: texts('Level 7 done.'),
    },
    pending: false,
    check: (rec) => {
      expect(toolNames(requestAt(rec, 'd1', 0))).toEqual(SUBAGENT_TOOLS);
      expect(toolNames(requestAt(rec, 'd2', 0))).toEqual(SUBAGENT_TOOLS);
      expect(toolNames(requestAt(rec, 'd3', 0))).toEqual(SUBAGENT_TOOLS.filter((t) => t !== 'Agent'));
      expectSent(rec, 'toolu_as_d3_0_0', noSuchTool('Agent'), true);
      expect(rec.requests.some((r) => r.route === 'd4')).toBe(false);
      const started = streamOf(rec, 'system/task_started');
      expect(started.map((m) => pick(m, ['spawn_depth', 'parent_task_id']))).toEqual([
        { spawn_depth: 1 },
        { spawn_depth: 2, parent_task_id: '<agent:1>' },
        { spawn_depth: 3, parent_task_id: '<agent:2>' },
      ]);
      const stats = resultsOf(rec)[0]?.['subagent_stats'] as Record<string, unknown>;
      expect(pick(stats, ['spawned', 'max_depth', 'spawned_by_subagents', 'refused'])).toEqual({
        spawned: 3,
        max_depth: 3,
        spawned_by_subagents: 2,
        refused: { depth_limit: 0, concurrency_limit: 0, budget: 0 },
      });
    },
  },
  {
    name: 'agent-depth-env',
    title: 'CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH=1: a level-1 agent is not offered Agent',
    env: { CLAUDE_CODE_MAX_SUBAGENT_SPAWN_DEPTH: '1' },
    agents: {
      main: [
        say(agent({ description: 'Level 1', prompt: ask('d1', 'Go deeper.'), run_in_background: false })),
        ...texts('Done.'),
      ],
      d1: [
        say(agent({ description: 'Level 2', prompt: ask('d2', 'Go deeper.'), run_in_background: false })),
        say(text('Level 1 done.')),
      ],
      d2: texts('Level 2 done.'),
    },
    pending: false,
    check: (rec) => {
      expect(toolNames(requestAt(rec, 'd1', 0))).not.toContain('Agent');
      expectSent(rec, 'toolu_as_d1_0_0', noSuchTool('Agent'), true);
    },
  },
  {
    name: 'agent-worktree',
    title: 'isolation "worktree": an agent that changes a file (path and branch reported) and one that changes nothing',
    git: true,
    agents: {
      main: [
        say(
          agent({
            description: 'Add b.txt',
            prompt: ask('writer', 'Add b.txt.'),
            isolation: 'worktree',
            run_in_background: false,
          }),
        ),
        say(
          agent({
            description: 'Only look',
            prompt: ask('looker', 'Look at a.txt.'),
            isolation: 'worktree',
            run_in_background: false,
          }),
        ),
        ...texts('Done.'),
      ],
      writer: [
        say(tool('Write', { file_path: '{{cwd}}/b.txt', content: 'bee\n' })),
        say(tool('Bash', { command: 'pwd; git status --short; git branch --show-current', description: 'Show state' })),
        say(text('Added b.txt.')),
      ],
      looker: [say(tool('Read', { file_path: '{{cwd}}/a.txt' })), say(text('a.txt is fine.'))],
    },
    pending: false,
    check: (rec) => {
      const path = '<REPO>/.claude/worktrees/agent-<agent:1>';
      expect(sentResult(rec, 'toolu_as_writer_1_0').text).toBe(`${path}\n?? b.txt\nworktree-agent-<agent:1>`);
      expectSent(
        rec,
        'toolu_as_main_0_0',
        agentHandback({
          agentId: '<agent:1>',
          report: 'Added b.txt.',
          toolsUsed: ['Bash', 'Write'],
          worktree: { path, branch: 'worktree-agent-<agent:1>' },
          tokens: '<n>',
          toolUses: 2,
        }),
      );
      // Unchanged: no worktree lines, and the worktree is gone; the changed one stays.
      expectSent(
        rec,
        'toolu_as_main_1_0',
        agentHandback({
          agentId: '<agent:2>',
          report: 'a.txt is fine.',
          toolsUsed: ['Read'],
          tokens: '<n>',
          toolUses: 1,
        }),
      );
      expect(rec.meta.files['.claude/worktrees/agent-<agent:1>/b.txt']).toBe('bee\n');
      expect(Object.keys(rec.meta.files).some((f) => f.includes('agent-<agent:2>'))).toBe(false);
      expect(rec.meta.files['b.txt']).toBeUndefined();
    },
  },
  {
    name: 'agent-errors',
    title:
      'Agent, SendMessage and TaskStop errors: unknown type, missing prompt, bad model, unknown recipient and task',
    agents: {
      main: [
        say(
          agent({
            subagent_type: 'nope',
            description: 'Unknown type',
            prompt: ask('bad', 'x'),
            run_in_background: false,
          }),
          agent({ description: 'No prompt' }),
          agent({ description: 'Bad model', prompt: ask('bad', 'x'), model: 'gpt-4', run_in_background: false }),
          tool('SendMessage', { to: 'nobody', summary: 'hello', message: 'Hello?' }),
          tool('TaskStop', { task_id: 'nope' }),
          tool('TaskStop', {}),
        ),
        ...texts('All failed.'),
      ],
      bad: texts('A bad call ran anyway.'),
    },
    pending: false,
    check: (rec) => {
      expectSent(
        rec,
        'toolu_as_main_0_0',
        "Agent type 'nope' not found. Available agents: claude, Explore, general-purpose, Plan, statusline-setup",
        true,
      );
      expectSent(
        rec,
        'toolu_as_main_0_1',
        '<tool_use_error>InputValidationError: Agent failed due to the following issue:\nThe required parameter `prompt` is missing</tool_use_error>',
        true,
      );
      expect(sentResult(rec, 'toolu_as_main_0_2')).toMatchObject({ isError: true });
      expect(sentResult(rec, 'toolu_as_main_0_2').text).toMatch(
        /^<tool_use_error>InputValidationError: \[\n {2}\{\n {4}"code": "invalid_value"/,
      );
      expectSent(
        rec,
        'toolu_as_main_0_3',
        JSON.stringify({
          success: false,
          message: "No agent named 'nobody' is reachable.\nUse ListAgents to see everyone you can message.",
        }),
      );
      expectSent(rec, 'toolu_as_main_0_4', '<tool_use_error>No task found with ID: nope</tool_use_error>', true);
      expectSent(
        rec,
        'toolu_as_main_0_5',
        '<tool_use_error>Missing required parameter: task_id</tool_use_error>',
        true,
      );
      expect(rec.requests.some((r) => r.route === 'bad')).toBe(false);
    },
  },
  {
    name: 'agent-background-max-turns',
    title: '--max-turns 2 with a background agent: each turn, the notification turn too, has its own limit',
    args: ['--max-turns', '2'],
    agents: {
      main: [
        say(agent({ description: 'Count the files', prompt: ask('helper', 'Count the files.') })),
        say(tool('Read', { file_path: '{{cwd}}/a.txt' })),
        say(tool('Read', { file_path: '{{cwd}}/a.txt' })),
        say(tool('Read', { file_path: '{{cwd}}/a.txt' })),
        ...texts('Done.', 'Extra.'),
      ],
      helper: [slow(1000, say(text('There is 1 file.')))],
    },
    pending: true,
    check: (rec) => {
      const results = resultsOf(rec);
      expect(results.map((r) => pick(r, ['subtype', 'num_turns', 'errors', 'result_index']))).toEqual([
        { subtype: 'error_max_turns', num_turns: 3, errors: ['Reached maximum number of turns (2)'], result_index: 0 },
        { subtype: 'error_max_turns', num_turns: 3, errors: ['Reached maximum number of turns (2)'], result_index: 1 },
      ]);
      expectNotificationTurn(results[1], 1, '<run:1>');
      // The agent outlived the first turn's limit and finished; its notification started the second turn.
      expect(pick(streamOf(rec, 'system/task_notification')[0], ['status'])).toEqual({ status: 'completed' });
      expect(rec.requests.filter((r) => r.route === 'main').map((r) => r.step)).toEqual([0, 1, 2, 3]);
      expect(rec.meta.exitCode).toBe(1);
    },
  },
];
