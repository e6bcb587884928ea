import * as path from 'node:path';
import type { Config } from '../../config';
import { openConfiguredStore } from '../../store/open';
import { exportWorkspace } from '../../activities/workspace/export';
import { UsageError } from '../turn-options';

/** Flags of `agent-runner workspace export`. */
export interface WorkspaceExportFlags {
  to?: string;
}

/**
 * `agent-runner workspace export <session> --to DIR`: rebuilds the session's working tree (its
 * base commit plus the last snapshot) at DIR from the store, on any machine that reaches it and
 * the origin (remote URL, or the bundle kept in the store). HEAD is the base commit, detached;
 * the agent's changes are uncommitted, ready to commit and push.
 */
export async function runWorkspaceExport(
  config: Config,
  sessionId: string,
  flags: WorkspaceExportFlags,
  io: { stdout: (s: string) => void },
): Promise<number> {
  if (!flags.to) throw new UsageError('workspace export needs --to DIR');
  const dir = path.resolve(flags.to);
  const store = await openConfiguredStore(config);
  try {
    const { origin, snapshot } = await exportWorkspace(store, sessionId, dir);
    io.stdout(
      `exported session ${sessionId} to ${dir}: base ${origin.baseCommit}` +
        (snapshot ? ` + snapshot ${snapshot.commit} (after tool call ${snapshot.toolUseId})` : ' (no changes)'),
    );
    return 0;
  } finally {
    await store.close();
  }
}
