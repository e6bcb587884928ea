/** The harness's own comparison logic, on hand-made runs (no CLI involved). */
import type { ParsedRequest } from '../../src/fake-model';
import {
  canonicalOrder,
  compareContext,
  compareRuns,
  compareToolSchemas,
  contextLayout,
  diffLists,
  label,
  shapeOf,
} from './compare';
import { knownDifferenceFor } from './known-differences';
import type { SideRun, StreamMessage } from './run';

const assistant = (id: string, block: Record<string, unknown>): StreamMessage => ({
  type: 'assistant',
  uuid: `a-${String(block['id'] ?? block['text'])}`,
  session_id: 's',
  message: { id, content: [block], stop_reason: null },
  parent_tool_use_id: null,
});
const toolResult = (id: string): StreamMessage => ({
  type: 'user',
  uuid: `u-${id}`,
  session_id: 's',
  message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'x' }] },
  parent_tool_use_id: null,
});
const request = (results: Array<[string, string, boolean?]>): ParsedRequest => ({
  model: 'm',
  max_tokens: 1,
  messages: [
    { role: 'user', content: 'go' },
    {
      role: 'user',
      content: results.map(([id, content, isError]) => ({
        type: 'tool_result',
        tool_use_id: id,
        content,
        ...(isError ? { is_error: true } : {}),
      })),
    },
  ],
});

function run(messages: StreamMessage[], over: Partial<SideRun> = {}): SideRun {
  return {
    side: 'claude',
    exitCode: 0,
    stdout: '',
    stderr: '',
    messages,
    strayLines: [],
    requests: [],
    files: { 'a.txt': 'a\n' },
    homeFiles: {},
    durationMs: 1,
    paths: { repo: '/r', home: '/h' },
    ...over,
  };
}

const init: StreamMessage = { type: 'system', subtype: 'init', uuid: 'i', session_id: 's', cwd: '/r', tools: [] };
const result: StreamMessage = { type: 'result', subtype: 'success', is_error: false, result: 'ok', duration_ms: 5 };

