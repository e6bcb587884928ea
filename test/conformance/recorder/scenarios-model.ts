/**
 * Recording scenarios of issue 23: effort and extended thinking, WebSearch and WebFetch,
 * AskUserQuestion, plan mode and ExitPlanMode, NotebookEdit, Read of notebooks, images and PDFs,
 * images in stream-json input, and the model providers (Bedrock, Vertex, Foundry, bearer tokens,
 * apiKeyHelper).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ContentSpec, ParsedRequest, StepSpec } from '../../../src/fake-model';
import type { RecordingScenario } from './scenario';
import { RECORDING_FILES } from './scenario';

const tool = (name: string, input: Record<string, unknown>): ContentSpec => ({ tool_use: { name, input } });
const text = (t: string): ContentSpec => ({ text: t });
const done: StepSpec = { content: [text('Done.')] };
const user = (content: unknown): unknown => ({ type: 'user', message: { role: 'user', content } });

const MEDIA = join(__dirname, '..', '..', 'fixtures', 'media');
const media = (name: string): { base64: string } => ({ base64: readFileSync(join(MEDIA, name)).toString('base64') });
const PNG = media('red-4x4.png');
const PDF = media('three-pages.pdf');

const NOTEBOOK = JSON.stringify(
  {
    cells: [
      { cell_type: 'markdown', id: 'intro', metadata: {}, source: ['# Title\n', 'Some text.'] },
      {
        cell_type: 'code',
        id: 'calc',
        metadata: {},
        execution_count: 1,
        source: ['x = 6 * 7\n', 'print(x)'],
        outputs: [{ output_type: 'stream', name: 'stdout', text: ['42\n'] }],
      },
    ],
    metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
    nbformat: 4,
    nbformat_minor: 5,
  },
  null,
  1,
);

/** WebSearch and WebFetch are built; this one also needs ToolSearch, which issue 22 builds. */
const PENDING_TOOLSEARCH = 'issue 22: deferred tools and ToolSearch (WebSearch itself is built)';

/** Flags without `--model` (a matrix gives its own). */
const NO_MODEL_FLAGS = ['--output-format', 'stream-json', '--verbose'];

/** Matrix of models × effort / thinking flags and variables. */
function effortVariants(): NonNullable<RecordingScenario['variants']> {
  const out: NonNullable<RecordingScenario['variants']> = [];
  const models = [
    'claude-sonnet-5-5',
    'claude-opus-5-5',
    'claude-opus-4-5',
    'claude-sonnet-4-5',
    'claude-haiku-4-5',
    'claude-opus-4-1',
    'claude-3-5-haiku-20241022',
  ];
  for (const m of models) {
    out.push({ id: `${m} (no flag)`, args: ['--model', m] });
    for (const e of ['low', 'medium', 'high', 'xhigh', 'max']) {
      out.push({ id: `${m} --effort ${e}`, args: ['--model', m, '--effort', e] });
    }
    out.push({ id: `${m} --max-thinking-tokens 4096`, args: ['--model', m, '--max-thinking-tokens', '4096'] });
    out.push({ id: `${m} --max-thinking-tokens 0`, args: ['--model', m, '--max-thinking-tokens', '0'] });
  }
  const s = 'claude-sonnet-5-5';
  out.push(
    { id: `${s} --effort bogus`, args: ['--model', s, '--effort', 'bogus'] },
    { id: `${s} --thinking disabled`, args: ['--model', s, '--thinking', 'disabled'] },
    { id: `${s} --thinking enabled`, args: ['--model', s, '--thinking', 'enabled'] },
    { id: `${s} --thinking adaptive --effort low`, args: ['--model', s, '--thinking', 'adaptive', '--effort', 'low'] },
    { id: 'claude-haiku-4-5 --thinking disabled', args: ['--model', 'claude-haiku-4-5', '--thinking', 'disabled'] },
    { id: 'claude-haiku-4-5 --thinking adaptive', args: ['--model', 'claude-haiku-4-5', '--thinking', 'adaptive'] },
    {
      id: 'claude-opus-4-5 --effort low --max-thinking-tokens 4096',
      args: ['--model', 'claude-opus-4-5', '--effort', 'low', '--max-thinking-tokens', '4096'],
    },
    { id: `${s} --thinking-display summarized`, args: ['--model', s, '--thinking-display', 'summarized'] },
    { id: `${s} --max-thinking-tokens 200000`, args: ['--model', s, '--max-thinking-tokens', '200000'] },
    { id: `${s} MAX_THINKING_TOKENS=8000`, args: ['--model', s], env: { MAX_THINKING_TOKENS: '8000' } },
    { id: `${s} CLAUDE_CODE_EFFORT_LEVEL=low`, args: ['--model', s], env: { CLAUDE_CODE_EFFORT_LEVEL: 'low' } },
    {
      id: `${s} CLAUDE_CODE_DISABLE_ADAPTIVE_THINKING=1`,
      args: ['--model', s],
      env: { CLAUDE_CODE_DISABLE_ADAPTIVE_THINKING: '1' },
    },
    { id: `${s} CLAUDE_CODE_DISABLE_THINKING=1`, args: ['--model', s], env: { CLAUDE_CODE_DISABLE_THINKING: '1' } },
    { id: `${s} DISABLE_INTERLEAVED_THINKING=1`, args: ['--model', s], env: { DISABLE_INTERLEAVED_THINKING: '1' } },
    {
      id: `${s} settings effortLevel=high`,
      args: ['--model', s, '--settings', JSON.stringify({ effortLevel: 'high' })],
    },
    {
      id: `${s} settings alwaysThinkingEnabled=false`,
      args: ['--model', s, '--settings', JSON.stringify({ alwaysThinkingEnabled: false })],
    },
    {
      id: 'claude-haiku-4-5 settings alwaysThinkingEnabled=false',
      args: ['--model', 'claude-haiku-4-5', '--settings', JSON.stringify({ alwaysThinkingEnabled: false })],
    },
    { id: 'default model (no --model)', args: [] },
    { id: '--model sonnet', args: ['--model', 'sonnet'] },
    { id: '--model opus', args: ['--model', 'opus'] },
    { id: '--model haiku', args: ['--model', 'haiku'] },
    { id: '--model opusplan', args: ['--model', 'opusplan'] },
    { id: '--model sonnet[1m]', args: ['--model', 'sonnet[1m]'] },
  );
  return out;
}

