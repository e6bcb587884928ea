/**
 * Turns a capture (record.ts) into a fixture: the same text with its volatile values replaced by
 * placeholders, so that a recording is byte-stable from run to run and machine to machine, and
 * readable. What is replaced (and nothing else; every other byte is as the CLI sent it):
 *
 * | value                                                   | placeholder                          |
 * | ------------------------------------------------------- | ------------------------------------ |
 * | the run's repository, HOME and root directories          | `{{repo}}`, `{{home}}`, `{{root}}`   |
 * | the same as Claude Code's project-directory slug          | `{{repo-slug}}`                      |
 * | the fake model's and the pages server's base URLs         | `{{base}}`, `{{pages}}`              |
 * | the session id of the first and of the resumed run        | `{{session}}`, `{{session-2}}`       |
 * | other UUIDs, by first appearance                          | `{{uuid-1}}`, `{{uuid-2}}`, …        |
 * | ISO timestamps; today's date                              | `{{timestamp}}`; `{{date}}`          |
 * | AWS SigV4 dates (`20261201T191849Z`, `20261201/`)         | `{{amz-date}}`, `{{amz-day}}`        |
 * | 64-hex values (device id, SHA-256, SigV4 signature)       | `{{hex64}}`                          |
 * | the fake model's message and request ids                 | `msg_01fake{{id}}`, `req_01fake{{id}}` |
 * | the kernel version on the environment line                | `{{os-version}}`                     |
 * | the messaging socket path                                 | `{{socket}}`                         |
 * | the random words of a plan file name                      | `-{{adjective}}-{{noun}}.md`         |
 * | a scenario's own patterns (`normalise`, e.g. random cell ids) | as the scenario says             |
 * | timing fields of stream messages (`duration_ms`, `ttft_ms`, …), `pid`, `atMs` | `0`             |
 * | base64 `data` over 4096 characters (PDF pages rendered by pdftoppm) | `(base64, N chars)`       |
 *
 * In requests.json, a request's `system` or `tools` equal to an earlier request's is written as
 * the string `(same as request N)`; the headers `host`, `content-length` and `connection` are left
 * out.
 */
import { release } from 'node:os';
import type { Capture, CapturedRequest, CapturedRun } from './record';

/** Fields that hold times in ms or process ids (set to 0). */
export const TIMING_FIELDS: ReadonlySet<string> = new Set([
  'pid',
  'atMs',
  'durationSeconds',
  'duration_ms',
  'duration_api_ms',
  'ttft_ms',
  'ttft_stream_ms',
  'time_to_request_ms',
  'first_content_frame_ms',
]);

/** Other keys whose numbers are times: `…_ms`, `…Ms`, `…Seconds`. */
const TIMING_KEY = /(_ms|Ms|_seconds|Seconds)$/;

/** Base64 `data` longer than this (characters) is written as `(base64, N chars)` (rendered PDF pages). */
const LONG_BASE64 = 4096;

/** Headers not kept in fixtures (they only restate the connection). */
const DROPPED_HEADERS: ReadonlySet<string> = new Set(['host', 'content-length', 'connection']);

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;

/** Claude Code's project-directory name for a path (`/tmp/x/repo` → `-tmp-x-repo`). */
export function projectSlug(path: string): string {
  return path.replace(/[^a-zA-Z0-9]/g, '-');
}

/** Replaces the volatile values of one capture, consistently across all of its texts. */
export class Normaliser {
  private readonly uuids = new Map<string, string>();
  private readonly literal: Array<[string, string]>;
  private readonly today = new Date().toISOString().slice(0, 10);

  private readonly extra: { pattern: RegExp; replace: (m: string) => string };

