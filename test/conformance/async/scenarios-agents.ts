/** Subagents (1): the Agent tool in the foreground and the background, and forks. */
import {
  expectSent,
  fieldsOf,
  notificationsOf,
  pick,
  requestAt,
  resultsOf,
  streamOf,
  systemOf,
  toolNames,
} from './checks';
import type { Recording } from './recording';
import type { AsyncScenario } from './scenario';
import { say, text, tool } from './scenario';
import { SUBAGENT_TOOLS, TASK_FIELDS, agent, ask, expectNotificationTurn, slow, texts, withBase } from './helpers';
import {
  AGENT_NOTIFICATION_NOTE,
  FORK_STARTED,
  NOTIFICATION_HEAD,
  agentHandback,
  agentLaunched,
  agentSummary,
  forkDirective,
  outputFile,
  taskNotification,
  toolsUsedReminder,
} from './texts';

/** Checks every background-agent launch shares: the launch text, the task messages, the notification. */
function checkBackgroundAgent(
  rec: Recording,
  o: { toolUseId: string; description: string; report: string; toolsUsed: string[]; notifiedAt: number },
): void {
  expectSent(rec, o.toolUseId, agentLaunched('<agent:1>'));
  const changed = streamOf(rec, 'system/background_tasks_changed');
  expect(changed[0]?.['tasks']).toEqual([
    {
      task_id: '<agent:1>',
      run_id: '<run:1>',
      task_type: 'local_agent',
      subagent_type: 'general-purpose',
      description: o.description,
    },
  ]);
  expect(changed.at(-1)?.['tasks']).toEqual([]);
  const started = streamOf(rec, 'system/task_started')[0];
  expect(fieldsOf(started)).toEqual(withBase(TASK_FIELDS.startedAgent));
  expect(pick(started, ['is_backgrounded', 'spawn_depth', 'task_type', 'tool_use_id'])).toEqual({
    is_backgrounded: true,
    spawn_depth: 1,
    task_type: 'local_agent',
    tool_use_id: o.toolUseId,
  });
  const note = streamOf(rec, 'system/task_notification')[0];
  expect(pick(note, ['status', 'summary', 'summary_is_report', 'output_file', 'tool_use_id'])).toEqual({
    status: 'completed',
    summary: o.report,
    summary_is_report: true,
    output_file: outputFile('<agent:1>'),
    tool_use_id: o.toolUseId,
  });
  expect(pick(streamOf(rec, 'system/task_updated')[0], ['patch'])).toEqual({
    patch: { status: 'completed', end_time: '<epoch>' },
  });
  const notified = requestAt(rec, 'main', o.notifiedAt);
  const last = notified.messages.at(-1);
  const blocks = Array.isArray(last?.content) ? last.content.map((b) => String(b['text'])) : [];
  expect(blocks).toEqual([
    ...(o.toolsUsed.length > 0 ? [toolsUsedReminder(o.toolsUsed)] : []),
    taskNotification({
      taskId: '<agent:1>',
      toolUseId: o.toolUseId,
      outputFile: outputFile('<agent:1>'),
      status: 'completed',
      summary: agentSummary.finished(o.description),
      note: AGENT_NOTIFICATION_NOTE,
      result: o.report,
      usage: { tokens: blocks.at(-1)?.match(/<subagent_tokens>(\d+)/)?.[1] ?? '?', toolUses: o.toolsUsed.length },
    }),
  ]);
}

