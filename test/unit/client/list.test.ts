import { mergeRuns, sessionListQuery } from '../../../src/client/list';
import { formatSessionTable } from '../../../src/cli/commands/list';
import {
  isUnknownSearchAttributeError,
  quoteQueryValue,
  sessionStartSearchAttributes,
} from '../../../src/common/search-attributes';

describe('session list and search attributes', () => {
  test('list: the visibility query filters session workflows by batch and status, quoting values', () => {
    expect(sessionListQuery()).toBe(`WorkflowType = 'sessionWorkflow' AND ExecutionStatus != 'ContinuedAsNew'`);
    expect(sessionListQuery({ batchId: "it's", status: 'success', query: "StartTime > '2026-01-01T00:00:00Z'" })).toBe(
      `WorkflowType = 'sessionWorkflow' AND ExecutionStatus != 'ContinuedAsNew' AND AgentBatchId = 'it\\'s' ` +
        `AND AgentStatus = 'success' AND (StartTime > '2026-01-01T00:00:00Z')`,
    );
    expect(quoteQueryValue('a\\b')).toBe(`'a\\\\b'`);
  });

  const row = {
    workflowId: 'agent-session-s1',
    sessionId: 's1',
    batchId: 'b',
    taskId: 't',
    agentStatus: 'success',
    costUsd: 0.01234,
    workflowStatus: 'COMPLETED',
    startTime: new Date('2026-01-02T03:04:05.678Z'),
    closeTime: null,
    prompt: 'fix the failing test in src/parser.ts',
    cwd: '/srv/repo',
    model: 'claude-sonnet-5-5',
  };

  test('list: one row per session: status, cost, model, cwd, start and the prompt line; dashes for what is missing', () => {
    const t = formatSessionTable([
      row,
      {
        ...row,
        workflowId: 'agent-session-s2',
        sessionId: 's2',
        batchId: null,
        taskId: null,
        agentStatus: null,
        costUsd: null,
        workflowStatus: 'RUNNING',
        startTime: new Date('2026-01-02T03:04:05Z'),
        prompt: null,
        cwd: null,
        model: null,
      },
    ]).split('\n');
    expect(t[0]).toMatch(/^SESSION\s+BATCH\s+TASK\s+STATUS\s+COST\s+MODEL\s+CWD\s+STARTED\s+PROMPT$/);
    expect(t[1]).toMatch(
      /^s1\s+b\s+t\s+success\s+\$0\.0123\s+claude-sonnet-5-5\s+\/srv\/repo\s+2026-01-02T03:04:05Z\s+fix the failing test in src\/parser\.ts$/,
    );
    expect(t[2]).toMatch(/^s2\s+-\s+-\s+running\s+-\s+-\s+-\s+2026-01-02T03:04:05Z\s+-$/);
    expect(formatSessionTable([])).toBe('no sessions found');
  });

  test('list: without batches there are no batch columns, and the prompt is cut to the terminal width', () => {
    const t = formatSessionTable([{ ...row, batchId: null, taskId: null, prompt: 'x'.repeat(300) }], 120).split('\n');
    expect(t[0]).toMatch(/^SESSION\s+STATUS\s+COST/);
    expect(t[1]?.length).toBe(120);
    expect(t[1]?.endsWith('…')).toBe(true);
  });

  test('search attributes: start attributes, and recognising a server that has none registered', () => {
    expect(
      sessionStartSearchAttributes({ sessionId: 's', batchId: 'b', taskId: 't' }).map((p) => [p.key.name, p.value]),
    ).toEqual([
      ['AgentSessionId', 's'],
      ['AgentStatus', 'running'],
      ['AgentCostUsd', 0],
      ['AgentBatchId', 'b'],
      ['AgentTaskId', 't'],
    ]);
    expect(sessionStartSearchAttributes({ sessionId: 's' })).toHaveLength(3);
    expect(
      isUnknownSearchAttributeError(
        new Error('x', { cause: new Error('INVALID_ARGUMENT: search attribute AgentSessionId is not defined') }),
      ),
    ).toBe(true);
    // What the dev server (1.32) answers to an update-with-start carrying unregistered attributes:
    expect(
      isUnknownSearchAttributeError(
        new Error('Namespace default has no mapping defined for search attribute AgentSessionId'),
      ),
    ).toBe(true);
    expect(isUnknownSearchAttributeError(new Error('workflow already started'))).toBe(false);
  });
  test("list: a session resumed after its workflow closed is one row: the latest run's status and cost, the first run's start and prompt", () => {
    const first = { ...row, agentStatus: 'error_max_turns', costUsd: 0.5, startTime: new Date('2026-01-01T00:00:00Z') };
    const latest = {
      ...row,
      agentStatus: 'success',
      costUsd: 0.9,
      prompt: 'continue',
      startTime: new Date('2026-01-02T00:00:00Z'),
    };
    const merged = { ...latest, startTime: first.startTime, prompt: first.prompt };
    expect(mergeRuns(first, latest)).toEqual(merged);
    expect(mergeRuns(latest, first)).toEqual(merged);
  });
});
