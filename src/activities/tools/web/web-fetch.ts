/**
 * The `WebFetch` tool, as Claude Code 2.1.328 has it (recorded: the `web-fetch*` scenarios,
 * docs/reference/claude-code-commands-skills-model.md "WebFetch"): the worker fetches the page
 * (page.ts), and the session's model answers the call's `prompt` from it in a second call with no
 * tools; that answer is the tool_result. An HTTP error status is told as text (not an error), a
 * redirect to another host is handed back. The summary call's tokens are billed to the turn.
 *
 * Unlike Claude Code, no domain check is asked of `api.anthropic.com` first (its "preflight"):
 * offline, behind a proxy and with Bedrock or Vertex it fails for every domain, which makes the
 * tool useless there; the domain permission rules (`WebFetch(domain:…)`) decide instead
 * (docs/compatibility.md).
 */
import { z } from 'zod';
import type { ToolContext, ToolDefinition, ToolOutput } from '../types';
import { toolUseError } from '../format';
import { ToolModelCallError } from './model-calls';
import { UnfetchableUrlError, fetchPage, fetchableUrl } from './page';

/** Characters of a page's text given to the summary call at once; `offset` reads on. */
export const WEB_FETCH_MAX_CHARS = 100_000;

/** Input of WebFetch (Claude Code's schema). */
export const WebFetchInputSchema = z.strictObject({
  url: z.url().describe('The URL to fetch content from'),
  prompt: z.string().describe('The prompt to run on the fetched content'),
  offset: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe(
      'Character position in the page text to start reading from. Use it to read on through a page too long for one call, with the value the previous result gave.',
    ),
});
export type WebFetchInput = z.infer<typeof WebFetchInputSchema>;

/** `tool_use_result` of WebFetch (Claude Code's shape). */
export interface WebFetchOutput {
  bytes: number;
  code: number;
  codeText: string;
  result: string;
  durationMs: number;
  url: string;
}

/** The summary call's prompt (Claude Code's, word for word). */
export function summaryPrompt(content: string, prompt: string): string {
  return (
    `\nWeb page content:\n---\n${content}\n---\n\n${prompt}\n\n` +
    'Provide a concise response based only on the content above. In your response:\n' +
    ' - Enforce a strict 125-character maximum for quotes from any source document. Open Source Software is ok as long as we respect the license.\n' +
    ' - Use quotation marks for exact language from articles; any language outside of the quotation should never be word-for-word the same.\n' +
    ' - You are not a lawyer and never comment on the legality of your own prompts and responses.\n' +
    ' - Never produce or reproduce exact song lyrics.\n'
  );
}

/** The text of an HTTP error status (Claude Code's words). */
export function statusText(code: number, codeText: string): string {
  return (
    `The server returned HTTP ${code} ${codeText}.\n\n` +
    'The response body was not retrieved. If this URL requires authentication, use an authenticated tool ' +
    '(e.g. `gh` for GitHub, or an MCP-provided fetch tool) instead of WebFetch.'
  );
}

/** The text of a redirect to another host, for the model to follow. */
export function redirectText(from: string, to: string, code: number, codeText: string, prompt: string): string {
  return (
    `The URL redirects to another host (HTTP ${code} ${codeText}).\n\nOriginal URL: ${from}\nRedirect URL: ${to}\n\n` +
    `To read it, call WebFetch again with:\n- url: ${JSON.stringify(to)}\n- prompt: ${JSON.stringify(prompt)}`
  );
}

function failed(message: string): ToolOutput {
  return { content: toolUseError(`Error: ${message}`), isError: true, structured: `Error: ${message}` };
}

async function runWebFetch(input: WebFetchInput, ctx: ToolContext): Promise<ToolOutput> {
  const started = Date.now();
  let url: URL;
  try {
    url = fetchableUrl(input.url);
  } catch (err) {
    // Claude Code's wording: the bare message (`Unsupported protocol ftp:`), as an error.
    if (err instanceof UnfetchableUrlError)
      return { content: err.message, isError: true, structured: `Error: ${err.message}` };
    throw err;
  }
  if (!ctx.modelCalls || !ctx.callingModel) return failed('WebFetch cannot call the model on this worker.');
  let page;
  try {
    page = await fetchPage(url, { signal: ctx.signal });
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    const cause = (err as { cause?: { message?: unknown } }).cause;
    const message =
      typeof cause?.message === 'string' ? cause.message : err instanceof Error ? err.message : String(err);
    return { content: message, isError: true, structured: `Error: ${message}` };
  }
  ctx.heartbeat();
  const output = (result: string, code: number, codeText: string, bytes: number): WebFetchOutput => ({
    bytes,
    code,
    codeText,
    result,
    durationMs: Date.now() - started,
    url: input.url,
  });
  if (page.kind === 'status') {
    const text = statusText(page.code, page.codeText);
    return { content: text, isError: false, structured: output(text, page.code, page.codeText, 0) };
  }
  if (page.kind === 'redirect') {
    const text = redirectText(page.url, page.location, page.code, page.codeText, input.prompt);
    return { content: text, isError: false, structured: output(text, page.code, page.codeText, 0) };
  }
  const offset = input.offset ?? 0;
  const slice = page.text.slice(offset, offset + WEB_FETCH_MAX_CHARS);
  const end = offset + slice.length;
  try {
    const { message, spend } = await ctx.modelCalls.call(
      {
        model: ctx.callingModel,
        messages: [{ role: 'user', content: [{ type: 'text', text: summaryPrompt(slice, input.prompt) }] }],
        ...(ctx.sessionId !== undefined ? { sessionId: ctx.sessionId } : {}),
      },
      { signal: ctx.signal, onEvent: () => ctx.heartbeat() },
    );
    const answer = message.content
      .filter((b) => b['type'] === 'text')
      .map((b) => String(b['text'] ?? ''))
      .join('');
    const more =
      end < page.text.length
        ? `\n\n[The page has ${page.text.length} characters; this answer read ${offset}–${end}. Call WebFetch again with offset: ${end} to read on.]`
        : '';
    const text = `${answer}${more}`;
    return {
      content: text,
      isError: false,
      structured: output(text, page.code, page.codeText, page.bytes),
      modelSpend: spend,
    };
  } catch (err) {
    if (!(err instanceof ToolModelCallError)) throw err;
    return failed(err.message);
  }
}

export const WebFetchTool: ToolDefinition<WebFetchInput> = {
  name: 'WebFetch',
  description:
    'Fetches a URL, converts the page to markdown, and answers `prompt` about it with a second model call.\n\n' +
    '- Pages that need a login fail: use an authenticated MCP tool or `gh` for those.\n' +
    '- Host names without a dot (localhost) fail; for a local server, use curl through Bash.\n' +
    '- http:// is upgraded to https://. A redirect to another host is returned to you, not followed: call again with the URL it gives.\n' +
    '- A long page is read in parts: the answer says the `offset` to read on from.\n' +
    '- Pages are cached for 15 minutes per URL.',
  inputSchema: WebFetchInputSchema,
  readOnly: true,
  idempotent: true,
  run: runWebFetch,
};
