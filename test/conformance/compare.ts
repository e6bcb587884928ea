/**
 * Pure comparison of two runs of a scenario: the stream-json sequence and message shapes, what
 * each sent back to the model for every tool call, the tool schemas offered to the model, the
 * result, the exit code and the repository afterwards. Produces a list of differences that the
 * allow-list (known-differences.ts) filters and {@link formatDifferences} prints.
 */
import type { ParsedRequest, RequestBlock } from '../../src/fake-model';
import { contentText, systemText } from '../../src/fake-model/request';

import type { Side, SideRun, StreamMessage } from './run';

/** What a difference is about. */
export type DifferenceKind =
  | 'exit-code'
  | 'sequence'
  | 'field'
  | 'result'
  | 'tool-result'
  | 'tool-schema'
  | 'repository'
  | 'output'
  /** Where memory, context and prompts land in a request (kinds and order of blocks). */
  | 'context'
  /** The `stream_event` messages (`--include-partial-messages`). */
  | 'stream-event'
  /** What a resumed or forked run did to sessions. */
  | 'session';

/** One difference between the real CLI (`claude`) and ours. */
export interface Difference {
  kind: DifferenceKind;
  /** Where, e.g. `system/init.capabilities`, `toolu_conf_0_1.content`, `a.txt`. */
  where: string;
  claude: unknown;
  ours: unknown;
}

/** Marks a field or value present on one side only. */
export const ABSENT = '(absent)';

/** JSON type name of a value. */
export function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** `type` or `type/subtype` of a stream message. */
export function label(m: StreamMessage): string {
  return typeof m['subtype'] === 'string' ? `${String(m['type'])}/${m['subtype']}` : String(m['type']);
}

function apiMessageId(m: StreamMessage): string | undefined {
  const msg = m['message'] as Record<string, unknown> | undefined;
  return typeof msg?.['id'] === 'string' ? msg['id'] : undefined;
}

/**
 * Puts a stream in a canonical order: within one model response (assistant messages sharing a
 * `message.id` and the tool results that follow them) assistant messages come first, then, call by
 * call in the order of the tool calls, its `system/permission_denied` if it has one, the messages
 * its run streamed (an Agent call's task messages and its agent's own messages, with the
 * `background_tasks_changed` before its start), then its results. Tool results arrive in
 * completion order, which neither CLI promises, and Claude Code interleaves them, and a call's
 * run, with the blocks of the response still streaming.
 */
export function canonicalOrder(messages: readonly StreamMessage[]): StreamMessage[] {
  const out: StreamMessage[] = [];
  let assistants: StreamMessage[] = [];
  let users: StreamMessage[] = [];
  let denials = new Map<string, StreamMessage>();
  /** Messages of a call's run, by its tool_use id; `loose` waits for the next one's call. */
  let runs = new Map<string, StreamMessage[]>();
  let loose: StreamMessage[] = [];
  let taskCalls = new Map<string, string>();
  let currentId: string | undefined;
  const callIds = (): Set<string> => {
    const ids = new Set<string>();
    for (const a of assistants)
      for (const b of contentBlocks(a)) if (b['type'] === 'tool_use') ids.add(String(b['id']));
    return ids;
  };
  /** The call of the response whose run `m` belongs to, if any. */
  const runOf = (m: StreamMessage): string | undefined => {
    const ids = callIds();
    const parent = m['parent_tool_use_id'];
    if (typeof parent === 'string' && ids.has(parent)) return parent;
    if (m['type'] !== 'system') return undefined;
    const use = m['tool_use_id'];
    if (typeof use === 'string' && ids.has(use)) {
      if (typeof m['task_id'] === 'string') taskCalls.set(m['task_id'], use);
      return use;
    }
    return typeof m['task_id'] === 'string' ? taskCalls.get(m['task_id']) : undefined;
  };
  const resultId = (u: StreamMessage): string =>
    String(contentBlocks(u).find((b) => b['type'] === 'tool_result')?.['tool_use_id']);
  const flush = (): void => {
    const order = new Map<string, number>();
    for (const a of assistants) {
      for (const b of contentBlocks(a)) if (b['type'] === 'tool_use') order.set(String(b['id']), order.size);
    }
    const rank = (u: StreamMessage): number => order.get(resultId(u)) ?? Number.MAX_SAFE_INTEGER;
    out.push(...assistants);
    const sorted = users.map((u, i) => ({ u, i })).sort((x, y) => rank(x.u) - rank(y.u) || x.i - y.i);
    const ran = new Set<string>();
    for (const { u } of sorted) {
      const id = resultId(u);
      const denial = denials.get(id);
      if (denial) out.push(denial);
      denials.delete(id);
      if (!ran.has(id)) out.push(...(runs.get(id) ?? []));
      ran.add(id);
      out.push(u);
    }
    out.push(...denials.values());
    for (const [id, ms] of runs) if (!ran.has(id)) out.push(...ms);
    out.push(...loose);
    assistants = [];
    users = [];
    denials = new Map();
    runs = new Map();
    loose = [];
    taskCalls = new Map();
  };
  for (const m of messages) {
    const run = assistants.length > 0 ? runOf(m) : undefined;
    if (run !== undefined) {
      runs.set(run, [...(runs.get(run) ?? []), ...loose, m]);
      loose = [];
    } else if (label(m) === 'system/background_tasks_changed' && assistants.length > 0) {
      loose.push(m);
    } else if (m['type'] === 'assistant') {
      const id = apiMessageId(m);
      if (id !== currentId) flush();
      currentId = id;
      assistants.push(m);
    } else if (m['type'] === 'user' && assistants.length > 0) {
      users.push(m);
    } else if (label(m) === 'system/permission_denied' && assistants.length > 0) {
      denials.set(String(m['tool_use_id']), m);
    } else {
      flush();
      currentId = undefined;
      out.push(m);
    }
  }
  flush();
  return out;
}