export const AGENT_SCENARIOS: readonly AsyncScenario[] = [
  {
    name: 'agent-foreground',
    title: 'a foreground Agent call: the subagent request, its hand-back with agentId and usage',
    agents: {
      main: [
        say(
          text('Delegating.'),
          agent({
            description: 'Count the files',
            prompt: ask('helper', 'Count the files in the repository.'),
            subagent_type: 'general-purpose',
            run_in_background: false,
          }),
        ),
        say(text('The helper counted one file.')),
      ],
      helper: [
        say(text('Counting.'), tool('Bash', { command: 'ls | wc -l', description: 'Count files' })),
        say(text('There is 1 file.')),
      ],
    },
    pending: false,
    check: (rec) => {
      const sub = requestAt(rec, 'helper', 0);
      expect(toolNames(sub)).toEqual(SUBAGENT_TOOLS);
      // Claude Code's billing header marks a subagent's calls; the runner sends no billing header
      // (docs/compatibility.md, the default system prompt).
      if (rec.meta.side === 'claude') expect(systemOf(sub)).toContain('cc_is_subagent=true;');
      expect(systemOf(sub)).toContain("You are an agent for Claude Code, Anthropic's official CLI for Claude.");
      const first = sub.messages[0];
      const firstTexts = Array.isArray(first?.content) ? first.content.map((b) => b['text']) : [first?.content];
      expect(firstTexts.at(-1)).toBe('[as:helper] Count the files in the repository.');
      expectSent(
        rec,
        'toolu_as_main_0_1',
        agentHandback({
          agentId: '<agent:1>',
          report: 'There is 1 file.',
          toolsUsed: ['Bash'],
          tokens: '<n>',
          toolUses: 1,
        }),
      );
      const started = streamOf(rec, 'system/task_started')[0];
      expect(pick(started, ['is_backgrounded', 'spawn_depth', 'subagent_type', 'prompt'])).toEqual({
        is_backgrounded: false,
        spawn_depth: 1,
        subagent_type: 'general-purpose',
        prompt: '[as:helper] Count the files in the repository.',
      });
      expect(fieldsOf(streamOf(rec, 'system/task_progress')[0])).toEqual(withBase(TASK_FIELDS.progress));
      expect(streamOf(rec, 'system/background_tasks_changed')).toEqual([]);
      const note = streamOf(rec, 'system/task_notification')[0];
      expect(pick(note, ['status', 'summary', 'summary_is_report'])).toEqual({
        status: 'completed',
        summary: 'There is 1 file.',
      });
      // The subagent's messages are in the stream, marked with the Agent call and the agent.
      const subMessages = rec.stream.filter((m) => m['parent_tool_use_id'] === 'toolu_as_main_0_1');
      expect(subMessages.length).toBeGreaterThanOrEqual(3);
      for (const m of subMessages) {
        expect(pick(m, ['agent_id', 'subagent_type', 'task_description'])).toEqual({
          agent_id: '<agent:1>',
          subagent_type: 'general-purpose',
          task_description: 'Count the files',
        });
      }
      const results = resultsOf(rec);
      expect(results).toHaveLength(1);
      expect(results[0]?.['subagent_stats']).toEqual({
        spawned: 1,
        requested: { background: 0, foreground: 1, unset: 0 },
        started_in_background: 0,
        max_depth: 1,
        spawned_by_subagents: 0,
        completed: 1,
        failed: 0,
        killed: { parent: 0, user: 0, system: 0 },
        refused: { depth_limit: 0, concurrency_limit: 0, budget: 0 },
        by_type: { 'general-purpose': 1 },
      });
      // `usage` is the main agent's; modelUsage and total_cost_usd include the subagent's calls.
      const usage = results[0]?.['usage'] as { output_tokens: number };
      const model = (results[0]?.['modelUsage'] as Record<string, { outputTokens: number; costUSD: number }>)[
        'claude-sonnet-5-5'
      ];
      expect(model?.outputTokens).toBeGreaterThan(usage.output_tokens);
      expect(model?.costUSD).toBe(results[0]?.['total_cost_usd']);
    },
  },
  {
    name: 'agent-background',
    title: 'a background Agent call (the default): launched text, notification, a second turn and result',
    agents: {
      main: [
        say(
          text('Delegating.'),
          agent({ description: 'Count the files', prompt: ask('helper', 'Count the files in the repository.') }),
        ),
        ...texts('The helper is running.', 'The helper counted one file.', 'Extra.'),
      ],
      helper: [
        slow(2000, say(text('Counting.'), tool('Bash', { command: 'ls | wc -l', description: 'Count files' }))),
        say(text('There is 1 file.')),
      ],
    },
    pending: false,
    smoke: true,
    check: (rec) => {
      checkBackgroundAgent(rec, {
        toolUseId: 'toolu_as_main_0_1',
        description: 'Count the files',
        report: 'There is 1 file.',
        toolsUsed: ['Bash'],
        notifiedAt: 2,
      });
      const results = resultsOf(rec);
      expect(results.map((r) => r['result'])).toEqual(['The helper is running.', 'The helper counted one file.']);
      expect(results[0]).not.toHaveProperty('origin');
      expectNotificationTurn(results[1], 1, '<run:1>');
      // The first turn's result is held while the agent runs: it follows the notification.
      const at = (m: unknown): number => rec.stream.indexOf(m as Record<string, unknown>);
      expect(at(results[0])).toBeGreaterThan(at(streamOf(rec, 'system/task_notification')[0]));
      // The turn the notification starts is announced by a second system/init.
      expect(streamOf(rec, 'system/init')).toHaveLength(2);
      expect(rec.meta.exitCode).toBe(0);
    },
  },
  {
    name: 'agent-fork',
    title: 'subagent_type "fork": the fork request (the parent conversation), its notification',
    agents: {
      main: [
        say(
          text('Forking.'),
          agent({ subagent_type: 'fork', description: 'Read a.txt', prompt: ask('fork', 'Read a.txt and report.') }),
        ),
        ...texts('The fork is running.', 'The fork reported.', 'Extra.'),
      ],
      fork: [slow(500, say(tool('Read', { file_path: '{{cwd}}/a.txt' }))), say(text('a.txt has three lines.'))],
    },
    pending: true,
    check: (rec) => {
      const main = requestAt(rec, 'main', 0);
      const fork = requestAt(rec, 'fork', 0);
      expect(fork.tools).toEqual(main.tools);
      expect(fork.model).toBe(main.model);
      expect(fork.messages[0]).toEqual(main.messages[0]);
      const last = fork.messages.at(-1);
      expect(last?.content).toEqual([
        { type: 'tool_result', tool_use_id: 'toolu_as_main_0_1', content: [{ type: 'text', text: FORK_STARTED }] },
        expect.objectContaining({ type: 'text', text: forkDirective('[as:fork] Read a.txt and report.') }),
      ]);
      expectSent(rec, 'toolu_as_main_0_1', agentLaunched('<agent:1>'));
      expect(pick(streamOf(rec, 'system/task_started')[0], ['subagent_type', 'is_backgrounded'])).toEqual({
        subagent_type: 'fork',
        is_backgrounded: true,
      });
      const notified = notificationsOf(requestAt(rec, 'main', 2), NOTIFICATION_HEAD);
      expect(notified).toHaveLength(1);
      expect(notified[0]).toContain('<result>a.txt has three lines.</result>');
      expectNotificationTurn(resultsOf(rec)[1], 1, '<run:1>');
    },
  },
  {
    name: 'agent-fork-foreground',
    title: 'a fork with run_in_background: false: its hand-back',
    agents: {
      main: [
        say(
          agent({
            subagent_type: 'fork',
            description: 'Read a.txt',
            prompt: ask('fork', 'Read a.txt and report.'),
            run_in_background: false,
          }),
        ),
        ...texts('The fork reported.'),
      ],
      fork: [say(tool('Read', { file_path: '{{cwd}}/a.txt' })), say(text('a.txt has three lines.'))],
    },
    pending: true,
    check: (rec) => {
      expectSent(
        rec,
        'toolu_as_main_0_0',
        agentHandback({
          agentId: '<agent:1>',
          report: 'a.txt has three lines.',
          toolsUsed: ['Read'],
          tokens: '<n>',
          toolUses: 1,
        }),
      );
      expect(resultsOf(rec)).toHaveLength(1);
    },
  },
];
