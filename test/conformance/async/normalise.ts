/**
 * Normalises a recorded run so that two runs of one scenario read the same: temp paths become
 * `<REPO>`, `<HOME>`, `<TMP>`, `<ROOT>` (and Claude Code's project folder name `<PROJECT>`); ids
 * become numbered placeholders in order of first appearance (`<session>`, `<uuid:1>`, `<agent:1>`,
 * `<shell:1>`, `<cron:1>`, `<run:1>`, `<msg:1>`, `<req:1>`, `<ref:1>`), so one id reads the same
 * everywhere in a recording (a 7-character agent id prefix reads `<agent:1>~7`); clock readings
 * and durations become `<time>`, `<epoch>`, `<ms>`, `<clock>`, `<when>`, `<n>`. Token counts and
 * costs are kept (they follow from the prompt sizes, which fixed-length paths keep stable).
 */
import type { Recording } from './recording';
import type { RunPaths } from './run';

/** Numeric fields that hold a duration (`<ms>`) or a clock reading (`<epoch>`). */
const MS_FIELDS = new Set([
  'duration_ms',
  'duration_api_ms',
  'ttft_ms',
  'ttft_stream_ms',
  'time_to_request_ms',
  'first_content_frame_ms',
  'totalDurationMs',
  'durationMs',
]);
const EPOCH_FIELDS = new Set([
  'end_time',
  'start_time',
  'startTime',
  'endTime',
  'nextFireAt',
  'scheduledFor',
  'scheduled_for',
]);

/** Claude Code's project folder name for a path (`/tmp/x/repo` → `-tmp-x-repo`). */
export function projectDirName(path: string): string {
  return path.replace(/[^A-Za-z0-9]/g, '-');
}

/** Ids found anywhere (kind, pattern; group 1 is the id when the pattern has a group). */
const GENERIC_IDS: ReadonlyArray<[string, RegExp]> = [
  ['uuid', /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g],
  ['msg', /\bmsg_01fake[0-9a-f]+\b/g],
  ['req', /\breq_01fake[0-9a-f]+\b/g],
  ['agent', /\ba[0-9a-f]{16}\b/g],
  ['run', /\b[0-9a-z]{9}-[0-9a-f]{8}\b/g],
];