/** The secondary call of WebSearch: the API runs `web_search` and answers with its results. */
function webSearchAnswer(req: ParsedRequest): StepSpec | undefined {
  if (!(req.tools ?? []).some((t) => String(t['type'] ?? '').startsWith('web_search'))) return undefined;
  return {
    content: [
      {
        server_tool_use: {
          id: 'srvtoolu_rec_1',
          name: 'web_search',
          input: { query: 'temporal workflow determinism' },
        },
      },
      {
        block: {
          type: 'web_search_tool_result',
          tool_use_id: 'srvtoolu_rec_1',
          content: [
            {
              type: 'web_search_result',
              title: 'Workflow determinism | Temporal Docs',
              url: 'https://docs.temporal.io/workflows#deterministic-constraints',
              encrypted_content: 'ENCRYPTED-CONTENT-1',
              page_age: '2 months ago',
            },
            {
              type: 'web_search_result',
              title: 'Replay and determinism',
              url: 'https://temporal.io/blog/replay',
              encrypted_content: 'ENCRYPTED-CONTENT-2',
              page_age: null,
            },
          ],
        },
      },
      {
        block: {
          type: 'text',
          text: 'Workflow code must be deterministic so that replay reproduces the same commands.',
          citations: [
            {
              type: 'web_search_result_location',
              url: 'https://docs.temporal.io/workflows#deterministic-constraints',
              title: 'Workflow determinism | Temporal Docs',
              encrypted_index: 'ENCRYPTED-INDEX-1',
              cited_text: 'Workflow code must be deterministic.',
            },
          ],
        },
      },
    ],
    usage: { server_tool_use: { web_search_requests: 1 } },
  };
}

/** The pages the WebFetch scenarios fetch. */
const PAGES = {
  '/doc.html': {
    contentType: 'text/html; charset=utf-8',
    body: '<html><head><title>Doc</title></head><body><h1>Release 1.2</h1><p>Adds <b>retries</b> and <a href="/next">more</a>.</p></body></html>',
  },
  '/data.json': { contentType: 'application/json', body: '{"version":"1.2.0","features":["retries"]}' },
};

/** HOME settings that skip WebFetch's domain lookup (api.anthropic.com/api/web/domain_info, offline here). */
const SKIP_PREFLIGHT = { '.claude/settings.json': JSON.stringify({ skipWebFetchPreflight: true }) };