/** Content blocks of an assistant or user message. */
export function contentBlocks(m: StreamMessage): Array<Record<string, unknown>> {
  const c = (m['message'] as Record<string, unknown> | undefined)?.['content'];
  return Array.isArray(c) ? (c as Array<Record<string, unknown>>) : [];
}

/**
 * Fields not compared: ids, timestamps and durations differ by nature (token counts sit inside
 * `usage` objects, which are compared as objects only).
 */
export function isExceptedField(path: string): boolean {
  const leaf = path.slice(path.lastIndexOf('.') + 1);
  return ['uuid', 'session_id', 'timestamp', 'request_id', 'id'].includes(leaf) || leaf.endsWith('_ms');
}

/** Field path → JSON type: top-level fields, and the fields of `message` for assistant/user. */
export function shapeOf(m: StreamMessage): Map<string, string> {
  const shape = new Map<string, string>();
  for (const [k, v] of Object.entries(m)) {
    if (!isExceptedField(k)) shape.set(k, jsonType(v));
  }
  const msg = m['message'];
  if ((m['type'] === 'assistant' || m['type'] === 'user') && msg !== null && typeof msg === 'object') {
    for (const [k, v] of Object.entries(msg)) {
      const path = `message.${k}`;
      if (!isExceptedField(path)) shape.set(path, jsonType(v));
    }
  }
  return shape;
}

interface DiffOp {
  op: ' ' | '-' | '+';
  text: string;
}

/** Line diff (LCS) of two string lists: `-` only in claude's, `+` only in ours. */
export function diffLists(a: readonly string[], b: readonly string[]): DiffOp[] {
  const n = a.length;
  const m = b.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const ops: DiffOp[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      ops.push({ op: ' ', text: a[i]! });
      i++;
      j++;
    } else if (j < m && (i >= n || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) {
      ops.push({ op: '+', text: b[j]! });
      j++;
    } else {
      ops.push({ op: '-', text: a[i]! });
      i++;
    }
  }
  return ops;
}

function compareSequences(claude: StreamMessage[], ours: StreamMessage[]): Difference[] {
  const a = claude.map(label);
  const b = ours.map(label);
  if (a.join('\n') === b.join('\n')) return [];
  return [{ kind: 'sequence', where: 'messages', claude: a, ours: b }];
}

/**
 * Field presence and types, per message label: the k-th message of a label on one side is
 * compared with the k-th of the same label on the other; each (label, field) is reported once.
 */
