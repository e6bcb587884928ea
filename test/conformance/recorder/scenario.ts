/**
 * What a recording scenario is: one run of a CLI (the real `claude -p`, later `agent-runner -p`)
 * against the scripted fake model, with everything the run needs (repository and HOME files, flags,
 * environment, stdin, a second `--resume` run, an Agent SDK client), recorded in full.
 *
 * The differential scenarios (../scenarios.ts) compare both CLIs on every CI run; recording
 * scenarios exist to capture what Claude Code does for features the runner does not have yet
 * (issues 22 and 23). Their recordings are committed under ../recordings/claude-2.1.328/ and a
 * scenario stays `pending` until the runner implements it; then recordings.test.ts runs the
 * runner and compares it with the recording.
 */
import type { ParsedRequest, StepSpec } from '../../../src/fake-model';
import type { ProviderAuthOptions } from '../../../src/fake-model/providers';
import type { ResponderContext } from '../../../src/fake-model/messages-handler';

/** A file written before the run: text (`{{repo}}`, `{{home}}` replaced) or bytes. */
export type FixtureFile = string | { base64: string } | { mode: number; text: string };

/** Which model API the CLI is pointed at (all served by the fake model). */
export type ProviderKind = 'anthropic' | 'bedrock' | 'vertex' | 'foundry';

/** A run of the Agent SDK's `query()` (test/conformance/sdk-client.mjs) instead of `claude -p`. */
export interface SdkRun {
  /** Options of `query()`, beside `pathToClaudeCodeExecutable`, `cwd` and `env` (set by the recorder). */
  options: Record<string, unknown>;
  /** User messages, sent as streaming input when more than one. */
  prompts: string[];
  /**
   * A `canUseTool` callback answering by tool name (sdk-client.mjs): deny with a message, or allow
   * with a changed input; unlisted tools are allowed unchanged.
   */
  canUseTool?: Record<string, { deny?: string; updatedInput?: Record<string, unknown> }>;
}

/** One recording scenario. */
export interface RecordingScenario {
  /** Kebab-case; the fixture directory's name. */
  name: string;
  /** What it records (the test title). */
  title: string;
  /** The issue whose feature it records. */
  issue: 22 | 23;
  /**
   * Why the runner cannot run it yet (e.g. `issue 22: custom slash commands`). While set,
   * recordings.test.ts does not run the runner on it; remove it when the feature is built.
   */
  pending?: string;
  /** The `-p` prompt. Default: `Do the task.` Ignored with `stdin`. */
  prompt?: string;
  /** stream-json input lines (objects), sent on stdin with `--input-format stream-json`. */
  stdin?: unknown[];
  /**
   * Send each stdin line after the previous turn's result (as the Agent SDK does), instead of all
   * at once. Claude Code 2.1.328 drops a line that is queued while a turn with tool calls runs
   * (see stream-input-queued-after-tool-turn).
   */
  stdinPaced?: boolean;
  /** Flags instead of {@link RECORDING_FLAGS}. */
  flags?: readonly string[];
  /** Flags after the common ones. */
  args?: string[];
  /** Repository files (path → content). Default: {@link RECORDING_FILES}. */
  files?: Record<string, FixtureFile>;
  /** HOME files (path → content). */
  homeFiles?: Record<string, FixtureFile>;
  /** Make the repository a git repository with one commit (fixed author and dates). */
  git?: boolean;
  /** Extra environment (`{{base}}`, `{{repo}}`, `{{home}}` replaced). */
  env?: Record<string, string>;
  /** Variables of the base environment to leave out (e.g. `ANTHROPIC_API_KEY` for a provider). */
  unsetEnv?: string[];
  /** Model responses of the main conversation: step n answers the request with n assistant messages. */
  steps: StepSpec[];
  /**
   * Answers a request before the default routing (main conversation by step; other calls, such as
   * WebFetch's summary or WebSearch's search, get `Secondary answer.`). Return undefined to fall back.
   */
  respond?: (req: ParsedRequest, ctx: ResponderContext) => StepSpec | undefined;
  /** A second run in the same repository and HOME. */
  resume?: { prompt?: string; stdin?: unknown[]; args: string[]; continue?: boolean };
  /** Run the Agent SDK client instead of the CLI. */
  sdk?: SdkRun;
  /** Kill the CLI after this long, ms. @default 90000 */
  timeoutMs?: number;
  /**
   * Variants of one parameter matrix: the CLI runs once per variant (same files) and the fixture
   * keeps only each variant's request parameters (model, top-level fields other than
   * system/tools/messages, `anthropic-beta`) in `params.json`.
   */
  variants?: Array<{
    id: string;
    args?: string[];
    env?: Record<string, string>;
    /** Variables of the scenario's environment this variant leaves out. */
    unsetEnv?: string[];
    /** For `sdk` scenarios: options merged into the scenario's `query()` options. */
    sdkOptions?: Record<string, unknown>;
  }>;
  /**
   * Extra replacements for volatile values only this scenario has, as `[regular expression source,
   * placeholder]` (e.g. the random id NotebookEdit gives an inserted cell).
   */
  normalise?: Array<[string, string]>;
  /** Credentials the fake model's provider routes check (SigV4 keys, the Vertex access token). */
  providerAuth?: ProviderAuthOptions;
  /** Commands the recording needs on PATH (e.g. `pdftoppm` of poppler-utils); recording fails without them. */
  requires?: string[];
  /** Commands hidden from the CLI's PATH (e.g. `pdftoppm`, to record what happens without poppler). */
  hideCommands?: string[];
  /** Local HTTPS pages served beside the model (path → body), e.g. for WebFetch: `{{pages}}/doc.html`. */
  pages?: Record<string, { contentType: string; body: string }>;
}

/** The model every recording uses unless it says otherwise. */
export const RECORDING_MODEL = 'claude-sonnet-5-5';

/** Flags of every recording unless it gives its own. */
export const RECORDING_FLAGS: readonly string[] = [
  '--output-format',
  'stream-json',
  '--verbose',
  '--model',
  RECORDING_MODEL,
];

/** The repository of a recording unless it gives its own files. */
export const RECORDING_FILES: Readonly<Record<string, FixtureFile>> = {
  'src/math.js': 'export const add = (a, b) => a - b;\n',
  'README.md': '# Demo\n',
};
