import { createHash } from 'node:crypto';
import { z } from 'zod';
import { formatZodIssues } from './scenario';

/**
 * Parsing and inspection of a `POST /v1/messages` request body: the lenient view the fake model
 * needs (unknown fields are kept), plus helpers for keys, templates and expectations.
 */

const BlockSchema = z.looseObject({ type: z.string() });

// `system` messages (mid-conversation system turns) are sent by Claude Code 2.1.3xx.
const MessageSchema = z.looseObject({
  role: z.enum(['user', 'assistant', 'system']),
  content: z.union([z.string(), z.array(BlockSchema)]),
});

const RequestSchema = z.looseObject({
  model: z.string().min(1),
  max_tokens: z.number().int().positive(),
  messages: z.array(MessageSchema).min(1),
  system: z.union([z.string(), z.array(BlockSchema)]).optional(),
  tools: z.array(z.looseObject({ name: z.string().optional() })).optional(),
  stream: z.boolean().optional(),
  metadata: z.looseObject({ user_id: z.string().nullable().optional() }).optional(),
});

/** A content block of a request (Messages API shape, unknown fields kept). */
export type RequestBlock = { type: string } & Record<string, unknown>;

/** A message of a request. */
export interface RequestMessage {
  role: 'user' | 'assistant' | 'system';
  content: string | RequestBlock[];
  [key: string]: unknown;
}

/** The validated body of a `POST /v1/messages` request, as handed to a `responder`. */
export interface ParsedRequest {
  model: string;
  /** `max_tokens` of the request, in tokens. */
  max_tokens: number;
  messages: RequestMessage[];
  system?: string | RequestBlock[];
  tools?: Array<{ name?: string } & Record<string, unknown>>;
  stream?: boolean;
  metadata?: { user_id?: string | null | undefined } & Record<string, unknown>;
  [key: string]: unknown;
}

/** Result of {@link parseRequestBody}: the request, or an API-style validation message. */
export type ParseRequestResult = { ok: true; request: ParsedRequest } | { ok: false; message: string };

/** Validates a JSON request body like the real API would (field names in the message). */
export function parseRequestBody(body: unknown): ParseRequestResult {
  const r = RequestSchema.safeParse(body);
  if (!r.success) return { ok: false, message: formatZodIssues(r.error.issues) };
  return { ok: true, request: r.data as ParsedRequest };
}

/** Text of a message content: the string, or its `text` blocks joined by newlines. */
export function contentText(content: string | readonly RequestBlock[] | undefined): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  return content
    .filter((b) => b.type === 'text' && typeof b['text'] === 'string')
    .map((b) => b['text'] as string)
    .join('\n');
}

/** Text of the first `user` message (what scripts match on). */
export function firstUserText(req: ParsedRequest): string {
  const first = req.messages.find((m) => m.role === 'user');
  return contentText(first?.content);
}

/** The system prompt as text (a string, or text blocks joined by newlines). */
export function systemText(req: ParsedRequest): string {
  return contentText(req.system);
}

/**
 * The path on a `Working directory: <path>` line (or Claude Code's `Primary working directory:`)
 * of the system prompt, else of a `system` message, if any.
 */
export function workingDirectory(req: ParsedRequest): string | undefined {
  const re = /(?:^|[^\w])(?:Primary working|Working) directory:[ \t]*(\S[^\r\n]*)/;
  const texts = [
    systemText(req),
    ...req.messages.filter((m) => m.role === 'system').map((m) => contentText(m.content)),
  ];
  for (const text of texts) {
    const m = re.exec(text);
    if (m?.[1]) return m[1].trim();
  }
  return undefined;
}

/** Number of assistant messages in the request: the step index it asks for. */
export function assistantCount(req: ParsedRequest): number {
  return req.messages.filter((m) => m.role === 'assistant').length;
}

/** Short stable hash (hex) of a string. */
export function shortHash(text: string, length = 16): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

/**
 * The conversation key: `metadata.user_id` when present, else `h:` + a hash of the first user
 * message's text (so two conversations with the same first prompt and no user_id share a key).
 */
export function conversationKey(req: ParsedRequest): string {
  const userId = req.metadata?.user_id;
  if (typeof userId === 'string' && userId !== '') return userId;
  return `h:${shortHash(firstUserText(req))}`;
}

function blocksOf(m: RequestMessage): RequestBlock[] {
  return typeof m.content === 'string' ? [] : m.content;
}

/** All `tool_result` blocks of the request, in order. */
export function toolResultBlocks(req: ParsedRequest): RequestBlock[] {
  return req.messages.flatMap((m) => blocksOf(m).filter((b) => b.type === 'tool_result'));
}

/** `tool_use_id`s of all `tool_result` blocks of the request, in order. */
export function toolResultIds(req: ParsedRequest): string[] {
  return toolResultBlocks(req).map((b) => String(b['tool_use_id'] ?? ''));
}

/** Text of a `tool_result` block's content (a string, or its text blocks joined). */
export function toolResultText(block: RequestBlock): string {
  const c = block['content'];
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return contentText(c as RequestBlock[]);
  return '';
}

/**
 * Checks the real API's pairing rule: each assistant `tool_use` has a `tool_result` in the next
 * message, and each `tool_result` answers a `tool_use` of the previous message. `system`
 * messages are skipped when looking for the neighbouring message.
 *
 * @returns an API-style error message, or `undefined` when the request is well formed
 */
export function checkToolPairing(req: ParsedRequest): string | undefined {
  const turns = req.messages.map((m, index) => ({ m, index })).filter(({ m }) => m.role !== 'system');
  for (let t = 0; t < turns.length; t++) {
    const turn = turns[t];
    if (turn === undefined) continue;
    const { m, index: i } = turn;
    if (m.role === 'user') {
      const prev = turns[t - 1]?.m;
      const useIds = new Set(
        prev?.role === 'assistant'
          ? blocksOf(prev)
              .filter((b) => b.type === 'tool_use')
              .map((b) => String(b['id']))
          : [],
      );
      const blocks = blocksOf(m);
      for (let j = 0; j < blocks.length; j++) {
        const b = blocks[j];
        if (b?.type === 'tool_result' && !useIds.has(String(b['tool_use_id']))) {
          return (
            `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ` +
            `${String(b['tool_use_id'])}. Each \`tool_result\` block must have a corresponding ` +
            '`tool_use` block in the previous message.'
          );
        }
      }
    } else {
      const next = turns[t + 1];
      if (next === undefined) continue;
      const resultIds = new Set(
        next.m.role === 'user'
          ? blocksOf(next.m)
              .filter((b) => b.type === 'tool_result')
              .map((b) => String(b['tool_use_id']))
          : [],
      );
      const missing = blocksOf(m)
        .filter((b) => b.type === 'tool_use' && !resultIds.has(String(b['id'])))
        .map((b) => String(b['id']));
      if (missing.length > 0) {
        return (
          `messages.${next.index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately ` +
          `after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding ` +
          '`tool_result` block in the next message.'
        );
      }
    }
  }
  return undefined;
}