function compareFields(claude: StreamMessage[], ours: StreamMessage[]): Difference[] {
  const group = (ms: StreamMessage[]): Map<string, StreamMessage[]> => {
    const g = new Map<string, StreamMessage[]>();
    for (const m of ms) g.set(label(m), [...(g.get(label(m)) ?? []), m]);
    return g;
  };
  const ga = group(claude);
  const gb = group(ours);
  const seen = new Set<string>();
  const diffs: Difference[] = [];
  for (const [lab, list] of ga) {
    const other = gb.get(lab) ?? [];
    for (let k = 0; k < Math.min(list.length, other.length); k++) {
      const sa = shapeOf(list[k]!);
      const sb = shapeOf(other[k]!);
      for (const path of new Set([...sa.keys(), ...sb.keys()])) {
        const ta = sa.get(path) ?? ABSENT;
        const tb = sb.get(path) ?? ABSENT;
        const key = `${lab}.${path}`;
        if (ta === tb || seen.has(key)) continue;
        seen.add(key);
        diffs.push({ kind: 'field', where: key, claude: ta, ours: tb });
      }
    }
  }
  return diffs;
}

function lastResult(ms: StreamMessage[]): StreamMessage | undefined {
  return [...ms].reverse().find((m) => m['type'] === 'result');
}

function compareResults(claude: StreamMessage[], ours: StreamMessage[]): Difference[] {
  const a = lastResult(claude);
  const b = lastResult(ours);
  const diffs: Difference[] = [];
  const deniedTools = (r: StreamMessage | undefined): unknown =>
    Array.isArray(r?.['permission_denials'])
      ? (r['permission_denials'] as Array<Record<string, unknown>>).map((d) => d['tool_name']).sort()
      : undefined;
  const value = (r: StreamMessage | undefined, f: string): unknown =>
    (f === 'permission_denials' ? deniedTools(r) : r?.[f]) ?? ABSENT;
  const fields = [
    'subtype',
    'is_error',
    'result',
    'structured_output',
    'errors',
    'terminal_reason',
    'stop_reason',
    'permission_denials',
  ];
  for (const f of fields) {
    const va = value(a, f);
    const vb = value(b, f);
    if (JSON.stringify(va) !== JSON.stringify(vb))
      diffs.push({ kind: 'result', where: `result.${f}`, claude: va, ours: vb });
  }
  return diffs;
}

/** A tool result as the model received it. */
export interface SentToolResult {
  content: string;
  isError: boolean;
}

function blockText(c: unknown): string {
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) {
    return (c as RequestBlock[])
      .map((b) => (b.type === 'text' ? String(b['text'] ?? '') : `[${b.type} block]`))
      .join('\n');
  }
  return c === undefined ? '' : JSON.stringify(c);
}

/** Every tool_result the client sent to the model (first occurrence of each tool_use id). */
export function sentToolResults(requests: readonly ParsedRequest[]): Map<string, SentToolResult> {
  const out = new Map<string, SentToolResult>();
  for (const req of requests) {
    for (const m of req.messages) {
      if (m.role !== 'user' || typeof m.content === 'string') continue;
      for (const b of m.content) {
        if (b.type !== 'tool_result') continue;
        const id = String(b['tool_use_id']);
        if (!out.has(id)) out.set(id, { content: blockText(b['content']), isError: b['is_error'] === true });
      }
    }
  }
  return out;
}

function compareToolResults(claude: readonly ParsedRequest[], ours: readonly ParsedRequest[]): Difference[] {
  const a = sentToolResults(claude);
  const b = sentToolResults(ours);
  const diffs: Difference[] = [];
  for (const id of [...new Set([...a.keys(), ...b.keys()])].sort()) {
    const ra = a.get(id);
    const rb = b.get(id);
    if (!ra || !rb) {
      diffs.push({ kind: 'tool-result', where: id, claude: ra ?? ABSENT, ours: rb ?? ABSENT });
      continue;
    }
    if (ra.content !== rb.content)
      diffs.push({ kind: 'tool-result', where: `${id}.content`, claude: ra.content, ours: rb.content });
    if (ra.isError !== rb.isError)
      diffs.push({ kind: 'tool-result', where: `${id}.is_error`, claude: ra.isError, ours: rb.isError });
  }
  return diffs;
}

type Schema = Record<string, unknown>;

function schemaSummary(s: Schema | undefined): string {
  if (!s) return ABSENT;
  const parts: string[] = [String(s['type'] ?? '?')];
  if (Array.isArray(s['enum'])) parts.push(`enum ${JSON.stringify(s['enum'])}`);
  return parts.join(' ');
}

/**
 * The model-facing tool contract: names, input properties with their types, required fields and
 * `additionalProperties`. Descriptions are not compared (ours are our own words).
 */
