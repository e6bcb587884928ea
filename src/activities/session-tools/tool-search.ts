/**
 * The ToolSearch tool: loads deferred tools by exact name (`select:A,B`, in the order asked) or
 * by keywords (each word scored against the tool's name parts and description; `+word` must
 * appear), as Claude Code 2.1.328 answers: a tool_result of `tool_reference` blocks (the API puts
 * each tool's definition where it stands), or `No matching deferred tools found`.
 */
import type { ModelToolSpec } from '../tools/registry';
import type { ToolOutput } from '../tools/types';

/** The tool_result when nothing matched. */
export const NO_MATCH_TEXT = 'No matching deferred tools found';

/** Words of a tool name: `mcp__beta__beta_7` → mcp, beta, beta, 7; `NotebookEdit` → notebook, edit. */
function nameParts(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((p) => p !== '')
    .map((p) => p.toLowerCase());
}

function score(tool: ModelToolSpec, terms: readonly string[]): number {
  const parts = nameParts(tool.name);
  const name = tool.name.toLowerCase();
  const words = new Set(tool.description.toLowerCase().split(/[^a-z0-9]+/));
  let s = 0;
  for (const t of terms) {
    if (parts.includes(t)) s += 10;
    else if (name.includes(t)) s += 5;
    if (words.has(t)) s += 2;
    else if (tool.description.toLowerCase().includes(t)) s += 1;
  }
  return s;
}

function mentions(tool: ModelToolSpec, term: string): boolean {
  return tool.name.toLowerCase().includes(term) || tool.description.toLowerCase().includes(term);
}

/** The deferred tools a query names, best first. */
export function searchTools(query: string, maxResults: number, deferred: ReadonlyMap<string, ModelToolSpec>): string[] {
  const q = query.trim();
  if (q.toLowerCase().startsWith('select:')) {
    const names = q
      .slice('select:'.length)
      .split(',')
      .map((n) => n.trim())
      .filter((n) => n !== '');
    return names.filter((n, i) => deferred.has(n) && names.indexOf(n) === i);
  }
  const raw = q
    .toLowerCase()
    .split(/\s+/)
    .filter((t) => t !== '');
  const required = raw
    .filter((t) => t.startsWith('+'))
    .map((t) => t.slice(1))
    .filter((t) => t !== '');
  const terms = raw.map((t) => t.replace(/^\+/, '')).filter((t) => t !== '');
  return [...deferred.values()]
    .filter((t) => required.every((r) => mentions(t, r)))
    .map((t) => ({ name: t.name, s: score(t, terms) }))
    .filter((x) => x.s > 0)
    .sort((a, b) => b.s - a.s || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .slice(0, Math.max(1, Math.floor(maxResults)))
    .map((x) => x.name);
}

/** Runs a ToolSearch call against the request's deferred tools. */
export function runToolSearch(
  input: unknown,
  deferred: ReadonlyMap<string, ModelToolSpec>,
): ToolOutput & { outcome: 'ok' | 'invalid' } {
  const rec = (input ?? {}) as Record<string, unknown>;
  const query = rec['query'];
  if (typeof query !== 'string') {
    return {
      content:
        '<tool_use_error>InputValidationError: ToolSearch failed due to the following issue:\nThe required parameter `query` is missing</tool_use_error>',
      isError: true,
      structured: 'InputValidationError: query is required',
      outcome: 'invalid',
    };
  }
  const max = typeof rec['max_results'] === 'number' && rec['max_results'] > 0 ? rec['max_results'] : 5;
  const matches = searchTools(query, max, deferred);
  const structured = { matches, query, total_deferred_tools: deferred.size };
  if (matches.length === 0) return { content: NO_MATCH_TEXT, isError: false, structured, outcome: 'ok' };
  return {
    content: matches.map((tool_name) => ({ type: 'tool_reference', tool_name })),
    isError: false,
    structured,
    outcome: 'ok',
  };
}
