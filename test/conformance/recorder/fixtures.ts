/**
 * The recordings on disk: `test/conformance/recordings/claude-<version>/<scenario>/`.
 *
 * | file                     | what                                                                 |
 * | ------------------------ | -------------------------------------------------------------------- |
 * | `meta.json`              | the scenario (flags, prompt or stdin, env, files), exit code, stderr, the repository's changed files, non-model HTTP requests |
 * | `requests.json`          | every model request: route, URL, headers, body                       |
 * | `stream.jsonl`           | stdout, one message a line                                           |
 * | `resumed-requests.json`, `resumed-stream.jsonl` | the same for the `--resume` run          |
 * | `params.json`            | for a parameter matrix: per variant, the request parameters          |
 * | `sdk-events.json`        | for an Agent SDK run: the client's events (initialization result…)   |
 *
 * Everything is normalised (normalise.ts).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLAUDE_CODE_VERSION, REPO_ROOT } from '../install';
import type { Capture, CapturedRun } from './record';
import { Normaliser, sortConcurrent } from './normalise';
import type { FixtureFile, RecordingScenario } from './scenario';
import { RECORDING_FILES } from './scenario';

/** Where the recordings of the pinned Claude Code are. */
export const RECORDINGS_DIR = join(REPO_ROOT, 'test', 'conformance', 'recordings', `claude-${CLAUDE_CODE_VERSION}`);

/** The directory of one scenario's recording. */
export function fixtureDir(name: string): string {
  return join(RECORDINGS_DIR, name);
}

/** Files of a fixture, name → text (JSON pretty-printed, JSONL as is). */
export type FixtureFiles = Record<string, string>;

function json(v: unknown): string {
  return `${JSON.stringify(v, null, 2)}\n`;
}

function describeFiles(files: Readonly<Record<string, FixtureFile>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(files)) {
    out[k] = typeof v === 'string' ? v : 'base64' in v ? `(binary ${Buffer.from(v.base64, 'base64').length} bytes)` : v;
  }
  return out;
}

/**
 * Files added or changed by the run (path → normalised text), and removed ones (path → null).
 * `before` holds the scenario's templates (`{{repo}}`…), so each file afterwards is compared in
 * its normalised form.
 */
function changedFiles(
  before: Readonly<Record<string, FixtureFile>>,
  after: Record<string, string>,
  n: Normaliser,
): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  const text = (f: FixtureFile): string =>
    typeof f === 'string' ? f : 'base64' in f ? Buffer.from(f.base64, 'base64').toString('utf8') : f.text;
  for (const [k, v] of Object.entries(after)) {
    const was = before[k];
    const binaryUnchanged = was !== undefined && typeof was !== 'string' && 'base64' in was && v.startsWith('(binary');
    if (binaryUnchanged) continue;
    const now = n.text(v);
    if (was === undefined || now !== text(was)) out[k] = now;
  }
  for (const k of Object.keys(before)) if (!(k in after)) out[k] = null;
  return out;
}

/** The names a request's deferred-tools reminder lists, or null when it has none. */
function deferredNames(body: Record<string, unknown>): string[] | null {
  const marker = 'The following deferred tools are now available via ToolSearch.';
  const texts: string[] = [];
  for (const m of (body['messages'] ?? []) as Array<{ content: unknown }>) {
    if (typeof m.content === 'string') texts.push(m.content);
    else if (Array.isArray(m.content)) {
      for (const b of m.content as Array<Record<string, unknown>>)
        if (typeof b['text'] === 'string') texts.push(b['text']);
    }
  }
  const text = texts.find((t) => t.includes(marker));
  if (text === undefined) return null;
  const lines = text.slice(text.indexOf(marker)).split('\n').slice(1);
  const end = lines.findIndex((l) => l.trim() === '' || l.startsWith('<'));
  return lines.slice(0, end < 0 ? undefined : end);
}

/**
 * Request parameters of a matrix variant: model, `anthropic-beta`, the top-level fields but
 * system/tools/messages/metadata, the names of the tools offered (`(defer_loading)` marked) and
 * the tools the deferred-tools reminder names.
 */
function params(run: CapturedRun, n: Normaliser): unknown[] {
  return sortConcurrent(run.requests).map((r) => {
    const rest: Record<string, unknown> = { ...r.body };
    for (const k of ['system', 'tools', 'messages', 'metadata']) delete rest[k];
    const tools = r.body.tools;
    const toolNames = (tools ?? []).map(
      (t) => `${String(t.name ?? t['type'])}${t['defer_loading'] === true ? ' (defer_loading)' : ''}`,
    );
    return n.value({
      route: r.route,
      url: r.url,
      'anthropic-beta': r.headers['anthropic-beta'] ?? null,
      ...rest,
      tools: toolNames,
      deferredToolsReminder: deferredNames(r.body),
    });
  });
}

