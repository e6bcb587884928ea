/**
 * Differential scenarios of the query loop's additions (issue 10): structured output with
 * `--json-schema`, a response cut by `max_tokens`, and Bash's working directory between calls.
 */
import type { ContentSpec, StepSpec } from '../../src/fake-model';
import type { ConformanceScenario } from './scenarios';

/** The schema of the structured-output scenarios. */
export const CONFORMANCE_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' }, count: { type: 'integer' } },
  required: ['name', 'count'],
  additionalProperties: false,
};

const tool = (name: string, input: Record<string, unknown>): ContentSpec => ({ tool_use: { name, input } });
const text = (t: string): ContentSpec => ({ text: t });
const so = (input: Record<string, unknown>): StepSpec => ({ content: [tool('StructuredOutput', input)] });
const schemaArgs = ['--json-schema', JSON.stringify(CONFORMANCE_SCHEMA)];

/** The loop scenarios, in the order they run (after the tool scenarios). */
export const LOOP_SCENARIOS: readonly ConformanceScenario[] = [
  {
    name: 'json-schema-valid',
    title: '--json-schema: a valid StructuredOutput call first',
    args: schemaArgs,
    steps: [so({ name: 'x', count: 3 }), { content: [text('Done.')] }],
  },
  {
    name: 'json-schema-retry',
    title: '--json-schema: two invalid calls, then a valid one',
    args: schemaArgs,
    steps: [
      { content: [text('Here it is.'), tool('StructuredOutput', { name: 5 })] },
      so({ name: 'x', count: 'three', extra: true }),
      so({ name: 'x', count: 3 }),
      { content: [text('Done.')] },
    ],
  },
  {
    name: 'json-schema-exhausted',
    title: '--json-schema: every call invalid until the retries run out',
    args: schemaArgs,
    steps: Array.from({ length: 8 }, () => so({ name: 5 })),
  },
  {
    name: 'json-schema-text-then-tool',
    title: '--json-schema: a text answer is nudged, then the tool is called',
    args: schemaArgs,
    steps: [{ content: [text('The answer is x=3.')] }, so({ name: 'x', count: 3 }), { content: [text('Done.')] }],
  },
  {
    name: 'json-schema-text-only',
    title: '--json-schema: the model answers with text and never calls the tool',
    args: schemaArgs,
    steps: Array.from({ length: 8 }, (_, i) => ({ content: [text(`Still text ${i}.`)] })),
  },
  {
    name: 'max-tokens-cut',
    title: 'A response cut by max_tokens is resumed',
    steps: [
      { content: [text('Part one of a long')], stop_reason: 'max_tokens' },
      { content: [text('answer, finished.')] },
    ],
  },
  {
    name: 'max-tokens-cut-tool',
    title: 'A response cut by max_tokens inside a tool call',
    steps: [
      {
        content: [text('Running'), { raw_tool_use: { name: 'Bash', partial_json: '{"command": "echo hi' } }],
        stop_reason: 'max_tokens',
      },
      { content: [text('Done.')] },
    ],
  },
  {
    name: 'refusal-continues',
    title: 'stop_reason refusal: the safety-classifier note goes to the model, which goes on once',
    steps: [
      { content: [text('Let me read it.'), tool('Read', { file_path: '{{cwd}}/a.txt' })] },
      { content: [text('I cannot help with that.')], stop_reason: 'refusal' },
      { content: [text('Here is a safe answer.')] },
    ],
  },
  {
    name: 'refusal-twice',
    title: 'stop_reason refusal twice in a row: the turn ends with an error (exit 1)',
    steps: [
      { content: [text('No.')], stop_reason: 'refusal' },
      { content: [text('Still no.')], stop_reason: 'refusal' },
      { content: [text('Never reached.')] },
    ],
  },
  {
    name: 'bash-cd',
    title: 'Bash: cd persists across calls; leaving the working directory resets the shell',
    files: { 'a.txt': 'one\n', 'sub/b.txt': 'two\n' },
    steps: [
      { content: [tool('Bash', { command: 'cd sub && pwd' })] },
      { content: [tool('Bash', { command: 'pwd; cat b.txt' })] },
      { content: [tool('Bash', { command: 'cd .. && cd / && pwd' })] },
      { content: [tool('Bash', { command: 'pwd; ls sub' })] },
      { content: [tool('Bash', { command: 'cd /nonexistent' })] },
      { content: [tool('Bash', { command: 'pwd' })] },
      { content: [text('Done.')] },
    ],
  },
];