export function compareToolSchemas(claude: ParsedRequest | undefined, ours: ParsedRequest | undefined): Difference[] {
  const tools = (r: ParsedRequest | undefined): Map<string, Schema> =>
    new Map((r?.tools ?? []).map((t) => [String(t.name), (t['input_schema'] ?? {}) as Schema]));
  const a = tools(claude);
  const b = tools(ours);
  const diffs: Difference[] = [];
  for (const name of [...new Set([...a.keys(), ...b.keys()])].sort()) {
    const sa = a.get(name);
    const sb = b.get(name);
    if (!sa || !sb) {
      diffs.push({ kind: 'tool-schema', where: name, claude: sa ? 'offered' : ABSENT, ours: sb ? 'offered' : ABSENT });
      continue;
    }
    const pa = (sa['properties'] ?? {}) as Record<string, Schema>;
    const pb = (sb['properties'] ?? {}) as Record<string, Schema>;
    for (const p of [...new Set([...Object.keys(pa), ...Object.keys(pb)])].sort()) {
      const ta = schemaSummary(pa[p]);
      const tb = schemaSummary(pb[p]);
      if (ta !== tb) diffs.push({ kind: 'tool-schema', where: `${name}.${p}`, claude: ta, ours: tb });
    }
    const ra = JSON.stringify([...((sa['required'] as string[] | undefined) ?? [])].sort());
    const rb = JSON.stringify([...((sb['required'] as string[] | undefined) ?? [])].sort());
    if (ra !== rb) diffs.push({ kind: 'tool-schema', where: `${name}.required`, claude: ra, ours: rb });
    if (sa['additionalProperties'] !== sb['additionalProperties']) {
      diffs.push({
        kind: 'tool-schema',
        where: `${name}.additionalProperties`,
        claude: sa['additionalProperties'] ?? ABSENT,
        ours: sb['additionalProperties'] ?? ABSENT,
      });
    }
  }
  return diffs;
}

function prefixed(prefix: string, files: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(files ?? {}).map(([k, v]) => [prefix + k, v]));
}

function compareRepos(a: Record<string, string>, b: Record<string, string>): Difference[] {
  const diffs: Difference[] = [];
  for (const p of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    if (a[p] !== b[p]) diffs.push({ kind: 'repository', where: p, claude: a[p] ?? ABSENT, ours: b[p] ?? ABSENT });
  }
  return diffs;
}

const isStreamEvent = (m: StreamMessage): boolean => m['type'] === 'stream_event';
/** Live progress frames: stream events and thinking-token estimates (`system/thinking_tokens`). */
const isProgress = (m: StreamMessage): boolean => isStreamEvent(m) || label(m) === 'system/thinking_tokens';

/**
 * `stream_event` messages (`--include-partial-messages`): the sequence of their event types, and
 * their fields; and whether `system/thinking_tokens` estimates were sent. They are left out of the
 * other comparisons (Claude Code interleaves them with the
 * assistant messages of the same response; the runner sends a response after its events).
 */
function compareStreamEvents(claude: StreamMessage[], ours: StreamMessage[], prefix = ''): Difference[] {
  const types = (ms: StreamMessage[]): string[] =>
    ms.filter(isStreamEvent).map((m) => String((m['event'] as Record<string, unknown> | undefined)?.['type']));
  const a = types(claude);
  const b = types(ours);
  const diffs: Difference[] = [];
  if (a.join('\n') !== b.join('\n'))
    diffs.push({ kind: 'stream-event', where: `${prefix}event types`, claude: a, ours: b });
  const fields = compareFields(claude.filter(isProgress), ours.filter(isProgress));
  diffs.push(...fields.map((d) => ({ ...d, kind: 'stream-event' as const, where: `${prefix}${d.where}` })));
  // Thinking-token estimates are approximations sent as thinking streams: whether a run sends
  // them is compared, not how many (each CLI estimates in its own steps).
  const estimates = (ms: StreamMessage[]): boolean => ms.some((m) => label(m) === 'system/thinking_tokens');
  if (estimates(claude) !== estimates(ours)) {
    diffs.push({
      kind: 'stream-event',
      where: `${prefix}system/thinking_tokens`,
      claude: estimates(claude),
      ours: estimates(ours),
    });
  }
  return diffs;
}

/** The paths that mean the same on both sides (repository, HOME), for comparing request text. */
export interface SidePaths {
  repo: string;
  home: string;
}