describe('conformance comparison', () => {
  test('canonicalOrder: tool results follow their response, in tool-call order', () => {
    const t1 = { type: 'tool_use', id: 't1' };
    const t2 = { type: 'tool_use', id: 't2' };
    const streamed = [init, assistant('m1', t1), toolResult('t2'), assistant('m1', t2), toolResult('t1'), result];
    const order = canonicalOrder(streamed).map((m) => String(m['uuid'] ?? m['type']));
    expect(order).toEqual(['i', 'a-t1', 'a-t2', 'u-t1', 'u-t2', 'result']);
  });

  test('shapeOf: ids, timestamps and durations are not compared; message fields are', () => {
    const shape = shapeOf({ ...assistant('m', { type: 'text', text: 'x' }), timestamp: 't', request_id: 'r' });
    expect([...shape.keys()].sort()).toEqual([
      'message',
      'message.content',
      'message.stop_reason',
      'parent_tool_use_id',
      'type',
    ]);
    expect(label(init)).toBe('system/init');
  });

  test('compareRuns: identical runs have no difference', () => {
    const ms = [init, assistant('m', { type: 'text', text: 'hi' }), result];
    expect(compareRuns({ claude: run(ms), ours: run(ms, { side: 'ours' }) })).toEqual([]);
  });

  test('compareRuns: sequence, field, result, tool result, repository and exit code differences are found', () => {
    const claude = run([init, assistant('m', { type: 'text', text: 'hi' }), result], {
      requests: [
        request([
          ['t1', 'same'],
          ['t2', 'File does not exist.', true],
        ]),
      ],
    });
    const ours = run(
      [
        { ...init, extra: 1 },
        { ...result, result: 'other' },
      ],
      {
        side: 'ours',
        exitCode: 1,
        requests: [
          request([
            ['t1', 'same'],
            ['t2', '<tool_use_error>File does not exist.</tool_use_error>', true],
          ]),
        ],
        files: { 'a.txt': 'b\n' },
      },
    );
    const kinds = compareRuns({ claude, ours }).map((d) => `${d.kind} ${d.where}`);
    expect(kinds).toEqual([
      'exit-code exit code',
      'sequence messages',
      'field system/init.extra',
      'result result.result',
      'tool-result t2.content',
      'repository a.txt',
    ]);
  });

  test('compareToolSchemas: property names and types, required and additionalProperties', () => {
    const tools = (props: Record<string, unknown>, required: string[]): ParsedRequest => ({
      model: 'm',
      max_tokens: 1,
      messages: [{ role: 'user', content: 'x' }],
      tools: [
        { name: 'Read', input_schema: { type: 'object', properties: props, required, additionalProperties: false } },
      ],
    });
    const a = tools({ file_path: { type: 'string' }, limit: { type: 'integer' } }, ['file_path']);
    const b = tools({ file_path: { type: 'string' }, limit: { type: 'number' }, extra: { type: 'boolean' } }, []);
    expect(compareToolSchemas(a, b).map((d) => d.where)).toEqual(['Read.extra', 'Read.limit', 'Read.required']);
  });

  test('diffLists: a minimal line diff', () => {
    expect(diffLists(['a', 'b', 'c'], ['a', 'c', 'd']).map((o) => `${o.op}${o.text}`)).toEqual([
      ' a',
      '-b',
      ' c',
      '+d',
    ]);
  });

  test('knownDifferenceFor: entries apply by kind, place and scenario', () => {
    const d = { kind: 'repository' as const, where: 'a.txt', claude: 'x', ours: 'y' };
    expect(knownDifferenceFor(d, 'edit-before-read')?.id).toBe('edit-write-require-read');
    expect(knownDifferenceFor(d, 'glob')).toBeUndefined();
  });

  test('contextLayout: memory files, git status, nested memory, environment and prompt, by kind and order', () => {
    const memory =
      '<system-reminder>\nCodebase and user instructions are shown below.\n\n' +
      "Contents of /h/.claude/CLAUDE.md (user's private global instructions for all projects):\n\nmine\n\n" +
      'Contents of /r/CLAUDE.md (project instructions, checked into the codebase):\n\nrules\n</system-reminder>';
    const req: ParsedRequest = {
      model: 'm',
      max_tokens: 1,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: memory },
            { type: 'text', text: '<system-reminder>\nAs you answer…\n# gitStatus\nbranch\n</system-reminder>' },
            { type: 'text', text: '<system-reminder>\nAttribution for git commits …\n</system-reminder>' },
            { type: 'text', text: 'do it' },
          ],
        },
        { role: 'system', content: [{ type: 'text', text: '# Environment\nYou have been invoked…' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'Read', input: {} }] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't', content: 'x' },
            { type: 'text', text: '<system-reminder>\nContents of /r/sub/CLAUDE.md:\n\nsub\n</system-reminder>' },
          ],
        },
      ],
    };
    expect(contextLayout(req, { repo: '/r', home: '/h' })).toEqual([
      "user: memory(<home>/.claude/CLAUDE.md [user's private global instructions for all projects], <repo>/CLAUDE.md [project instructions, checked into the codebase]), gitStatus, text",
      'system: environment',
      'assistant: tool_use',
      'user: tool_result, nested(<repo>/sub/CLAUDE.md)',
    ]);
    // A request without the nested memory, or with the memory after the prompt, is a difference.
    const without: ParsedRequest = { ...req, messages: req.messages.slice(0, 3) };
    const paths = { repo: '/r', home: '/h' };
    expect(compareContext([req], paths, [req], paths)).toEqual([]);
    expect(compareContext([req], paths, [without], paths).map((d) => d.where)).toEqual(['request 0']);
    const tail = compareContext([req], paths, [req], paths, { systemTail: 'x' });
    expect(tail).toEqual([]); // neither ends with it: the same
  });

  test('compareRuns: the sequence of stream event types is compared apart from the other messages', () => {
    const ev = (type: string): StreamMessage => ({ type: 'stream_event', event: { type }, uuid: 'u', session_id: 's' });
    const a = run([init, ev('message_start'), ev('content_block_delta'), ev('message_stop'), result]);
    const b = run([init, ev('message_start'), ev('message_stop'), result], { side: 'ours' });
    const diffs = compareRuns({ claude: a, ours: b });
    expect(diffs.map((d) => `${d.kind} ${d.where}`)).toEqual(['stream-event event types']);
  });

  test('knownDifferenceFor: entries apply to the second run of a scenario too', () => {
    const d = {
      kind: 'field' as const,
      where: 'resumed run: assistant.message.stop_reason',
      claude: 'null',
      ours: 's',
    };
    expect(knownDifferenceFor(d, 'fork-session')?.id).toBe('assistant-stop-reason');
  });
});
