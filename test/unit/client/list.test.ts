import { sessionListQuery } from '../../../src/client/list';
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

  test('list: the table has one row per session and dashes for missing attributes', () => {
    const t = formatSessionTable([
      {
        workflowId: 'agent-session-s1',
        sessionId: 's1',
        batchId: 'b',
        taskId: 't',
        agentStatus: 'success',
        costUsd: 0.01234,
        workflowStatus: 'COMPLETED',
        startTime: new Date('2026-01-02T03:04:05.678Z'),
        closeTime: null,
      },
      {
        workflowId: 'agent-session-s2',
        sessionId: 's2',
        batchId: null,
        taskId: null,
        agentStatus: null,
        costUsd: null,
        workflowStatus: 'RUNNING',
        startTime: new Date('2026-01-02T03:04:05Z'),
        closeTime: null,
      },
    ]).split('\n');
    expect(t[0]).toMatch(/^SESSION\s+BATCH\s+TASK\s+STATUS\s+COST\s+WORKFLOW\s+STARTED$/);
    expect(t[1]).toMatch(/^s1\s+b\s+t\s+success\s+\$0\.0123\s+COMPLETED\s+2026-01-02T03:04:05Z$/);
    expect(t[2]).toMatch(/^s2\s+-\s+-\s+-\s+-\s+RUNNING/);
    expect(formatSessionTable([])).toBe('no sessions found');
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
});