/** One text block of a request, by kind; null for Claude Code's own reminders (not compared). */
function textKind(role: string, text: string, norm: (t: string) => string): string | null {
  if (text.startsWith('<system-reminder>\nCodebase and user instructions')) {
    const files = [...text.matchAll(/\nContents of (\S+) \(([^)]*)\):\n/g)].map((m) => `${norm(m[1] ?? '')} [${m[2]}]`);
    return `memory(${files.join(', ')})`;
  }
  if (text.includes('\n# gitStatus\n')) return 'gitStatus';
  const nested = /^<system-reminder>\nContents of (\S+):\n/.exec(text);
  if (nested) return `nested(${norm(nested[1] ?? '')})`;
  if (text.startsWith('<system-reminder>\nAttribution for git commits')) return null;
  if (role === 'system' && text.startsWith('# Environment')) return 'environment';
  if (role === 'system' && text.startsWith("The user hasn't heard from you")) return null;
  return 'text';
}

/**
 * Where context lands in one request: per message, its role and the kinds of its blocks in
 * order (`memory(<files>)`, `gitStatus`, `nested(<file>)`, `environment`, `text`, `tool_use`,
 * `tool_result`). Paths are shown relative to `<repo>` and `<home>`.
 */
export function contextLayout(req: ParsedRequest, paths: SidePaths): string[] {
  const norm = (t: string): string => t.split(paths.repo).join('<repo>').split(paths.home).join('<home>');
  const out: string[] = [];
  for (const m of req.messages) {
    const blocks: RequestBlock[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    const kinds = blocks
      .map((b) => (b.type === 'text' ? textKind(m.role, String(b['text'] ?? ''), norm) : b.type))
      .filter((k): k is string => k !== null);
    if (kinds.length) out.push(`${m.role}: ${kinds.join(', ')}`);
  }
  return out;
}

/** The plan-mode paragraph of a request's environment message, or null without one. */
function planModeParagraph(r: ParsedRequest): string | null {
  for (const m of r.messages) {
    if ((m.role as string) !== 'system') continue;
    const text = contentText(m.content as Parameters<typeof contentText>[0]);
    const start = text.indexOf('Plan mode is active.');
    if (start < 0) continue;
    const end = text.lastIndexOf("\n\nToday's date is ");
    return text.slice(start, end > start ? end : undefined);
  }
  return null;
}

/** The context layout of every request, and whether each system prompt ends with `systemTail`. */
export function compareContext(
  claude: readonly ParsedRequest[],
  claudePaths: SidePaths,
  ours: readonly ParsedRequest[],
  oursPaths: SidePaths,
  opts: { systemTail?: string; prefix?: string } = {},
): Difference[] {
  const diffs: Difference[] = [];
  const prefix = opts.prefix ?? '';
  for (let i = 0; i < Math.max(claude.length, ours.length); i++) {
    const a = claude[i] ? contextLayout(claude[i]!, claudePaths) : [ABSENT];
    const b = ours[i] ? contextLayout(ours[i]!, oursPaths) : [ABSENT];
    if (a.join('\n') !== b.join('\n'))
      diffs.push({ kind: 'context', where: `${prefix}request ${i}`, claude: a, ours: b });
    // Plan mode's paragraph of the environment message, word for word (the plan file's random words normalised).
    const plan = (r: ParsedRequest | undefined): string | null => (r ? planModeParagraph(r) : null);
    if (plan(claude[i]) !== plan(ours[i]))
      diffs.push({
        kind: 'context',
        where: `${prefix}request ${i} plan mode`,
        claude: plan(claude[i]),
        ours: plan(ours[i]),
      });
    if (opts.systemTail !== undefined) {
      const tail = opts.systemTail.trim();
      const ends = (r: ParsedRequest | undefined): boolean => (r ? systemText(r).trim().endsWith(tail) : false);
      if (ends(claude[i]) !== ends(ours[i])) {
        diffs.push({
          kind: 'context',
          where: `${prefix}request ${i} system prompt ends with the appended text`,
          claude: ends(claude[i]),
          ours: ends(ours[i]),
        });
      }
    }
  }
  return diffs;
}

/** The messages of a run, compared as a whole run is (sequence, fields, result, stream events). */
function compareMessages(claude: StreamMessage[], ours: StreamMessage[], prefix = ''): Difference[] {
  const ca = canonicalOrder(claude.filter((m) => !isProgress(m)));
  const cb = canonicalOrder(ours.filter((m) => !isProgress(m)));
  const tag = (ds: Difference[]): Difference[] =>
    prefix ? ds.map((d) => ({ ...d, where: `${prefix}${d.where}` })) : ds;
  return [
    ...tag(compareSequences(ca, cb)),
    ...tag(compareFields(ca, cb)),
    ...tag(compareResults(ca, cb)),
    ...compareStreamEvents(claude, ours, prefix),
  ];
}

/** Prefix of the differences found in a scenario's second run (`--resume`); allow-list entries apply to both runs. */
export const RESUMED_PREFIX = 'resumed run: ';

/** The second run of a scenario (`--resume`, maybe `--fork-session`): its messages, requests and sessions. */
function compareResumed(runs: Record<Side, SideRun>, opts: { systemTail?: string }): Difference[] {
  const a = runs.claude.resumed;
  const b = runs.ours.resumed;
  if (!a || !b) return [];
  const prefix = RESUMED_PREFIX;
  const diffs: Difference[] = [];
  if (a.exitCode !== b.exitCode)
    diffs.push({ kind: 'exit-code', where: `${prefix}exit code`, claude: a.exitCode, ours: b.exitCode });
  diffs.push(...compareMessages(a.messages, b.messages, prefix));
  diffs.push(...compareContext(a.requests, runs.claude.paths, b.requests, runs.ours.paths, { ...opts, prefix }));
  const cost = (ms: readonly StreamMessage[]): number => Number(lastResult([...ms])?.['total_cost_usd'] ?? 0);
  const facts = (r: typeof a, first: readonly StreamMessage[]): Record<string, boolean> => ({
    'continues in a new session': r.sessionId !== '' && r.sessionId !== r.firstSessionId,
    'leaves the first session unchanged': r.firstTranscriptUnchanged,
    // total_cost_usd is the session's (the first run's spend included), not the second run's alone.
    "reports the session's total cost": cost(r.messages) > cost(first),
  });
  const fa = facts(a, runs.claude.messages);
  const fb = facts(b, runs.ours.messages);
  for (const k of Object.keys(fa)) {
    if (fa[k] !== fb[k]) diffs.push({ kind: 'session', where: `${prefix}${k}`, claude: fa[k], ours: fb[k] });
  }
  return diffs;
}

/** Every difference between the two runs of a scenario (before the allow-list). */
export function compareRuns(runs: Record<Side, SideRun>, opts: { systemTail?: string } = {}): Difference[] {
  const { claude, ours } = runs;
  const diffs: Difference[] = [];
  if (claude.exitCode !== ours.exitCode) {
    diffs.push({ kind: 'exit-code', where: 'exit code', claude: claude.exitCode, ours: ours.exitCode });
  }
  if (claude.strayLines.length > 0 || ours.strayLines.length > 0) {
    if (JSON.stringify(claude.strayLines) !== JSON.stringify(ours.strayLines)) {
      diffs.push({ kind: 'output', where: 'non-JSON stdout lines', claude: claude.strayLines, ours: ours.strayLines });
    }
  }
  diffs.push(...compareMessages(claude.messages, ours.messages));
  diffs.push(...compareToolResults(claude.requests, ours.requests));
  diffs.push(...compareContext(claude.requests, claude.paths, ours.requests, ours.paths, opts));
  diffs.push(...compareRepos(claude.files, ours.files));
  diffs.push(...compareRepos(prefixed('~/', claude.homeFiles), prefixed('~/', ours.homeFiles)));
  diffs.push(...compareResumed(runs, opts));
  return diffs;
}

function show(v: unknown): string {
  const s = typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v);
  return s.length > 600 ? `${s.slice(0, 600)}…` : s;
}

/** A readable report of differences (multi-line values as a line diff). */
export function formatDifferences(diffs: readonly Difference[]): string {
  return diffs
    .map((d) => {
      const head = `• [${d.kind}] ${d.where}`;
      const lines = (v: unknown): string[] | null =>
        Array.isArray(v) && v.every((x) => typeof x === 'string')
          ? (v as string[])
          : typeof v === 'string' && v.includes('\n')
            ? v.split('\n')
            : null;
      const la = lines(d.claude);
      const lb = lines(d.ours);
      if (la && lb) {
        const body = diffLists(la, lb).map((o) => `    ${o.op === ' ' ? ' ' : o.op === '-' ? '-' : '+'} ${o.text}`);
        return [head, '    (- claude, + ours)', ...body].join('\n');
      }
      return `${head}\n    claude: ${show(d.claude)}\n    ours:   ${show(d.ours)}`;
    })
    .join('\n');
}
