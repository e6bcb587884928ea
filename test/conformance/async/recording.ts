/**
 * A recorded run of an asynchronous-tools scenario, and its files:
 * `recordings/async/claude-<version>/<scenario>/{requests.json,stream.jsonl,meta.json}`.
 *
 * - `requests.json`: every request body the model server received, in arrival order, with the
 *   conversation it was routed to (`route`, `step`) and when it arrived (`atMs` after the start).
 *   A `tools` or `system` equal to an earlier request's is written `{"$sameAs": <seq>}`.
 * - `stream.jsonl`: every stdout line, one JSON message per line.
 * - `meta.json`: argv, exit code, stderr, timings, the task output files and the repository after.
 *
 * Volatile values (ids, timestamps, temp paths, durations) are normalised (normalise.ts).
 */
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ParsedRequest } from '../../../src/fake-model';
import { CLAUDE_CODE_VERSION, REPO_ROOT } from '../install';
import type { StreamMessage } from '../run';

/** One request the scripted model received. */
export interface RecordedRequest {
  /** 1-based arrival order. */
  seq: number;
  /** Arrival, ms after the CLI started (rounded to 100 ms). */
  atMs: number;
  /** The conversation it was routed to (`main`, a subagent's name, or `(fallback)`). */
  route: string;
  /** Step within that conversation. */
  step: number;
  body: ParsedRequest;
}

/** What is known of a run besides its requests and stream. */
export interface RecordingMeta {
  scenario: string;
  title: string;
  /** `claude` or `ours`. */
  side: string;
  /** Claude Code's version (the recording's) or the runner's. */
  version: string;
  /** Arguments after the program. */
  argv: string[];
  /** Environment variables the scenario set (beyond the harness's own). */
  env: Record<string, string>;
  exitCode: number | null;
  signal: string | null;
  /** Wall time of the run, ms (rounded to 100 ms). */
  durationMs: number;
  /** Arrival of each stream line, ms after the start (rounded to 100 ms). */
  streamTimesMs: number[];
  /** stdout lines that are not JSON objects. */
  strayLines: string[];
  stderr: string;
  /** Files the CLI left in its temp dir for tasks (`…/tasks/*.output`), relative path → content (first 4 KB). */
  taskOutputs: Record<string, string>;
  /** The repository afterwards (relative path → content), `.git` left out. */
  files: Record<string, string>;
}

/** A run, as recorded. */
export interface Recording {
  meta: RecordingMeta;
  requests: RecordedRequest[];
  stream: StreamMessage[];
}

/** Folder of the committed recordings of the pinned Claude Code. */
export const RECORDINGS_DIR = join(
  REPO_ROOT,
  'test',
  'conformance',
  'recordings',
  'async',
  `claude-${CLAUDE_CODE_VERSION}`,
);

type Json = Record<string, unknown>;

function dedupe(requests: readonly RecordedRequest[]): Json[] {
  const seen: Array<{ seq: number; tools: string; system: string }> = [];
  return requests.map((r) => {
    const body: Json = { ...r.body };
    const tools = JSON.stringify(r.body.tools ?? null);
    const system = JSON.stringify(r.body.system ?? null);
    const sameTools = seen.find((s) => s.tools === tools);
    const sameSystem = seen.find((s) => s.system === system);
    if (sameTools && r.body.tools !== undefined) body['tools'] = { $sameAs: sameTools.seq };
    if (sameSystem && r.body.system !== undefined) body['system'] = { $sameAs: sameSystem.seq };
    seen.push({ seq: r.seq, tools, system });
    return { ...r, body };
  });
}

function expand(requests: readonly Json[]): RecordedRequest[] {
  const bySeq = new Map<number, Json>();
  return requests.map((r) => {
    const body = { ...(r['body'] as Json) };
    for (const key of ['tools', 'system'] as const) {
      const ref = body[key] as { $sameAs?: number } | undefined;
      if (ref && typeof ref === 'object' && !Array.isArray(ref) && ref.$sameAs !== undefined) {
        body[key] = (bySeq.get(ref.$sameAs)?.[key] as unknown) ?? null;
      }
    }
    bySeq.set(Number(r['seq']), body);
    return { ...(r as unknown as RecordedRequest), body: body as unknown as ParsedRequest };
  });
}

/** Writes a recording into `dir` (replacing what was there). */
export function saveRecording(dir: string, rec: Recording): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'requests.json'), `${JSON.stringify(dedupe(rec.requests), null, 1)}\n`);
  writeFileSync(join(dir, 'stream.jsonl'), rec.stream.map((m) => `${JSON.stringify(m)}\n`).join(''));
  writeFileSync(join(dir, 'meta.json'), `${JSON.stringify(rec.meta, null, 1)}\n`);
}

/** Reads a recording written by {@link saveRecording} (references expanded). */
export function loadRecording(dir: string): Recording {
  const requests = JSON.parse(readFileSync(join(dir, 'requests.json'), 'utf8')) as Json[];
  const stream = readFileSync(join(dir, 'stream.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as StreamMessage);
  const meta = JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')) as RecordingMeta;
  return { meta, requests: expand(requests), stream };
}

/** Names of the scenarios recorded in {@link RECORDINGS_DIR}. */
export function recordedScenarios(): string[] {
  try {
    return readdirSync(RECORDINGS_DIR, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
  } catch {
    return [];
  }
}
