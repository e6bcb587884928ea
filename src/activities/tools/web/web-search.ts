/**
 * The `WebSearch` tool, as Claude Code 2.1.328 has it (recorded: the `web-search` scenario,
 * docs/reference/claude-code-commands-skills-model.md "WebSearch"): a client tool that asks the
 * session's model once more, with the API's `web_search_20250305` server tool, to search, and
 * gives the conversation the links and the summary it got back. The search call's tokens and
 * searches are billed to the turn (`modelSpend`).
 */
import { z } from 'zod';
import type { ToolContext, ToolDefinition, ToolOutput } from '../types';
import { toolUseError } from '../format';
import { ToolModelCallError } from './model-calls';
import type { AssembledMessage } from '../../model/stream';

/** Searches the server tool may run per WebSearch call (Claude Code's `max_uses`). */
export const WEB_SEARCH_MAX_USES = 8;

/** The system prompt of the search call (Claude Code's, word for word). */
export const WEB_SEARCH_SYSTEM_PROMPT =
  'You run a web search for another Claude model, which is waiting on the result and can search again. Search once, then reply with a brief summary of the results.';

/** Input of WebSearch (Claude Code's schema). */
export const WebSearchInputSchema = z.strictObject({
  query: z.string().min(2).describe('The search query to use'),
  allowed_domains: z.array(z.string()).optional().describe('Only include search results from these domains'),
  blocked_domains: z.array(z.string()).optional().describe('Never include search results from these domains'),
});
export type WebSearchInput = z.infer<typeof WebSearchInputSchema>;

/** One result's link. */
export interface SearchLink {
  title: string;
  url: string;
}

/** A result of the search: the links of one server search, or text of the model's answer. */
export type SearchResult = { tool_use_id: string; content: SearchLink[] } | string;

/** `tool_use_result` of WebSearch (Claude Code's shape). */
export interface WebSearchOutput {
  query: string;
  results: SearchResult[];
  durationSeconds: number;
  searchCount: number;
}

/**
 * The results in a search response: per `web_search_tool_result`, its links (an error result
 * gives its error code as text); the text blocks between them, joined.
 */
export function searchResults(message: Pick<AssembledMessage, 'content'>): SearchResult[] {
  const out: SearchResult[] = [];
  let text = '';
  const flush = (): void => {
    if (text.trim() !== '') out.push(text.trim());
    text = '';
  };
  for (const b of message.content) {
    if (b['type'] === 'text') text += String(b['text'] ?? '');
    else if (b['type'] === 'web_search_tool_result') {
      flush();
      const content = b['content'];
      if (Array.isArray(content)) {
        out.push({
          tool_use_id: String(b['tool_use_id'] ?? ''),
          content: content
            .filter((r) => (r as { type?: unknown }).type === 'web_search_result')
            .map((r) => ({ title: String((r as SearchLink).title ?? ''), url: String((r as SearchLink).url ?? '') })),
        });
      } else {
        const code = (content as { error_code?: unknown } | undefined)?.error_code;
        out.push(`Web search error: ${typeof code === 'string' ? code : 'unknown'}`);
      }
    }
  }
  flush();
  return out;
}

/** The tool_result text (Claude Code's format). */
export function formatSearchResults(query: string, results: readonly SearchResult[]): string {
  let text = `Web search results for query: "${query}"\n\n`;
  for (const r of results) {
    if (typeof r === 'string') text += `${r}\n\n`;
    else if (r.content.length > 0) text += `Links: ${JSON.stringify(r.content)}\n\n`;
    else text += 'No links found.\n\n';
  }
  return `${text}\nREMINDER: You MUST include the sources above in your response to the user using markdown hyperlinks.`;
}

async function runWebSearch(input: WebSearchInput, ctx: ToolContext): Promise<ToolOutput> {
  if (!ctx.modelCalls || !ctx.callingModel) {
    return { content: toolUseError('Error: WebSearch cannot call the model on this worker.'), isError: true };
  }
  if (input.allowed_domains?.length && input.blocked_domains?.length) {
    const message = 'Error: Cannot specify both allowed_domains and blocked_domains in the same request';
    return { content: toolUseError(message), isError: true, structured: message };
  }
  const started = Date.now();
  try {
    const { message, spend } = await ctx.modelCalls.call(
      {
        model: ctx.callingModel,
        system: WEB_SEARCH_SYSTEM_PROMPT,
        messages: [
          { role: 'user', content: [{ type: 'text', text: `Perform a web search for the query: ${input.query}` }] },
        ],
        tools: [
          {
            name: 'web_search',
            type: 'web_search_20250305',
            ...(input.allowed_domains?.length ? { allowed_domains: input.allowed_domains } : {}),
            ...(input.blocked_domains?.length ? { blocked_domains: input.blocked_domains } : {}),
            max_uses: WEB_SEARCH_MAX_USES,
          },
        ],
        tool_choice: { type: 'auto' },
        ...(ctx.sessionId !== undefined ? { sessionId: ctx.sessionId } : {}),
      },
      { signal: ctx.signal, onEvent: () => ctx.heartbeat() },
    );
    const results = searchResults(message);
    const structured: WebSearchOutput = {
      query: input.query,
      results,
      durationSeconds: Math.round((Date.now() - started) / 100) / 10,
      searchCount: message.content.filter((b) => b['type'] === 'server_tool_use').length,
    };
    return { content: formatSearchResults(input.query, results), isError: false, structured, modelSpend: spend };
  } catch (err) {
    if (!(err instanceof ToolModelCallError)) throw err;
    return { content: toolUseError(`Error: ${err.message}`), isError: true, structured: `Error: ${err.message}` };
  }
}

export const WebSearchTool: ToolDefinition<WebSearchInput> = {
  name: 'WebSearch',
  description:
    'Searches the web and returns result blocks with titles and URLs (US results).\n\n' +
    '- The current month is given in the conversation below; use it when searching for recent information.\n' +
    '- `allowed_domains` or `blocked_domains` filter the results (not both).\n' +
    '- After answering from the results, end with a "Sources:" list of the URLs you used, as markdown links.',
  inputSchema: WebSearchInputSchema,
  readOnly: true,
  idempotent: true,
  run: runWebSearch,
};
