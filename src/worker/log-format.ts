/**
 * How the Temporal SDK's log lines look on stderr (or in `<dataDir>/server.log`): one readable
 * line each. A failed activity reads `activity callModel failed (attempt 2, agent-session-…-turn-1,
 * 1.2 s): ModelError.RateLimit: rate limited`, not the SDK's metadata object as raw JSON.
 */

const MAX_LINE = 400;

/** Activity metadata the SDK attaches to its activity log lines. */
interface ActivityMeta {
  activityType?: unknown;
  attempt?: unknown;
  workflowId?: unknown;
  durationMs?: unknown;
  error?: unknown;
  isLocal?: unknown;
}

/** `Name[.type]: first line of the message` of an error (ApplicationFailure types included). */
export function describeError(e: unknown): string {
  if (!(e instanceof Error)) return firstLine(String(e));
  const type = (e as { type?: unknown }).type;
  const name = typeof type === 'string' && type ? type : e.name;
  const cause = e.cause instanceof Error && e.message === '' ? `: ${describeError(e.cause)}` : '';
  return `${name}: ${firstLine(e.message)}${cause}`;
}

function firstLine(s: string): string {
  const line = s.split('\n')[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** A value for `key=value` output: bare when simple, JSON-quoted otherwise. */
function value(v: unknown): string {
  if (v instanceof Error) return JSON.stringify(describeError(v));
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return String(v);
  if (typeof v === 'bigint') return String(v);
  if (typeof v === 'string') return /^[\w.:/@-]+$/.test(v) ? v : JSON.stringify(firstLine(v));
  try {
    const j = JSON.stringify(v);
    return j === undefined ? String(v) : j.length > 120 ? `${j.slice(0, 119)}…` : j;
  } catch {
    return '[unprintable]';
  }
}

/** One log line (without timestamp and level) for an SDK log entry. */
export function formatLogEntry(message: string, meta: Record<string, unknown> | undefined): string {
  const m = meta ?? {};
  if (/^Activity /.test(message) && typeof m['activityType'] === 'string') {
    const a = m as ActivityMeta;
    const what = message.replace(/^Activity /, '');
    const details = [
      typeof a.attempt === 'number' ? `attempt ${a.attempt}` : null,
      typeof a.workflowId === 'string' ? a.workflowId : null,
      typeof a.durationMs === 'number' ? `${(a.durationMs / 1000).toFixed(1)} s` : null,
      a.isLocal === true ? 'local' : null,
    ].filter((x): x is string => x !== null);
    const line =
      `activity ${typeof a.activityType === 'string' ? a.activityType : '?'} ${what}` +
      (details.length ? ` (${details.join(', ')})` : '') +
      (a.error !== undefined ? `: ${describeError(a.error)}` : '');
    return line.length > MAX_LINE ? `${line.slice(0, MAX_LINE - 1)}…` : line;
  }
  const pairs = Object.entries(m)
    .filter(([k]) => k !== 'sdkComponent' && k !== 'taskToken')
    .map(([k, v]) => `${k}=${value(v)}`);
  const line = pairs.length ? `${message} ${pairs.join(' ')}` : message;
  return line.length > MAX_LINE ? `${line.slice(0, MAX_LINE - 1)}…` : line;
}
