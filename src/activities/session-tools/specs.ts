/**
 * The definitions of the session tools as the model gets them: names and input schemas exactly
 * as Claude Code 2.1.328 sends them (test/conformance/recordings/claude-2.1.328/skill-listed-and-loaded);
 * descriptions in our own words.
 */
import { DEFERRED_TOOL_PLACEHOLDER, SKILL_TOOL, TOOL_SEARCH_TOOL } from '../../common/session-tools';
import type { ModelToolSpec } from '../tools/registry';

const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

/** `Skill`: loads a skill or custom command of the session into the conversation. */
export const SKILL_TOOL_SPEC: ModelToolSpec = Object.freeze({
  name: SKILL_TOOL,
  description: [
    'Loads a skill: a set of instructions the user or the repository prepared for a kind of task (a',
    'release checklist, a review procedure, a repository-specific workflow). The skills you may load are',
    'listed by name with a one-line description in a message from the system. When the task is one a',
    "listed skill covers, call this tool first: the skill's instructions are added to the conversation",
    'and you follow them in place of your own approach.',
    '',
    '- `skill`: the exact name from the listing, without a leading slash (plugin skills are `plugin:skill`).',
    '- `args`: optional arguments for the skill.',
    '',
    'Only names from the listing are valid. If the conversation already holds a `<command-name>` block',
    'for the skill in this turn, it is loaded: follow it instead of calling this tool again.',
  ].join('\n'),
  input_schema: {
    $schema: DRAFT_2020_12,
    type: 'object' as const,
    properties: {
      skill: { description: 'The name of a skill from the available-skills list. Do not guess names.', type: 'string' },
      args: { description: 'Optional arguments for the skill', type: 'string' },
    },
    required: ['skill'],
    additionalProperties: false,
  },
});

/** `ToolSearch`: loads deferred tools' definitions. */
export const TOOL_SEARCH_TOOL_SPEC: ModelToolSpec = Object.freeze({
  name: TOOL_SEARCH_TOOL,
  description: [
    'Loads the full definitions of deferred tools so that you can call them.',
    '',
    'Deferred tools are named in a message from the system; until loaded, only their names are known.',
    'Give a query and the matching tools are loaded: from then on you call them like any other tool.',
    '',
    'Query forms:',
    '- "select:NotebookEdit,WebFetch": these tools, by exact name',
    '- "notebook cell": a keyword search, the best max_results matches',
    '- "+slack send": "slack" must appear in the name or description; the other words rank the matches',
  ].join('\n'),
  input_schema: {
    $schema: DRAFT_2020_12,
    type: 'object' as const,
    properties: {
      query: {
        description:
          'Query to find deferred tools. Use "select:<tool_name>" for direct selection, or keywords to search.',
        type: 'string',
      },
      max_results: { description: 'Maximum number of results to return (default: 5)', default: 5, type: 'number' },
    },
    required: ['query', 'max_results'],
    additionalProperties: false,
  },
});

/** Claude Code's placeholder that keeps deferred loading on from the first request (never called). */
export const DEFERRED_TOOL_PLACEHOLDER_SPEC = Object.freeze({
  name: DEFERRED_TOOL_PLACEHOLDER,
  description: 'Reserved placeholder that keeps deferred tool loading active; never call this tool.',
  input_schema: { type: 'object' as const, properties: {} },
  defer_loading: true,
});
