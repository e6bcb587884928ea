/**
 * What a session workflow says about itself in listings and the Temporal Web UI: a memo (returned
 * by every visibility listing, read by `agent-runner list`) and a static summary and details
 * (shown by the Web UI). Small on purpose: the prompt appears only as its first line, cut to
 * {@link FIRST_LINE_CHARS}; the rest of the prompt stays in the transcript store.
 */
import { homedir } from 'node:os';
import { LABEL_CHARS, firstLine } from '../common/summary';

/** Longest prompt line kept in the memo and the summary, in characters. */
export const FIRST_LINE_CHARS = LABEL_CHARS;

export { firstLine };

/** The memo of a session workflow (field names are part of the listing format). */
export interface SessionMemo {
  /** First line of the session's first prompt. */
  prompt: string;
  cwd: string;
  model: string;
}

/** What a session's metadata is made from. */
export interface SessionMetadataInput {
  prompt: string;
  cwd: string;
  model: string;
  batchId?: string;
  taskId?: string;
}

/** The memo of a session workflow. */
export function sessionMemo(m: SessionMetadataInput): SessionMemo {
  return { prompt: firstLine(m.prompt), cwd: m.cwd, model: m.model };
}

/** The Web UI's one-line summary: `[batch/task] first line of the prompt`. */
export function sessionSummary(m: SessionMetadataInput): string {
  const tag = m.batchId !== undefined ? `[${m.batchId}${m.taskId !== undefined ? `/${m.taskId}` : ''}] ` : '';
  return `${tag}${firstLine(m.prompt)}`;
}

/** The Web UI's details (Temporal markdown): where and with what the session runs. */
export function sessionDetails(m: SessionMetadataInput): string {
  const rows = [`**cwd** \`${tildify(m.cwd)}\``, `**model** \`${m.model}\``];
  if (m.batchId !== undefined) rows.push(`**batch** \`${m.batchId}\``);
  if (m.taskId !== undefined) rows.push(`**task** \`${m.taskId}\``);
  return rows.join('  \n');
}

/** A path with the home directory written as `~`. */
export function tildify(p: string, home: string = homedir()): string {
  return home && (p === home || p.startsWith(`${home}/`)) ? `~${p.slice(home.length)}` : p;
}

/** Reads a {@link SessionMemo} from a listing's memo (fields missing on sessions started before it existed). */
export function readSessionMemo(memo: Record<string, unknown> | undefined): Partial<SessionMemo> {
  const out: Partial<SessionMemo> = {};
  for (const k of ['prompt', 'cwd', 'model'] as const) {
    const v = memo?.[k];
    if (typeof v === 'string') out[k] = v;
  }
  return out;
}
