import type { Config } from '../../config';
import { listSessions } from '../../client/list';
import type { SessionRow } from '../../client/list';
import { openRuntime } from '../../worker/runtime';
import { UsageError } from '../turn-options';

/** Flags of `agent-runner list`. */
export interface ListFlags {
  batch?: string;
  status?: string;
  query?: string;
  limit?: string;
  json?: boolean;
}

/**
 * `agent-runner list`: session workflows with the runner's search attributes (session, batch,
 * task, status, cost), most recent first, as a table or (`--json`) one JSON object per line.
 */
export async function runList(config: Config, flags: ListFlags, io: { stdout: (s: string) => void }): Promise<number> {
  const limit = flags.limit === undefined ? 200 : Number(flags.limit);
  if (!Number.isInteger(limit) || limit <= 0)
    throw new UsageError(`--limit must be a positive integer, got "${flags.limit}"`);
  const rt = await openRuntime({ config, worker: false });
  try {
    const rows = await listSessions(rt.client, {
      ...(flags.batch !== undefined ? { batchId: flags.batch } : {}),
      ...(flags.status !== undefined ? { status: flags.status } : {}),
      ...(flags.query !== undefined ? { query: flags.query } : {}),
      limit,
    });
    if (flags.json) {
      for (const r of rows) io.stdout(JSON.stringify(rowJson(r)));
    } else {
      io.stdout(formatSessionTable(rows));
    }
    return 0;
  } finally {
    await rt.close();
  }
}

function rowJson(r: SessionRow): Record<string, unknown> {
  return {
    workflow_id: r.workflowId,
    session_id: r.sessionId,
    batch_id: r.batchId,
    task_id: r.taskId,
    status: r.agentStatus,
    cost_usd: r.costUsd,
    workflow_status: r.workflowStatus,
    start_time: r.startTime.toISOString(),
    close_time: r.closeTime ? r.closeTime.toISOString() : null,
  };
}

/** The `agent-runner list` table. */
export function formatSessionTable(rows: SessionRow[]): string {
  if (rows.length === 0) return 'no sessions found';
  const header = ['SESSION', 'BATCH', 'TASK', 'STATUS', 'COST', 'WORKFLOW', 'STARTED'];
  const body = rows.map((r) => [
    r.sessionId,
    r.batchId ?? '-',
    r.taskId ?? '-',
    r.agentStatus ?? '-',
    r.costUsd === null ? '-' : `$${r.costUsd.toFixed(4)}`,
    r.workflowStatus,
    r.startTime.toISOString().replace(/\.\d{3}Z$/, 'Z'),
  ]);
  const all = [header, ...body];
  const widths = header.map((_, i) => Math.max(...all.map((row) => (row[i] ?? '').length)));
  return all
    .map((row) =>
      row
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
