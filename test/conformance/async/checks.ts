/**
 * Readers over a (normalised) recording for scenario checks: what the model was sent (tool results,
 * notifications, tool lists, system prompts, per conversation) and what the program printed
 * (stream messages by type and subtype, result lines).
 */
import type { ParsedRequest, RequestBlock } from '../../../src/fake-model';
import { ownUserText } from '../../../src/fake-model';
import { systemText } from '../../../src/fake-model/request';
import { label } from '../compare';
import type { SideRun, StreamMessage } from '../run';
import type { RecordedRequest, Recording } from './recording';

/** The requests routed to conversation `route`, in order. */
export function requestsOf(rec: Recording, route: string): RecordedRequest[] {
  return rec.requests.filter((r) => r.route === route);
}

/** The request of conversation `route` at `step`. @throws Error when there is none */
export function requestAt(rec: Recording, route: string, step: number): ParsedRequest {
  const r = rec.requests.find((x) => x.route === route && x.step === step);
  if (!r) throw new Error(`no request of ${route} at step ${step} (have ${describeRequests(rec)})`);
  return r.body;
}

/** `route:step` of every request, for error messages. */
export function describeRequests(rec: Recording): string {
  return rec.requests.map((r) => `${r.route}:${r.step}`).join(', ');
}

/** Tool names of a request, in order. */
export function toolNames(req: ParsedRequest): string[] {
  return (req.tools ?? []).map((t) => String(t.name));
}

/** A tool of a request by name. */
export function toolOf(req: ParsedRequest, name: string): Record<string, unknown> | undefined {
  return req.tools?.find((t) => t.name === name);
}

/** The system prompt of a request as text. */
export function systemOf(req: ParsedRequest): string {
  return systemText(req);
}

function blockText(c: unknown): string {
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) {
    return (c as RequestBlock[])
      .map((b) => (b.type === 'text' ? String(b['text'] ?? '') : `[${b.type} block]`))
      .join('\n');
  }
  return '';
}

/** A tool_result block as the model got it. */
export interface SentResult {
  text: string;
  isError: boolean;
  /** The raw block. */
  block: RequestBlock;
}

/** The conversation that made a tool call, from the router's ids (`toolu_as_<route>_<step>_<block>`). */
export function routeOfToolUse(toolUseId: string): string | undefined {
  return /^toolu_as_(.+)_\d+_\d+$/.exec(toolUseId)?.[1];
}

/**
 * The tool_result for `toolUseId`, from the first request of the conversation that made the call
 * (a fork repeats its parent's calls with results of its own) that carries it.
 * @throws Error when no request carries it
 */
export function sentResult(rec: Recording, toolUseId: string): SentResult {
  const route = routeOfToolUse(toolUseId);
  for (const r of rec.requests) {
    if (route !== undefined && r.route !== route) continue;
    for (const m of r.body.messages) {
      if (typeof m.content === 'string') continue;
      for (const b of m.content) {
        if (b.type === 'tool_result' && b['tool_use_id'] === toolUseId) {
          return { text: blockText(b['content']), isError: b['is_error'] === true, block: b };
        }
      }
    }
  }
  throw new Error(`no request carries a tool_result for ${toolUseId} (requests: ${describeRequests(rec)})`);
}

/** The user text (not tool results) of every user message of a request after the first, joined. */
export function laterUserText(req: ParsedRequest): string[] {
  return req.messages
    .slice(1)
    .map(ownUserText)
    .filter((t) => t !== '');
}

/** Stream messages with this label (`type` or `type/subtype`). */
export function streamOf(rec: Recording | SideRun, lab: string): StreamMessage[] {
  const ms = 'stream' in rec ? rec.stream : rec.messages;
  return ms.filter((m) => label(m) === lab);
}

/** The `result` lines. */
export function resultsOf(rec: Recording): StreamMessage[] {
  return rec.stream.filter((m) => m['type'] === 'result');
}

/** Labels of the stream, in order (`assistant`, `user`, `system/task_started`, …). */
export function labels(rec: Recording): string[] {
  return rec.stream.map(label);
}

/** The tool_result blocks the stream printed (user messages), by tool_use id. */
export function printedResults(rec: Recording): Map<string, StreamMessage> {
  const out = new Map<string, StreamMessage>();
  for (const m of rec.stream) {
    if (m['type'] !== 'user') continue;
    const content = (m['message'] as { content?: unknown } | undefined)?.content;
    if (!Array.isArray(content)) continue;
    for (const b of content as RequestBlock[]) {
      if (b.type === 'tool_result') out.set(String(b['tool_use_id']), m);
    }
  }
  return out;
}

/**
 * Token counts inside texts (`subagent_tokens: 9584`, `<subagent_tokens>9584<`) as `<n>`: they follow
 * from prompt sizes, which vary by a token or two with the digits of durations.
 */
export function maskTokens(text: string): string {
  return text.replace(/(subagent_tokens>?:? ?)\d+/g, '$1<n>');
}

/**
 * Expects the model to have got exactly `text` for `toolUseId`: its string content, or its first
 * text block (Claude Code may append a reminder block), token counts masked.
 */
export function expectSent(rec: Recording, toolUseId: string, text: string, isError = false): void {
  const r = sentResult(rec, toolUseId);
  const c = r.block['content'];
  const first =
    typeof c === 'string' ? c : Array.isArray(c) ? String((c[0] as RequestBlock | undefined)?.['text']) : '';
  expect({ toolUseId, text: maskTokens(first), isError: r.isError }).toEqual({
    toolUseId,
    text: maskTokens(text),
    isError,
  });
}

/** The notification text blocks (user text starting with the notification head) of a request. */
export function notificationsOf(req: ParsedRequest, head: string): string[] {
  const out: string[] = [];
  for (const m of req.messages) {
    if (m.role !== 'user') continue;
    // Claude Code sends the newest as a text block, and earlier ones in the history as a string.
    const texts =
      typeof m.content === 'string'
        ? [m.content]
        : m.content.filter((b) => b.type === 'text').map((b) => String(b['text']));
    out.push(...texts.filter((t) => t.startsWith(head)));
  }
  return out;
}

/** The fields `keys` of a stream message (absent ones left out). */
export function pick(m: StreamMessage | undefined, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (m && k in m) out[k] = m[k];
  return out;
}

/** Top-level field names of a stream message, sorted. */
export function fieldsOf(m: StreamMessage | undefined): string[] {
  return Object.keys(m ?? {}).sort();
}

/**
 * How long the run went on after its first model request, ms: what a scenario bounds when it
 * checks that the program did not wait for a command (a start-up, such as ours starting its
 * local Temporal server on a loaded machine, is not part of it).
 */
export function msAfterFirstRequest(rec: Recording): number {
  const first = Math.min(...rec.requests.map((r) => r.atMs));
  return rec.meta.durationMs - (Number.isFinite(first) ? first : 0);
}
