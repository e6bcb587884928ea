/**
 * Reading a recording back: as the `SideRun` that compare.ts compares (so a run of the runner can
 * be checked against a committed recording without running Claude Code), and as a stable view
 * for `CONFORMANCE_RECORD=check` (token counts and costs, which follow the machine's kernel
 * version string, left out).
 */
import type { ParsedRequest } from '../../../src/fake-model';
import { canonicalOrder } from '../compare';
import type { ResumedRun, Side, SideRun, StreamMessage } from '../run';
import type { FixtureFiles } from './fixtures';

function parseStream(text: string | undefined): { messages: StreamMessage[]; strayLines: string[] } {
  const messages: StreamMessage[] = [];
  const strayLines: string[] = [];
  for (const line of (text ?? '').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const v: unknown = JSON.parse(line);
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) messages.push(v as StreamMessage);
      else strayLines.push(line);
    } catch {
      strayLines.push(line);
    }
  }
  return { messages, strayLines };
}

/** The request bodies of a requests.json, `(same as request N)` references resolved. */
export function requestBodies(text: string | undefined): ParsedRequest[] {
  const entries = JSON.parse(text ?? '[]') as Array<{ body: Record<string, unknown> }>;
  const bodies: Array<Record<string, unknown>> = [];
  for (const e of entries) {
    const body = { ...e.body };
    for (const key of ['system', 'tools']) {
      const ref = /^\(same as request (\d+)\)$/.exec(String(body[key]));
      if (typeof body[key] === 'string' && ref) body[key] = bodies[Number(ref[1])]?.[key];
    }
    bodies.push(body);
  }
  return bodies as ParsedRequest[];
}

/** The repository after the run: the scenario's files with the recorded changes applied. */
function filesAfter(meta: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries((meta['files'] ?? {}) as Record<string, unknown>)) {
    out[k] = typeof v === 'string' ? v : JSON.stringify(v);
  }
  for (const [k, v] of Object.entries((meta['filesChanged'] ?? {}) as Record<string, string | null>)) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
}

/**
 * This checkout's test fixtures (`…/test/fixtures/`) as `{{fixtures}}/` in repository files: a
 * scenario's files may name a fixture MCP server by absolute path, which differs between the
 * checkout that recorded it and the one that compares.
 */
export function fixturePathsNormalised(files: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(files).map(([k, v]) => [k, v.replace(/\/[^"\s]*?\/test\/fixtures\//g, '{{fixtures}}/')]),
  );
}

/** A recording as compare.ts's `SideRun` (paths are the normalised placeholders). */
export function sideRunOf(side: Side, f: FixtureFiles): SideRun {
  const meta = JSON.parse(f['meta.json'] ?? '{}') as Record<string, unknown>;
  const first = parseStream(f['stream.jsonl']);
  const resumedMeta = meta['resumed'] as Record<string, unknown> | undefined;
  let resumed: ResumedRun | undefined;
  if (resumedMeta) {
    const r = parseStream(f['resumed-stream.jsonl']);
    const sid = (ms: StreamMessage[]): string => String(ms.find((m) => m['type'] === 'result')?.['session_id'] ?? '');
    resumed = {
      exitCode: resumedMeta['exitCode'] as number | null,
      stderr: String(resumedMeta['stderr'] ?? ''),
      ...r,
      requests: requestBodies(f['resumed-requests.json']),
      firstSessionId: sid(first.messages),
      sessionId: sid(r.messages),
      // Not recorded for Claude Code; compared as equal.
      firstTranscriptUnchanged: true,
    };
  }
  return {
    side,
    exitCode: meta['exitCode'] as number | null,
    stdout: f['stream.jsonl'] ?? '',
    stderr: String(meta['stderr'] ?? ''),
    ...first,
    requests: requestBodies(f['requests.json']),
    files: fixturePathsNormalised(filesAfter(meta)),
    durationMs: 0,
    ...(resumed ? { resumed } : {}),
    paths: { repo: '{{repo}}', home: '{{home}}' },
  };
}

/** Keys whose numbers follow prompt sizes (token counts, costs): left out of the stable view. */
const SIZE_KEY = /tokens|Tokens|cost|Cost|costUSD|_bytes$/;

function stable(v: unknown, key = ''): unknown {
  if (typeof v === 'number' && SIZE_KEY.test(key)) return '(number)';
  if (Array.isArray(v)) return v.map((x) => stable(x));
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, stable(x, k)]));
  }
  return v;
}

/** A fixture with token counts and costs left out: what must not change between two recordings. */
export function stableView(f: FixtureFiles): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [file, text] of Object.entries(f)) {
    // Streams in canonical order: tool results arrive in completion order.
    out[file] = file.endsWith('.jsonl')
      ? canonicalOrder(
          text
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as StreamMessage),
        ).map((m) => stable(m))
      : stable(JSON.parse(text));
  }
  return out;
}
