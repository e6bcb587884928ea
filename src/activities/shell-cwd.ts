/**
 * Where the session's shell is: the Bash working directory that persists between calls, read
 * back from the transcript (see `tools/shell-cwd.ts` for how a command reports it).
 */
import * as path from 'node:path';
import type { TranscriptEntry } from '../common/transcript';
import type { TranscriptStore } from '../store/transcript-store';

/** The shell directory a line records: `toolRun.shellCwd` (a Bash result) or `shellCwd` (a compact boundary). */
export function recordedShellCwd(e: TranscriptEntry): string | undefined {
  const run = (e as Record<string, unknown>)['toolRun'] as { shellCwd?: unknown } | undefined;
  if (typeof run?.shellCwd === 'string') return run.shellCwd;
  const own = (e as Record<string, unknown>)['shellCwd'];
  return typeof own === 'string' ? own : undefined;
}

/**
 * The shell directory of the conversation ending at `leafUuid`, relative to the session's
 * working directory, from the latest line on the chain that records one (the chain stops at a
 * compact boundary, which carries the directory of the conversation it summarizes).
 * @returns undefined when no command has moved the shell (it starts in the working directory)
 */
export async function shellCwdOfChain(
  store: TranscriptStore,
  sessionId: string,
  leafUuid: string,
): Promise<string | undefined> {
  const chain = await store.chain(sessionId, leafUuid);
  for (let i = chain.length - 1; i >= 0; i--) {
    const e = chain[i];
    const rel = e ? recordedShellCwd(e) : undefined;
    if (rel !== undefined) return rel;
  }
  const boundaryUuid = chain[0]?.parentUuid;
  const boundary = boundaryUuid ? await store.get(sessionId, boundaryUuid) : undefined;
  return boundary?.subtype === 'compact_boundary' ? recordedShellCwd(boundary) : undefined;
}

/** {@link shellCwdOfChain} as an absolute directory under `cwd` (undefined: `cwd` itself). */
export async function persistedShellCwd(
  store: TranscriptStore,
  sessionId: string,
  leafUuid: string,
  cwd: string,
): Promise<string | undefined> {
  const rel = await shellCwdOfChain(store, sessionId, leafUuid);
  if (rel === undefined || rel === '' || path.isAbsolute(rel) || rel.split(/[\\/]/).includes('..')) return undefined;
  return path.join(cwd, rel);
}
