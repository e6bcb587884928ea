import { NO_MATCH_TEXT, runToolSearch, searchTools } from '../../../../src/activities/session-tools/tool-search';
import type { ModelToolSpec } from '../../../../src/activities/tools/registry';

const spec = (name: string, description: string): ModelToolSpec => ({
  name,
  description,
  input_schema: { type: 'object' },
});
const deferred = new Map(
  [
    spec('NotebookEdit', 'Replace, insert or delete a cell of a Jupyter notebook.'),
    spec('CronCreate', 'Schedule a prompt to run on a recurring schedule.'),
    spec('WebFetch', 'Fetch a web page and answer a prompt about it.'),
    spec('mcp__beta__beta_7', 'Tool number 7 of the beta family.'),
  ].map((t) => [t.name, t]),
);

describe('ToolSearch', () => {
  test('select: names in the order asked, unknown ones left out', () => {
    expect(searchTools('select:WebFetch,NoSuchTool,NotebookEdit', 5, deferred)).toEqual(['WebFetch', 'NotebookEdit']);
  });
  test('keywords rank by name parts, then description words; +word must appear; max_results cuts', () => {
    expect(searchTools('schedule recurring prompt', 1, deferred)).toEqual(['CronCreate']);
    expect(searchTools('+notebook cell', 5, deferred)).toEqual(['NotebookEdit']);
    expect(searchTools('beta', 5, deferred)).toEqual(['mcp__beta__beta_7']);
    expect(searchTools('zzzz qqqq', 5, deferred)).toEqual([]);
  });
  test("results: tool_reference blocks with Claude Code's tool_use_result, or the no-match text", () => {
    expect(runToolSearch({ query: 'select:mcp__beta__beta_7' }, deferred)).toEqual({
      content: [{ type: 'tool_reference', tool_name: 'mcp__beta__beta_7' }],
      isError: false,
      structured: { matches: ['mcp__beta__beta_7'], query: 'select:mcp__beta__beta_7', total_deferred_tools: 4 },
      outcome: 'ok',
    });
    expect(runToolSearch({ query: 'select:Nope', max_results: 3 }, deferred)).toMatchObject({
      content: NO_MATCH_TEXT,
      isError: false,
    });
    expect(runToolSearch({}, deferred)).toMatchObject({ isError: true, outcome: 'invalid' });
  });
});