/** Ids recognised by their context (group 1), then replaced wherever they occur. */
const CONTEXT_IDS: ReadonlyArray<[string, RegExp]> = [
  ['shell', /\bwith ID: (b[0-9a-z]{8})\b/g],
  ['shell', /\(task (b[0-9a-z]{8}),/g],
  ['shell', /"task_id":"(b[0-9a-z]{8})"/g],
  ['cron', /\bjob ([0-9a-f]{8})\b/g],
  ['ref', /"ref":"([0-9a-f]{6})"/g],
  ['ref', /\[([0-9a-f]{6})\]/g],
  ['session-name', /This session is (\S+) \[/g],
];

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A normaliser: one per recording, so placeholders are numbered across all its files. */
export class Normaliser {
  private readonly ids = new Map<string, string>();
  private readonly counters = new Map<string, number>();
  private readonly pathPairs: Array<[string, string]>;
  private known: RegExp | undefined;

  constructor(paths: RunPaths, sessionIds: readonly string[] = []) {
    // Longest first, so the repository wins over the root that contains it.
    this.pathPairs = (
      [
        [paths.repo, '<REPO>'],
        [paths.home, '<HOME>'],
        [paths.tmp, '<TMP>'],
        [projectDirName(paths.repo), '<PROJECT>'],
        [paths.root, '<ROOT>'],
      ] as Array<[string, string]>
    ).sort((a, b) => b[0].length - a[0].length);
    sessionIds.forEach((id, i) => this.ids.set(id, sessionIds.length === 1 ? '<session>' : `<session:${i + 1}>`));
  }

  private add(kind: string, id: string): void {
    if (this.ids.has(id)) return;
    const n = (this.counters.get(kind) ?? 0) + 1;
    this.counters.set(kind, n);
    this.ids.set(id, kind === 'session-name' ? '<session-name>' : `<${kind}:${n}>`);
    if (kind === 'agent') this.ids.set(id.slice(0, 7), `<${kind}:${n}>~7`);
    this.known = undefined;
  }

  private paths(s: string): string {
    let out = s;
    for (const [from, to] of this.pathPairs) out = out.split(from).join(to);
    return out;
  }

  /** Registers the ids a string shows (call on every string, in order, before {@link text}). */
  discover(s: string): void {
    const t = this.paths(s);
    const found: Array<{ at: number; kind: string; id: string }> = [];
    for (const [kind, re] of [...GENERIC_IDS, ...CONTEXT_IDS]) {
      for (const m of t.matchAll(re)) found.push({ at: m.index, kind, id: m[1] ?? m[0] });
    }
    for (const f of found.sort((a, b) => a.at - b.at)) this.add(f.kind, f.id);
  }

  /** Normalises one string. */
  text(s: string): string {
    if (!this.known && this.ids.size > 0) {
      const keys = [...this.ids.keys()].sort((a, b) => b.length - a.length).map(escapeRe);
      this.known = new RegExp(`(?<![0-9A-Za-z])(?:${keys.join('|')})(?![0-9A-Za-z])`, 'g');
    }
    let out = this.paths(s);
    if (this.known) out = out.replace(this.known, (id) => this.ids.get(id) ?? id);
    return out
      .replace(/\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z\b/g, '<time>')
      .replace(/cc_version=2\.1\.328\.[0-9a-f]+/g, 'cc_version=2.1.328.<hash>')
      .replace(/"device_id":"[0-9a-f]+"/g, '"device_id":"<device>"')
      .replace(/\/tmp\/cc-socks\/\d+\.sock/g, '<socket>')
      .replace(/(cc-socks\/)\d+(\.sock)/g, '$1<pid>$2')
      .replace(/(duration_ms>|duration_ms: )\d+/g, '$1<ms>')
      .replace(/(Today's date is )\d{4}-\d{2}-\d{2}/g, '$1<date>')
      .replace(/("date":")\d{4}-\d{2}-\d{2}"/g, '$1<date>"')
      .replace(/(scheduled for )\d{1,2}:\d{2}(:\d{2})? \(in \d+s\)/g, '$1<clock> (in <n>s)')
      .replace(/((?:Next run:|next run|at) )[A-Z][a-z]{2} \d{1,2} \d{1,2}:\d{2}(?:am|pm)/g, '$1<when>')
      .replace(/(started )\d+s( ago)/g, '$1<n>s$2')
      .replace(/("createdAt": )\d+/g, '$1"<epoch>"')
      .replace(/("createdByPid": )\d+/g, '$1"<pid>"')
      .replace(/("createdByProcStart": )"\d+"/g, '$1"<n>"');
  }

  /** Calls {@link discover} on every string of a JSON value. */
  discoverValue(v: unknown): void {
    if (typeof v === 'string') this.discover(v);
    else if (Array.isArray(v)) for (const x of v) this.discoverValue(x);
    else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        this.discover(k);
        this.discoverValue(x);
        // Ids in structured fields (`"task_id": "b…"`) as the context patterns see them in text.
        if (typeof x === 'string') this.discover(JSON.stringify({ [k]: x }));
      }
    }
  }

  /** Normalises a JSON value (strings everywhere, durations and clock fields by key). */
  value(v: unknown, key = ''): unknown {
    if (typeof v === 'string') return this.text(v);
    if (typeof v === 'number' && MS_FIELDS.has(key)) return '<ms>';
    if (typeof v === 'number' && EPOCH_FIELDS.has(key)) return '<epoch>';
    if (Array.isArray(v)) return v.map((x) => this.value(x));
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[this.text(k)] = this.value(x, k);
      return out;
    }
    return v;
  }
}

/**
 * A normalised copy of a recording. Ids are numbered in the order the stream shows them, then
 * the requests, then the meta; the harness's own timings stay numbers.
 */
export function normaliseRecording(rec: Recording, paths: RunPaths): Recording {
  const sessionIds = [
    ...new Set(rec.stream.map((m) => m['session_id']).filter((x): x is string => typeof x === 'string')),
  ];
  const n = new Normaliser(paths, sessionIds);
  n.discoverValue(rec.stream);
  n.discoverValue(rec.requests.map((r) => r.body));
  n.discoverValue(rec.meta);
  const stream = rec.stream.map((m) => n.value(m) as Recording['stream'][number]);
  const requests = rec.requests.map((r) => ({ ...r, body: n.value(r.body) as typeof r.body }));
  const meta = n.value(rec.meta) as Recording['meta'];
  // Task output files in a stable order (their names are ids, numbered above).
  meta.taskOutputs = Object.fromEntries(Object.entries(meta.taskOutputs).sort(([a], [b]) => (a < b ? -1 : 1)));
  return {
    meta: { ...meta, durationMs: rec.meta.durationMs, streamTimesMs: rec.meta.streamTimesMs },
    requests,
    stream,
  };
}