  /** @param extra - a scenario's own replacements (`[regular expression source, replacement]`) */
  constructor(capture: Capture, extra: ReadonlyArray<readonly [string, string]> = []) {
    const rules = extra.map(([src, to]) => [new RegExp(src), to] as const);
    this.extra = {
      pattern: rules.length === 0 ? /(?!)/g : new RegExp(extra.map(([src]) => `(?:${src})`).join('|'), 'g'),
      replace: (m) => rules.find(([re]) => re.test(m))?.[1] ?? m,
    };
    const { root, repo, home, baseUrl, pagesUrl } = capture.paths;
    const sessions = [capture.first, capture.resumed]
      .filter((r): r is CapturedRun => r !== undefined)
      .map((r) => sessionIds(r.stdout));
    const first = sessions[0]?.[0];
    if (first) this.uuids.set(first, '{{session}}');
    const second = sessions[1]?.find((id) => id !== first);
    if (second) this.uuids.set(second, '{{session-2}}');
    this.literal = [
      [baseUrl, '{{base}}'],
      [pagesUrl, '{{pages}}'],
      [baseUrl.replace(/^https?:\/\//, ''), '{{base-host}}'],
      [repo, '{{repo}}'],
      [home, '{{home}}'],
      [root, '{{root}}'],
      [projectSlug(repo), '{{repo-slug}}'],
      [projectSlug(root), '{{root-slug}}'],
      [release(), '{{os-version}}'],
    ];
  }

  /** The text with every volatile value replaced. */
  text(s: string): string {
    let out = s;
    for (const [from, to] of this.literal) if (from !== '') out = out.split(from).join(to);
    out = out.replace(UUID, (u) => {
      let name = this.uuids.get(u);
      if (name === undefined) {
        name = `{{uuid-${this.uuids.size + 1}}}`;
        this.uuids.set(u, name);
      }
      return name;
    });
    out = out.replace(/\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z\b/g, '{{timestamp}}');
    return out
      .split(this.today)
      .join('{{date}}')
      .replace(/\b\d{8}T\d{6}Z\b/g, '{{amz-date}}')
      .replace(/Credential=([A-Z0-9]+)\/\d{8}\//g, 'Credential=$1/{{amz-day}}/')
      .replace(/\b[0-9a-f]{64}\b/g, '{{hex64}}')
      .replace(/\b(msg|req)_01fake[0-9a-f]{20}\b/g, '$1_01fake{{id}}')
      .replace(/\/tmp\/cc-socks\/\d+\.sock/g, '{{socket}}')
      .replace(/(\.claude\/plans\/[a-z0-9-]+?)-[a-z]+-[a-z]+\.md/g, '$1-{{adjective}}-{{noun}}.md')
      .replace(this.extra.pattern, (m) => this.extra.replace(m));
  }

  /** A JSON value with every string normalised (keys too) and timing fields set to 0. */
  value(v: unknown): unknown {
    if (typeof v === 'string') return this.text(v);
    if (Array.isArray(v)) return v.map((x) => this.value(x));
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        if (typeof x === 'number' && (TIMING_FIELDS.has(k) || TIMING_KEY.test(k))) out[this.text(k)] = 0;
        else if (k === 'data' && typeof x === 'string' && x.length > LONG_BASE64 && /^[A-Za-z0-9+/=]+$/.test(x)) {
          out[k] = `(base64, ${x.length} chars)`;
        } else out[this.text(k)] = this.value(x);
      }
      return out;
    }
    return v;
  }

  /** stdout of a run as JSONL: each JSON line normalised (other lines as text). */
  stream(stdout: string): string {
    return stdout
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => {
        try {
          return JSON.stringify(this.value(JSON.parse(l)));
        } catch {
          return this.text(l);
        }
      })
      .map((l) => `${l}\n`)
      .join('');
  }

  /**
   * The requests of a run, normalised, with repeated `system` / `tools` written as a reference.
   * Requests that are not of the main conversation and arrive back to back (parallel WebFetch
   * summaries, Bedrock and Vertex model probes) are sorted by URL and body, their order being the
   * scheduler's.
   */
  requests(reqs: readonly CapturedRequest[]): unknown[] {
    const seen: Array<{ system: string; tools: string }> = [];
    return sortConcurrent(reqs).map((r, i) => {
      const body = this.value(r.body) as Record<string, unknown>;
      const system = JSON.stringify(body['system'] ?? null);
      const tools = JSON.stringify(body['tools'] ?? null);
      const sameSystem = seen.findIndex((p) => p.system === system);
      const sameTools = seen.findIndex((p) => p.tools === tools);
      seen.push({ system, tools });
      if (sameSystem >= 0 && body['system'] !== undefined) body['system'] = `(same as request ${sameSystem})`;
      if (sameTools >= 0 && body['tools'] !== undefined) body['tools'] = `(same as request ${sameTools})`;
      return {
        index: i,
        route: r.route,
        method: r.method,
        url: this.text(r.url),
        headers: this.headers(r.headers),
        body,
      };
    });
  }

  /** Headers without the connection's own, values normalised, names sorted. */
  headers(h: Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(h).sort()) if (!DROPPED_HEADERS.has(k)) out[k] = this.value(h[k]);
    return out;
  }
}

/** Every session id that a run's stream names, in order of appearance. */
export function sessionIds(stdout: string): string[] {
  const ids: string[] = [];
  for (const line of stdout.split('\n')) {
    try {
      const id = (JSON.parse(line) as Record<string, unknown>)['session_id'];
      if (typeof id === 'string' && id !== '' && !ids.includes(id)) ids.push(id);
    } catch {
      // not a JSON line
    }
  }
  return ids;
}

/** Sorts each run of consecutive requests that are not of the main conversation by URL, then body. */
export function sortConcurrent(reqs: readonly CapturedRequest[]): CapturedRequest[] {
  const out: CapturedRequest[] = [];
  let run: CapturedRequest[] = [];
  const key = (r: CapturedRequest): string => `${r.url}\n${JSON.stringify(r.body)}`;
  const flush = (): void => {
    out.push(...run.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)));
    run = [];
  };
  for (const r of reqs) {
    if (r.route === 'main') {
      flush();
      out.push(r);
    } else run.push(r);
  }
  flush();
  return out;
}
