/** Subagents (2): parallel calls, SendMessage, ListAgents, TaskStop. */
import { expectSent, notificationsOf, pick, requestAt, resultsOf, streamOf } from './checks';
import type { Recording } from './recording';
import type { AsyncScenario } from './scenario';
import { AGENT_ID, say, text, tool, usingCaptured } from './scenario';
import { agent, ask, expectNotificationTurn, slow, texts } from './helpers';
import {
  AGENT_NOTIFICATION_NOTE,
  NOTIFICATION_HEAD,
  agentHandback,
  agentLaunched,
  agentSummary,
  outputFile,
  taskNotification,
  taskStopped,
} from './texts';

/** How a message from the parent reaches an agent (queued, or resuming a finished one). */
export const coordinatorMessage = (message: string): string =>
  `The coordinator sent a message while you were working:\n${message}\n\nAddress this before completing your current task.`;

/** All text of a request's messages after the `from`-th. */
function textAfter(rec: Recording, route: string, step: number, from: number): string {
  return JSON.stringify(requestAt(rec, route, step).messages.slice(from));
}

export const AGENT_CONTROL_SCENARIOS: readonly AsyncScenario[] = [
  {
    name: 'agent-parallel',
    title: 'two foreground Agent calls in one message: they run at once; both hand-backs',
    agents: {
      main: [
        say(
          text('Two at once.'),
          agent({ description: 'First', prompt: ask('one', 'First task.'), run_in_background: false }),
          agent({ description: 'Second', prompt: ask('two', 'Second task.'), run_in_background: false }),
        ),
        ...texts('Both done.'),
      ],
      one: [slow(1500, say(text('First done.')))],
      two: [slow(200, say(text('Second done.')))],
    },
    pending: true,
    check: (rec) => {
      const one = rec.requests.find((r) => r.route === 'one');
      const two = rec.requests.find((r) => r.route === 'two');
      // Both subagents ask the model before either answers (the first answers after 1.5 s).
      expect(Math.abs((one?.atMs ?? 0) - (two?.atMs ?? 1e9))).toBeLessThan(1000);
      for (const [id, agentId, report] of [
        ['toolu_as_main_0_1', '<agent:1>', 'First done.'],
        ['toolu_as_main_0_2', '<agent:2>', 'Second done.'],
      ] as const) {
        expectSent(rec, id, agentHandback({ agentId, report, tokens: '<n>', toolUses: 0 }));
      }
      // Both results go back in one user message, in the order the agents finished (not of the calls).
      const last = requestAt(rec, 'main', 1).messages.at(-1);
      const ids = Array.isArray(last?.content) ? last.content.map((b) => b['tool_use_id']) : [];
      expect(ids).toEqual(['toolu_as_main_0_2', 'toolu_as_main_0_1']);
    },
  },
  {
    name: 'agent-parallel-background',
    title: 'two background Agent calls in one message: two notifications, a turn for each',
    agents: {
      main: [
        say(
          agent({ description: 'Quick one', prompt: ask('quick', 'Quick task.') }),
          agent({ description: 'Slow one', prompt: ask('slow', 'Slow task.') }),
        ),
        ...texts('Both running.', 'One reported.', 'The other reported.', 'Extra.', 'Extra 2.'),
      ],
      quick: [slow(300, say(text('Quick done.')))],
      slow: [slow(2500, say(text('Slow done.')))],
    },
    pending: false,
    check: (rec) => {
      expectSent(rec, 'toolu_as_main_0_0', agentLaunched('<agent:1>'));
      expectSent(rec, 'toolu_as_main_0_1', agentLaunched('<agent:2>'));
      const changed = streamOf(rec, 'system/background_tasks_changed').map((m) =>
        (m['tasks'] as Array<{ task_id: string }>).map((t) => t.task_id),
      );
      expect(changed).toEqual([['<agent:1>'], ['<agent:1>', '<agent:2>'], ['<agent:2>'], []]);
      expect(notificationsOf(requestAt(rec, 'main', 2), NOTIFICATION_HEAD)).toHaveLength(1);
      expect(notificationsOf(requestAt(rec, 'main', 3), NOTIFICATION_HEAD)).toHaveLength(2);
      const results = resultsOf(rec);
      expect(results.map((r) => r['result'])).toEqual(['Both running.', 'One reported.', 'The other reported.']);
      expectNotificationTurn(results[1], 1, '<run:1>');
      expectNotificationTurn(results[2], 2, '<run:2>');
      expect(
        pick(results[2]?.['subagent_stats'] as Record<string, unknown>, [
          'spawned',
          'requested',
          'started_in_background',
          'completed',
        ]),
      ).toEqual({
        spawned: 2,
        requested: { background: 0, foreground: 0, unset: 2 },
        started_in_background: 2,
        completed: 2,
      });
    },
  },
  {
    name: 'agent-send-message',
    title: 'SendMessage to a finished background agent: it resumes with its context and notifies again',
    agents: {
      main: [
        say(agent({ description: 'Count the files', prompt: ask('helper', 'Count the files.') })),
        ...texts('Waiting for the helper.'),
        usingCaptured(AGENT_ID, (id) =>
          say(
            tool('SendMessage', {
              to: id,
              summary: 'ask for the line count',
              message: ask('followup', 'Now count the lines of a.txt.'),
            }),
          ),
        ),
        ...texts('Asked the helper again.', 'The helper answered again.', 'Extra.'),
      ],
      helper: texts('There is 1 file.'),
      followup: [say(tool('Read', { file_path: '{{cwd}}/a.txt' })), say(text('a.txt has 3 lines.'))],
    },
    pending: true,
    check: (rec) => {
      expectSent(
        rec,
        'toolu_as_main_2_0',
        JSON.stringify({
          success: true,
          message: 'Resuming agent <agent:1>~7',
          resumedAgentId: '<agent:1>',
          pin: { id: '<agent:1>', name: '<agent:1>', ref: '<ref:1>' },
        }),
      );
      // The resumed agent has its whole conversation, then the message.
      const resumed = requestAt(rec, 'followup', 0);
      expect(resumed.messages[0]).toEqual(requestAt(rec, 'helper', 0).messages[0]);
      expect(resumed.messages.at(-1)?.content).toEqual([
        expect.objectContaining({
          type: 'text',
          text: coordinatorMessage('[as:followup] Now count the lines of a.txt.'),
        }),
      ]);
      // Resuming starts the same task again under a new run id.
      const started = streamOf(rec, 'system/task_started');
      expect(started.map((m) => pick(m, ['task_id', 'run_id', 'tool_use_id', 'prompt']))).toEqual([
        {
          task_id: '<agent:1>',
          run_id: '<run:1>',
          tool_use_id: 'toolu_as_main_0_0',
          prompt: '[as:helper] Count the files.',
        },
        {
          task_id: '<agent:1>',
          run_id: '<run:2>',
          tool_use_id: 'toolu_as_main_2_0',
          prompt: '[as:followup] Now count the lines of a.txt.',
        },
      ]);
      const second = notificationsOf(requestAt(rec, 'main', 4), NOTIFICATION_HEAD).at(-1);
      expect(second).toContain('<tool-use-id>toolu_as_main_2_0</tool-use-id>');
      expect(second).toContain('<result>a.txt has 3 lines.</result>');
      const results = resultsOf(rec);
      expect(results).toHaveLength(3);
      expectNotificationTurn(results[2], 2, '<run:2>');
    },
  },
  {
    name: 'agent-running-list-send',
    title: 'ListAgents and SendMessage while a background agent runs: the listing, the queued message',
    agents: {
      main: [
        say(agent({ description: 'Slow count', prompt: ask('helper', 'Count the files slowly.') })),
        say(tool('ListAgents', {})),
        usingCaptured(AGENT_ID, (id) =>
          say(tool('SendMessage', { to: id, summary: 'add hidden files', message: 'Also count hidden files.' })),
        ),
        ...texts('Sent.', 'The helper reported.', 'Extra.'),
      ],
      helper: [
        slow(5000, say(tool('Bash', { command: 'ls | wc -l', description: 'Count files' }))),
        say(text('1 file, no hidden files.')),
        say(text('Extra helper.')),
      ],
    },
    pending: false,
    check: (rec) => {
      expectSent(
        rec,
        'toolu_as_main_1_0',
        'This session is <session-name> [<ref:1>] — the name other sessions use to message it (it is not listed below; a message to it would be a message to yourself).\n\nSubagents (1):\n  <agent:1>  ·  general-purpose  ·  running  ·  started <n>s ago',
      );
      expectSent(
        rec,
        'toolu_as_main_2_0',
        JSON.stringify({
          success: true,
          message:
            'Message queued for delivery to <agent:1> at its next tool round. If it finishes first, it is resumed with the message and notifies again, so wait for that notification before resending.',
          pin: { id: '<agent:1>', name: '<agent:1>', ref: '<ref:2>' },
        }),
      );
      // Delivered after the agent's next tool result.
      const prev = requestAt(rec, 'helper', 0).messages.length;
      expect(textAfter(rec, 'helper', 1, prev)).toContain(
        JSON.stringify(coordinatorMessage('Also count hidden files.')).slice(1, -1),
      );
      expect(resultsOf(rec).map((r) => r['result'])).toEqual(['Sent.', 'The helper reported.']);
    },
  },
  {
    name: 'agent-task-stop',
    title: 'TaskStop of a running background agent: its result, the notification, the stats',
    agents: {
      main: [
        say(agent({ description: 'Never ends', prompt: ask('helper', 'Take your time.') })),
        usingCaptured(AGENT_ID, (id) => say(tool('TaskStop', { task_id: id }))),
        ...texts('Stopped it.', 'Extra.', 'Extra 2.'),
      ],
      helper: [slow(20_000, say(text('Too late.')))],
    },
    pending: false,
    check: (rec) => {
      expectSent(rec, 'toolu_as_main_1_0', taskStopped('<agent:1>', 'local_agent', 'Never ends'));
      expect(pick(streamOf(rec, 'system/task_updated')[0], ['patch'])).toEqual({
        patch: { status: 'killed', end_time: '<epoch>' },
      });
      expect(pick(streamOf(rec, 'system/task_notification')[0], ['status', 'summary'])).toEqual({
        status: 'stopped',
        summary: 'Never ends',
      });
      // The agent's conversation ends with Claude Code's interrupt marker.
      const interrupted = rec.stream.find(
        (m) =>
          m['parent_tool_use_id'] === 'toolu_as_main_0_0' &&
          JSON.stringify(m).includes('[Request interrupted by user]'),
      );
      expect(interrupted?.['type']).toBe('user');
      // The stop still notifies: a second turn (the model is told the agent was killed).
      const blocks = notificationsOf(requestAt(rec, 'main', 3), NOTIFICATION_HEAD);
      expect(blocks).toEqual([
        taskNotification({
          taskId: '<agent:1>',
          toolUseId: 'toolu_as_main_0_0',
          outputFile: outputFile('<agent:1>'),
          status: 'killed',
          summary: agentSummary.stopped('Never ends'),
          note: AGENT_NOTIFICATION_NOTE,
        }),
      ]);
      const results = resultsOf(rec);
      expect(results).toHaveLength(2);
      expect((results[0]?.['subagent_stats'] as Record<string, unknown>)['killed']).toEqual({
        parent: 1,
        user: 0,
        system: 0,
      });
    },
  },
];
