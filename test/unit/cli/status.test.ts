import { describeActivity, formatSessionStatus } from '../../../src/cli/commands/status';
import type { SessionStatusReport } from '../../../src/client/session-control';
import { emptyUsage } from '../../../src/common/usage';

function report(busy: boolean, turnCount: number): SessionStatusReport {
  return {
    session: {
      sessionId: 's',
      busy,
      currentTurnWorkflowId: busy ? 'agent-session-s-turn-3' : null,
      lastTurnWorkflowId: 'agent-session-s-turn-2',
      turnCount,
      usage: emptyUsage(),
      totalCostUsd: 0.5,
      costKnown: true,
      limits: {},
      budgetPoolId: null,
      queued: 0,
    },
    workflowStatus: 'RUNNING',
    turns: turnCount + (busy ? 1 : 0),
    turn: null,
  };
}

describe('agent-runner status', () => {
  test('status: the text shows the same turn count as the JSON report, the running turn included', () => {
    for (const [busy, finished] of [
      [true, 2],
      [false, 2],
    ] as const) {
      const r = report(busy, finished);
      const json = JSON.parse(JSON.stringify(r)) as { turns: number };
      const line = formatSessionStatus(r)
        .split('\n')
        .find((l) => l.startsWith('turns'));
      expect(line).toMatch(new RegExp(`^turns\\s+${json.turns}\\b`));
      expect(json.turns).toBe(busy ? 3 : 2);
    }
    expect(formatSessionStatus(report(true, 2))).toMatch(/turns\s+3 \(1 running\)/);
  });

  test('status: a running tool is shown with its command and how long it has run', () => {
    const r = report(true, 0);
    const now = Date.parse('2026-01-01T00:01:00Z');
    r.turn = {
      turnWorkflowId: 'agent-session-s-turn-1',
      events: [],
      done: false,
      activity: 'runTool Bash',
      activityLabel: 'Bash: npm test',
      activitySince: '2026-01-01T00:00:48Z',
      numTurns: 2,
      costUsd: 0.01,
      usage: emptyUsage(),
      limits: {},
    };
    expect(formatSessionStatus(r, now)).toMatch(/ {2}activity\s+Bash: npm test \(12 s\)/);
    expect(describeActivity({ activity: 'runTool Bash', activitySince: '2026-01-01T00:00:00Z' }, now + 125_000)).toBe(
      'runTool Bash (3 min 5 s)',
    );
    expect(describeActivity({ activity: 'callModel' })).toBe('callModel');
  });
});