/** The result line of a run: subtype, is_error, result text and error fields. */
function resultOf(run: CapturedRun, n: Normaliser): unknown {
  for (const line of run.stdout.split('\n').reverse()) {
    try {
      const m = JSON.parse(line) as Record<string, unknown>;
      if (m['type'] === 'result') {
        const { subtype, is_error, result, api_error_status, errors } = m;
        return n.value({ subtype, is_error, result, api_error_status, errors });
      }
    } catch {
      // not a JSON line
    }
  }
  return null;
}

function runMeta(run: CapturedRun, n: Normaliser): Record<string, unknown> {
  const modelCalls = new Set(run.requests.map((r) => r.url));
  return {
    args: n.value(run.args),
    ...(run.sdkArgv ? { sdkCliArgv: n.value(run.sdkArgv) } : {}),
    exitCode: run.exitCode,
    stderr: n.text(run.stderr),
    otherHttp: n.value(
      run.http
        .filter((h) => !modelCalls.has(h.url) || !h.body.includes('"messages"'))
        .map((h) => ({ method: h.method, url: h.url, headers: n.headers(h.headers), body: h.body }))
        // Their order is the scheduler's (parallel probes and token fetches).
        .sort((a, b) => (a.url + a.body < b.url + b.body ? -1 : a.url + a.body > b.url + b.body ? 1 : 0)),
    ),
  };
}

/** Builds a fixture's files from a capture. */
export function fixtureFiles(s: RecordingScenario, capture: Capture): FixtureFiles {
  const n = new Normaliser(capture, s.normalise ?? []);
  const out: FixtureFiles = {};
  // The stream first, so that UUIDs are numbered in the order the stream shows them.
  out['stream.jsonl'] = n.stream(capture.first.stdout);
  out['requests.json'] = json(n.requests(capture.first.requests));
  if (capture.resumed) {
    out['resumed-stream.jsonl'] = n.stream(capture.resumed.stdout);
    out['resumed-requests.json'] = json(n.requests(capture.resumed.requests));
  }
  if (capture.variants) {
    const p: Record<string, unknown> = {};
    for (const v of s.variants ?? []) {
      const run = capture.variants[v.id];
      if (!run) continue;
      p[v.id] = {
        ...(v.args ? { args: n.value(v.args) } : {}),
        ...(v.env ? { env: v.env } : {}),
        ...(v.unsetEnv ? { unsetEnv: v.unsetEnv } : {}),
        ...(v.sdkOptions ? { sdkOptions: v.sdkOptions } : {}),
        ...(run.sdkArgv ? { cliArgv: n.value(run.sdkArgv) } : {}),
        exitCode: run.exitCode,
        ...(run.stderr.trim() !== '' ? { stderr: n.text(run.stderr) } : {}),
        result: resultOf(run, n),
        requests: params(run, n),
      };
    }
    out['params.json'] = json(p);
    delete out['stream.jsonl'];
    delete out['requests.json'];
  }
  if (capture.first.sdkEvents) {
    out['sdk-events.json'] = json(n.value(capture.first.sdkEvents.filter((e) => e['event'] !== 'message')));
  }
  const filesBefore = s.files ?? RECORDING_FILES;
  out['meta.json'] = json({
    scenario: s.name,
    title: s.title,
    issue: s.issue,
    pending: s.pending ?? null,
    claudeCode: CLAUDE_CODE_VERSION,
    prompt: s.stdin ? null : (s.prompt ?? 'Do the task.'),
    stdin: s.stdin ?? null,
    env: s.env ?? {},
    unsetEnv: s.unsetEnv ?? [],
    sdk: s.sdk ?? null,
    files: describeFiles(filesBefore),
    homeFiles: describeFiles(s.homeFiles ?? {}),
    ...runMeta(capture.first, n),
    ...(capture.resumed ? { resumed: runMeta(capture.resumed, n) } : {}),
    filesChanged: changedFiles(filesBefore, capture.files, n),
  });
  return out;
}

/** Writes a fixture (replacing the scenario's directory). */
export function writeFixture(name: string, files: FixtureFiles): void {
  const dir = fixtureDir(name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
}

/** Reads a committed fixture's files; undefined when it is missing. */
export function readFixture(name: string): FixtureFiles | undefined {
  const dir = fixtureDir(name);
  if (!existsSync(join(dir, 'meta.json'))) return undefined;
  const out: FixtureFiles = {};
  for (const file of [
    'meta.json',
    'requests.json',
    'stream.jsonl',
    'resumed-requests.json',
    'resumed-stream.jsonl',
    'params.json',
    'sdk-events.json',
  ]) {
    const p = join(dir, file);
    if (existsSync(p)) out[file] = readFileSync(p, 'utf8');
  }
  return out;
}