const PROVIDER_FLAGS = ['--output-format', 'stream-json', '--verbose', '--tools', 'Read'];
const READ_THEN_DONE: StepSpec[] = [{ content: [tool('Read', { file_path: '{{cwd}}/README.md' })] }, done];
/** AWS's documentation example credentials (not a real key). */
const AWS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const NO_ANTHROPIC = ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL'];

/** The scenarios of issue 23. */
export const MODEL_SCENARIOS: readonly RecordingScenario[] = [
  {
    name: 'effort-thinking-matrix',
    title: 'request parameters per model for --effort, --max-thinking-tokens, --thinking and their variables',
    issue: 23,

    flags: [...NO_MODEL_FLAGS, '--tools', 'Read'],
    prompt: 'Say done.',
    variants: effortVariants(),
    steps: [done],
    respond: () => done,
  },
  {
    name: 'thinking-tool-turn',
    title: '--effort high on a tool turn with thinking and redacted_thinking: blocks sent back, thinking_delta events',
    issue: 23,

    args: ['--effort', 'high', '--include-partial-messages', '--tools', 'Read'],
    steps: [
      {
        content: [
          { thinking: 'The user wants the file read. I will call Read.' },
          { redacted_thinking: 'RkFLRS1SRURBQ1RFRC1USElOS0lORw==' },
          text('Reading it.'),
          tool('Read', { file_path: '{{cwd}}/README.md' }),
        ],
        usage: { output_tokens: 120 },
      },
      { content: [{ thinking: 'It says Demo. Done.' }, text('It is a demo.')] },
    ],
  },
  {
    name: 'thinking-resume',
    title: 'thinking blocks of an earlier turn in a --resume run',
    issue: 23,

    args: ['--tools', 'Read'],
    prompt: 'First turn.',
    resume: { prompt: 'Second turn.', args: ['--tools', 'Read'] },
    steps: [
      { content: [{ thinking: 'First thought.' }, tool('Read', { file_path: '{{cwd}}/README.md' })] },
      { content: [{ thinking: 'Second thought.' }, text('First answer.')] },
      { content: [{ thinking: 'Third thought.' }, text('Second answer.')] },
    ],
  },
  {
    name: 'sdk-thinking-options',
    title: "the Agent SDK's thinking, effort and maxThinkingTokens options: CLI flags and request parameters",
    issue: 23,

    sdk: { prompts: ['Say done.'], options: { model: 'claude-sonnet-5-5', maxTurns: 2, tools: ['Read'] } },
    variants: [
      { id: 'no thinking option', sdkOptions: {} },
      { id: "thinking {type:'adaptive'}", sdkOptions: { thinking: { type: 'adaptive' } } },
      {
        id: "thinking {type:'enabled', budgetTokens: 2048}",
        sdkOptions: { thinking: { type: 'enabled', budgetTokens: 2048 } },
      },
      { id: "thinking {type:'disabled'}", sdkOptions: { thinking: { type: 'disabled' } } },
      { id: 'maxThinkingTokens: 3000', sdkOptions: { maxThinkingTokens: 3000 } },
      { id: "effort: 'low'", sdkOptions: { effort: 'low' } },
      { id: "effort: 'max'", sdkOptions: { effort: 'max' } },
      {
        id: "haiku, thinking {type:'enabled', budgetTokens: 2048}",
        sdkOptions: { model: 'claude-haiku-4-5', thinking: { type: 'enabled', budgetTokens: 2048 } },
      },
      { id: "haiku, effort: 'low'", sdkOptions: { model: 'claude-haiku-4-5', effort: 'low' } },
      {
        id: "haiku, thinking {type:'disabled'}",
        sdkOptions: { model: 'claude-haiku-4-5', thinking: { type: 'disabled' } },
      },
    ],
    steps: [done],
    respond: () => done,
  },
  {
    name: 'web-search',
    title: 'WebSearch: the tool schema, the secondary request with the web_search server tool, the tool_result, usage',
    issue: 23,

    args: ['--tools', 'Read,WebSearch', '--allowedTools', 'WebSearch'],
    steps: [
      {
        content: [
          tool('WebSearch', {
            query: 'temporal workflow determinism',
            allowed_domains: ['docs.temporal.io', 'temporal.io'],
          }),
        ],
      },
      done,
    ],
    respond: webSearchAnswer,
  },
  {
    name: 'web-search-deferred',
    title: 'WebSearch among all tools: deferred, loaded by ToolSearch, then called without a permission rule',
    issue: 23,
    pending: PENDING_TOOLSEARCH,
    steps: [
      { content: [tool('ToolSearch', { query: 'select:WebSearch,WebFetch' })] },
      { content: [tool('WebSearch', { query: 'temporal workflow determinism' })] },
      done,
    ],
    respond: webSearchAnswer,
  },
  {
    name: 'web-fetch-preflight-offline',
    title: 'WebFetch when its domain lookup cannot reach api.anthropic.com (offline, as in CI sandboxes)',
    issue: 23,

    pages: PAGES,
    args: ['--tools', 'Read,WebFetch', '--allowedTools', 'WebFetch'],
    steps: [{ content: [tool('WebFetch', { url: '{{pages}}/doc.html', prompt: 'What does release 1.2 add?' })] }, done],
  },
  {
    name: 'web-fetch',
    title:
      'WebFetch of a local page (skipWebFetchPreflight): how it fetches, the secondary model call, the tool_result',
    issue: 23,

    pages: PAGES,
    homeFiles: SKIP_PREFLIGHT,
    args: ['--tools', 'Read,WebFetch', '--allowedTools', 'WebFetch'],
    steps: [
      {
        content: [
          tool('WebFetch', { url: '{{pages}}/doc.html', prompt: 'What does release 1.2 add?' }),
          tool('WebFetch', { url: '{{pages}}/data.json', prompt: 'Which version?' }),
          tool('WebFetch', { url: '{{pages}}/missing.html', prompt: 'Anything?' }),
        ],
      },
      done,
    ],
    respond: (req) =>
      (req.tools ?? []).length === 0
        ? { content: [text('Release 1.2 adds retries (the answer of the secondary call).')] }
        : undefined,
  },
  {
    name: 'web-fetch-permissions',
    title: 'WebFetch domain rules: allowed by WebFetch(domain:…), denied by a deny rule, and asked for (headless)',
    issue: 23,

    pages: PAGES,
    homeFiles: SKIP_PREFLIGHT,
    args: [
      '--tools',
      'Read,WebFetch',
      '--allowedTools',
      'WebFetch(domain:127.0.0.1)',
      '--disallowedTools',
      'WebFetch(domain:blocked.example.com)',
    ],
    steps: [
      {
        content: [
          tool('WebFetch', { url: '{{pages}}/doc.html', prompt: 'Allowed by the domain rule?' }),
          tool('WebFetch', { url: 'https://blocked.example.com/x', prompt: 'Denied by the deny rule?' }),
          tool('WebFetch', { url: 'https://other.example.org/y', prompt: 'No rule: asked?' }),
          tool('WebFetch', { url: 'ftp://127.0.0.1/file', prompt: 'A bad scheme?' }),
        ],
      },
      done,
    ],
    respond: (req) => ((req.tools ?? []).length === 0 ? { content: [text('Summary.')] } : undefined),
  },
  {
    name: 'ask-user-question-p',
    title: 'AskUserQuestion in -p: not offered by default; offered with --tools, called headless',
    issue: 23,
    args: ['--tools', 'Read,AskUserQuestion'],
    steps: [
      {
        content: [
          tool('AskUserQuestion', {
            questions: [
              {
                question: 'Which database should the service use?',
                header: 'Database',
                options: [
                  { label: 'PostgreSQL', description: 'Relational, already deployed' },
                  { label: 'SQLite', description: 'A file, no server' },
                ],
                multiSelect: false,
              },
            ],
          }),
        ],
      },
      done,
    ],
  },
  {
    name: 'ask-user-question-default-tools',
    title: 'AskUserQuestion called when the default tool set is offered (-p)',
    issue: 23,
    steps: [
      {
        content: [
          tool('AskUserQuestion', {
            questions: [
              {
                question: 'Proceed?',
                header: 'Confirm',
                options: [
                  { label: 'Yes', description: 'Go on' },
                  { label: 'No', description: 'Stop' },
                ],
                multiSelect: false,
              },
            ],
          }),
        ],
      },
      done,
    ],
  },
  {
    name: 'ask-user-question-sdk',
    title: 'AskUserQuestion through the Agent SDK: canUseTool sees it and answers (updatedInput with answers)',
    issue: 23,
    sdk: {
      prompts: ['Ask me.'],
      options: {
        model: 'claude-sonnet-5-5',
        maxTurns: 3,
        tools: ['Read', 'AskUserQuestion'],
      },
      canUseTool: {
        AskUserQuestion: {
          updatedInput: {
            questions: [
              {
                question: 'Which database should the service use?',
                header: 'Database',
                options: [
                  { label: 'PostgreSQL', description: 'Relational, already deployed' },
                  { label: 'SQLite', description: 'A file, no server' },
                ],
                multiSelect: false,
              },
            ],
            answers: { 'Which database should the service use?': 'PostgreSQL' },
          },
        },
      },
    },
    steps: [
      {
        content: [
          tool('AskUserQuestion', {
            questions: [
              {
                question: 'Which database should the service use?',
                header: 'Database',
                options: [
                  { label: 'PostgreSQL', description: 'Relational, already deployed' },
                  { label: 'SQLite', description: 'A file, no server' },
                ],
                multiSelect: false,
              },
            ],
          }),
        ],
      },
      done,
    ],
  },
  {
    name: 'plan-mode',
    title: '--permission-mode plan: the reminders, a Write refused, ExitPlanMode called headless',
    issue: 23,
    args: ['--permission-mode', 'plan'],
    steps: [
      {
        content: [
          tool('Read', { file_path: '{{cwd}}/src/math.js' }),
          tool('Write', { file_path: '{{cwd}}/plan-write.txt', content: 'not yet\n' }),
        ],
      },
      { content: [tool('ExitPlanMode', { plan: '1. Change `a - b` to `a + b` in src/math.js.\n2. Run the tests.' })] },
      { content: [tool('Edit', { file_path: '{{cwd}}/src/math.js', old_string: 'a - b', new_string: 'a + b' })] },
      done,
    ],
  },
  {
    name: 'plan-mode-sdk',
    title: 'plan mode through the Agent SDK with canUseTool: ExitPlanMode offered, approved, then an edit',
    issue: 23,
    sdk: {
      prompts: ['Plan, then fix.'],
      options: { model: 'claude-sonnet-5-5', maxTurns: 5, permissionMode: 'plan' },
      canUseTool: {},
    },
    steps: [
      { content: [tool('ToolSearch', { query: 'select:ExitPlanMode,EnterPlanMode' })] },
      { content: [tool('ExitPlanMode', { plan: '1. Change `a - b` to `a + b`.' })] },
      { content: [tool('Edit', { file_path: '{{cwd}}/src/math.js', old_string: 'a - b', new_string: 'a + b' })] },
      done,
    ],
  },
  {
    name: 'plan-mode-stream',
    title: 'plan mode through stream-json input: two turns, ExitPlanMode in the first',
    issue: 23,
    args: ['--permission-mode', 'plan'],
    stdin: [user('Plan the fix.'), user('Now do it.')],
    stdinPaced: true,
    steps: [
      { content: [tool('ExitPlanMode', { plan: 'Fix add.' })] },
      done,
      { content: [tool('Edit', { file_path: '{{cwd}}/src/math.js', old_string: 'a - b', new_string: 'a + b' })] },
      done,
    ],
  },
  {
    name: 'notebook-edit',
    title: 'Read of a notebook, NotebookEdit replace/insert/delete, errors',
    issue: 23,
    files: { ...RECORDING_FILES, 'analysis.ipynb': NOTEBOOK },
    // NotebookEdit gives an inserted cell a random 8-hex id.
    normalise: [['\\b(?!00000000)[0-9a-f]{8}\\b', '{{cell-id}}']],
    args: ['--tools', 'Read,NotebookEdit', '--permission-mode', 'acceptEdits'],
    steps: [
      { content: [tool('Read', { file_path: '{{cwd}}/analysis.ipynb' })] },
      {
        content: [
          tool('NotebookEdit', {
            notebook_path: '{{cwd}}/analysis.ipynb',
            cell_id: 'calc',
            new_source: 'x = 7 * 6\nprint(x)',
          }),
        ],
      },
      {
        content: [
          tool('NotebookEdit', {
            notebook_path: '{{cwd}}/analysis.ipynb',
            cell_id: 'intro',
            edit_mode: 'insert',
            cell_type: 'code',
            new_source: 'import math',
          }),
        ],
      },
      {
        content: [
          tool('NotebookEdit', {
            notebook_path: '{{cwd}}/analysis.ipynb',
            cell_id: 'intro',
            edit_mode: 'delete',
            new_source: '',
          }),
        ],
      },
      {
        content: [tool('NotebookEdit', { notebook_path: '{{cwd}}/analysis.ipynb', cell_id: 'nope', new_source: 'x' })],
      },
      { content: [tool('NotebookEdit', { notebook_path: '{{cwd}}/README.md', cell_id: 'intro', new_source: 'x' })] },
      { content: [tool('Read', { file_path: '{{cwd}}/analysis.ipynb' })] },
      done,
    ],
  },
  {
    name: 'read-image-pdf',
    title: 'Read of a PNG, of a PDF whole and with pages (poppler installed), and of a page out of range',
    issue: 23,
    files: { ...RECORDING_FILES, 'red.png': PNG, 'doc.pdf': PDF },
    requires: ['pdftoppm'],
    args: ['--tools', 'Read'],
    steps: [
      { content: [tool('Read', { file_path: '{{cwd}}/red.png' })] },
      { content: [tool('Read', { file_path: '{{cwd}}/doc.pdf' })] },
      { content: [tool('Read', { file_path: '{{cwd}}/doc.pdf', pages: '2-3' })] },
      { content: [tool('Read', { file_path: '{{cwd}}/doc.pdf', pages: '9' })] },
      done,
    ],
  },
  {
    name: 'read-pdf-no-poppler',
    title: 'Read of PDF pages when poppler (pdftoppm) is not installed',
    issue: 23,
    files: { ...RECORDING_FILES, 'doc.pdf': PDF },
    args: ['--tools', 'Read'],
    hideCommands: ['pdftoppm', 'pdfinfo', 'pdftotext'],
    steps: [
      { content: [tool('Read', { file_path: '{{cwd}}/doc.pdf', pages: '2-3' })] },
      { content: [tool('Read', { file_path: '{{cwd}}/doc.pdf' })] },
      done,
    ],
  },
  {
    name: 'stream-json-image',
    title: 'an image (and a document) block in a stream-json user message',
    issue: 23,
    args: ['--tools', 'Read'],
    stdin: [
      user([
        { type: 'text', text: 'What colour is this?' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG.base64 } },
      ]),
      user([
        { type: 'text', text: 'And this PDF?' },
        { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF.base64 } },
      ]),
    ],
    steps: [{ content: [text('Red.')] }, { content: [text('Three pages.')] }],
  },
  {
    name: 'provider-bedrock-sigv4',
    title: 'Bedrock with AWS keys: URL paths, SigV4 headers (verified), body, model ids, a tool turn',
    issue: 23,
    flags: PROVIDER_FLAGS,
    unsetEnv: NO_ANTHROPIC,
    env: {
      CLAUDE_CODE_USE_BEDROCK: '1',
      ANTHROPIC_BEDROCK_BASE_URL: '{{base}}',
      AWS_ACCESS_KEY_ID: AWS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: AWS.secretAccessKey,
      AWS_REGION: 'us-east-1',
    },
    providerAuth: { aws: AWS },
    steps: READ_THEN_DONE,
  },
  {
    name: 'provider-bedrock-model-unavailable',
    title: 'Bedrock when the model probe gets 404 (the model is not enabled in the account)',
    issue: 23,
    flags: PROVIDER_FLAGS,
    unsetEnv: NO_ANTHROPIC,
    env: {
      CLAUDE_CODE_USE_BEDROCK: '1',
      ANTHROPIC_BEDROCK_BASE_URL: '{{base}}',
      AWS_ACCESS_KEY_ID: AWS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: AWS.secretAccessKey,
      AWS_REGION: 'us-east-1',
    },
    providerAuth: { aws: AWS },
    steps: READ_THEN_DONE,
    respond: (req, ctx) =>
      ctx.url?.includes('claude-opus-5-5') === true
        ? {
            errors: Array.from({ length: 1000 }, () => ({
              status: 404,
              message: 'Could not resolve the foundation model from the provided model identifier.',
            })),
            content: [text('unreachable')],
          }
        : undefined,
  },
  {
    name: 'provider-bedrock-no-model',
    title: 'Bedrock when every model probe gets 404: the turn does not start',
    issue: 23,
    flags: PROVIDER_FLAGS,
    unsetEnv: NO_ANTHROPIC,
    env: {
      CLAUDE_CODE_USE_BEDROCK: '1',
      ANTHROPIC_BEDROCK_BASE_URL: '{{base}}',
      AWS_ACCESS_KEY_ID: AWS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: AWS.secretAccessKey,
      AWS_REGION: 'us-east-1',
    },
    providerAuth: { aws: AWS },
    steps: READ_THEN_DONE,
    respond: () => ({
      errors: Array.from({ length: 1000 }, () => ({
        status: 404,
        message: 'Could not resolve the foundation model from the provided model identifier.',
      })),
      content: [text('unreachable')],
    }),
  },
  {
    name: 'provider-bedrock-api-key',
    title: 'Bedrock with AWS_BEARER_TOKEN_BEDROCK (a Bedrock API key)',
    issue: 23,
    flags: [...PROVIDER_FLAGS, '--model', 'claude-sonnet-5-5'],
    unsetEnv: NO_ANTHROPIC,
    env: {
      CLAUDE_CODE_USE_BEDROCK: '1',
      ANTHROPIC_BEDROCK_BASE_URL: '{{base}}',
      AWS_BEARER_TOKEN_BEDROCK: 'fake-bedrock-api-key',
      AWS_REGION: 'eu-west-1',
    },
    steps: READ_THEN_DONE,
  },
  {
    name: 'provider-vertex-gce-token',
    title: 'Vertex with a token from a (fake) GCE metadata server: paths, bearer, body, model ids',
    issue: 23,
    flags: PROVIDER_FLAGS,
    unsetEnv: NO_ANTHROPIC,
    env: {
      CLAUDE_CODE_USE_VERTEX: '1',
      ANTHROPIC_VERTEX_BASE_URL: '{{base}}/v1',
      ANTHROPIC_VERTEX_PROJECT_ID: 'conf-project',
      CLOUD_ML_REGION: 'us-east5',
      GCE_METADATA_HOST: '{{base-host}}',
      GCE_METADATA_IP: '{{base-host}}',
      METADATA_SERVER_DETECTION: 'assume-present',
    },
    steps: READ_THEN_DONE,
  },
  {
    name: 'provider-vertex-skip-auth',
    title: 'Vertex with CLAUDE_CODE_SKIP_VERTEX_AUTH=1 (no Authorization; the endpoint answers 401)',
    issue: 23,
    flags: [...PROVIDER_FLAGS, '--model', 'claude-sonnet-5-5'],
    unsetEnv: NO_ANTHROPIC,
    env: {
      CLAUDE_CODE_USE_VERTEX: '1',
      ANTHROPIC_VERTEX_BASE_URL: '{{base}}/v1',
      ANTHROPIC_VERTEX_PROJECT_ID: 'conf-project',
      CLOUD_ML_REGION: 'global',
      CLAUDE_CODE_SKIP_VERTEX_AUTH: '1',
    },
    steps: READ_THEN_DONE,
  },
  {
    name: 'provider-vertex-gateway-token',
    title: 'Vertex with CLAUDE_CODE_SKIP_VERTEX_AUTH=1 and ANTHROPIC_AUTH_TOKEN (a gateway that takes a bearer)',
    issue: 23,
    flags: [...PROVIDER_FLAGS, '--model', 'claude-sonnet-5-5'],
    unsetEnv: NO_ANTHROPIC,
    env: {
      CLAUDE_CODE_USE_VERTEX: '1',
      ANTHROPIC_VERTEX_BASE_URL: '{{base}}/v1',
      ANTHROPIC_VERTEX_PROJECT_ID: 'conf-project',
      CLOUD_ML_REGION: 'global',
      CLAUDE_CODE_SKIP_VERTEX_AUTH: '1',
      ANTHROPIC_AUTH_TOKEN: 'ya29.fake-vertex-token',
    },
    steps: READ_THEN_DONE,
  },
  {
    name: 'provider-foundry-api-key',
    title: 'Foundry with ANTHROPIC_FOUNDRY_API_KEY: path, headers, model ids',
    issue: 23,
    flags: PROVIDER_FLAGS,
    unsetEnv: NO_ANTHROPIC,
    env: {
      CLAUDE_CODE_USE_FOUNDRY: '1',
      ANTHROPIC_FOUNDRY_BASE_URL: '{{base}}/anthropic',
      ANTHROPIC_FOUNDRY_API_KEY: 'fake-foundry-key',
    },
    steps: READ_THEN_DONE,
  },
  {
    name: 'provider-auth-token',
    title: 'ANTHROPIC_AUTH_TOKEN: a bearer gateway instead of an API key',
    issue: 23,
    flags: [...PROVIDER_FLAGS, '--model', 'claude-sonnet-5-5'],
    unsetEnv: ['ANTHROPIC_API_KEY'],
    env: { ANTHROPIC_AUTH_TOKEN: 'fake-gateway-token' },
    steps: READ_THEN_DONE,
  },
  {
    name: 'provider-api-key-helper',
    title: 'apiKeyHelper in settings: the key it prints, how it is sent',
    issue: 23,
    flags: [...PROVIDER_FLAGS, '--model', 'claude-sonnet-5-5'],
    unsetEnv: ['ANTHROPIC_API_KEY'],
    homeFiles: {
      '.claude/settings.json': JSON.stringify({ apiKeyHelper: 'echo fake-helper-key' }),
      '.claude.json': JSON.stringify({ projects: { '{{repo}}': { hasTrustDialogAccepted: true } } }),
    },
    steps: READ_THEN_DONE,
  },
  {
    name: 'provider-model-ids',
    title: 'model ids per provider for the aliases and the ANTHROPIC_DEFAULT_*_MODEL variables',
    issue: 23,
    flags: PROVIDER_FLAGS,
    unsetEnv: NO_ANTHROPIC,
    prompt: 'Say done.',
    providerAuth: { aws: AWS },
    steps: [done],
    respond: () => done,
    variants: providerModelVariants(),
  },
];

