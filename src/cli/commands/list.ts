import type { Config } from '../../config';
import { listSessions } from '../../client/list';
import type { SessionRow } from '../../client/list';
import { connectClient, findServer } from '../../connection/connect';
import { tildify } from '../../client/session-metadata';
import { serverLockHolder } from '../../host/server-lock';
import { EXIT } from '../output';
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
 * `agent-runner list`: session workflows, most recent first: status, cost, model, working
 * directory and the first line of the prompt (plus batch and task when any row has them), as a
 * table or (`--json`) one JSON object per line. With no server to ask it says so (exit 1) and
 * starts none.
 */
export async function runList(
  config: Config,
  flags: ListFlags,
  io: { stdout: (s: string) => void; stderr?: (s: string) => void },
): Promise<number> {
  const limit = flags.limit === undefined ? 200 : Number(flags.limit);
  if (!Number.isInteger(limit) || limit <= 0)
    throw new UsageError(`--limit must be a positive integer, got "${flags.limit}"`);
  if (!(await findServer(config))) {
    const holder = serverLockHolder(config.dataDir);
    (io.stderr ?? io.stdout)(
      `agent-runner list: no Temporal server is running for ${config.dataDir}, so there is nothing to ask` +
        (holder?.mode === 'private'
          ? ` (process ${holder.ownerPid} runs a private server for its own run).`
          : '. Its sessions are kept: the next run (or `agent-runner server`) starts the server, and list shows them again.'),
    );
    return EXIT.error;
  }
  const rt = await connectClient({ config, command: 'list' });
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
      io.stdout(formatSessionTable(rows, process.stdout.columns));
    }
    return EXIT.success;
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
    model: r.model,
    cwd: r.cwd,
    prompt: r.prompt,
    workflow_status: r.workflowStatus,
    start_time: r.startTime.toISOString(),
    close_time: r.closeTime ? r.closeTime.toISOString() : null,
  };
}

/**
 * The `agent-runner list` table: SESSION, STATUS, COST, MODEL, CWD, STARTED, PROMPT (BATCH and
 * TASK only when a row has one). The prompt column takes what is left of `width` columns.
 */
export function formatSessionTable(rows: SessionRow[], width = 160): string {
  if (rows.length === 0) return 'no sessions found';
  const withBatch = rows.some((r) => r.batchId !== null || r.taskId !== null);
  const header = [
    'SESSION',
    ...(withBatch ? ['BATCH', 'TASK'] : []),
    'STATUS',
    'COST',
    'MODEL',
    'CWD',
    'STARTED',
    'PROMPT',
  ];
  const body = rows.map((r) => [
    r.sessionId,
    ...(withBatch ? [r.batchId ?? '-', r.taskId ?? '-'] : []),
    r.agentStatus ?? (r.workflowStatus === 'RUNNING' ? 'running' : r.workflowStatus.toLowerCase()),
    r.costUsd === null ? '-' : `$${r.costUsd.toFixed(4)}`,
    r.model ?? '-',
    r.cwd ? tildify(r.cwd) : '-',
    r.startTime.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    r.prompt ?? '-',
  ]);
  const all = [header, ...body];
  const widths = header.map((_, i) => Math.max(...all.map((row) => (row[i] ?? '').length)));
  const last = header.length - 1;
  const fixed = widths.slice(0, last).reduce((a, w) => a + w + 2, 0);
  const room = Math.max(20, width - fixed);
  return all
    .map((row) =>
      row
        .map((c, i) => {
          if (i === last) return c.length > room ? `${c.slice(0, room - 1)}…` : c;
          return c.padEnd(widths[i] ?? 0);
        })
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