function providerModelVariants(): NonNullable<RecordingScenario['variants']> {
  const bedrock = {
    CLAUDE_CODE_USE_BEDROCK: '1',
    ANTHROPIC_BEDROCK_BASE_URL: '{{base}}',
    AWS_ACCESS_KEY_ID: AWS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: AWS.secretAccessKey,
    AWS_REGION: 'us-east-1',
  };
  const vertex = {
    CLAUDE_CODE_USE_VERTEX: '1',
    ANTHROPIC_VERTEX_BASE_URL: '{{base}}/v1',
    ANTHROPIC_VERTEX_PROJECT_ID: 'conf-project',
    CLOUD_ML_REGION: 'us-east5',
    GCE_METADATA_HOST: '{{base-host}}',
    GCE_METADATA_IP: '{{base-host}}',
    METADATA_SERVER_DETECTION: 'assume-present',
  };
  const foundry = {
    CLAUDE_CODE_USE_FOUNDRY: '1',
    ANTHROPIC_FOUNDRY_BASE_URL: '{{base}}/anthropic',
    ANTHROPIC_FOUNDRY_API_KEY: 'fake-foundry-key',
  };
  const anthropic = { ANTHROPIC_API_KEY: 'conformance-dummy-key', ANTHROPIC_BASE_URL: '{{base}}' };
  const out: NonNullable<RecordingScenario['variants']> = [];
  for (const [p, env] of Object.entries({ anthropic, bedrock, vertex, foundry })) {
    out.push({ id: `${p}: no --model`, env });
    for (const m of ['sonnet', 'opus', 'haiku', 'claude-sonnet-5-5', 'claude-haiku-4-5']) {
      out.push({ id: `${p}: --model ${m}`, env, args: ['--model', m] });
    }
    out.push({
      id: `${p}: ANTHROPIC_DEFAULT_SONNET_MODEL, --model sonnet`,
      env: { ...env, ANTHROPIC_DEFAULT_SONNET_MODEL: 'custom-sonnet-id' },
      args: ['--model', 'sonnet'],
    });
    out.push({ id: `${p}: ANTHROPIC_MODEL`, env: { ...env, ANTHROPIC_MODEL: 'claude-opus-4-5' } });
  }
  out.push({
    id: 'vertex: VERTEX_REGION_CLAUDE_5_5_SONNET=europe-west1, --model claude-sonnet-5-5',
    env: { ...vertex, VERTEX_REGION_CLAUDE_5_5_SONNET: 'europe-west1' },
    args: ['--model', 'claude-sonnet-5-5'],
  });
  out.push({
    id: 'bedrock: ANTHROPIC_BEDROCK_REGION_PREFIX=eu, AWS_REGION=eu-west-1, --model sonnet',
    env: { ...bedrock, AWS_REGION: 'eu-west-1', ANTHROPIC_BEDROCK_REGION_PREFIX: 'eu' },
    args: ['--model', 'sonnet'],
  });
  return out;
}
