/**
 * Scenarios of Claude Code's asynchronous tools (subagents, background shells, monitors, wake-ups,
 * crons): what the scripted model answers each conversation of a run, the flags, and the checks a
 * run must pass. They are recorded from the real `claude -p` (test/conformance/recordings) and,
 * once the runner implements a scenario's tools, run against `agent-runner -p` too.
 */
import type { ContentSpec, ParsedRequest, RouteStep, StepSpec } from '../../../src/fake-model';
import { ownUserText } from '../../../src/fake-model';
import { toolResultText } from '../../../src/fake-model/request';
import type { Recording } from './recording';

/** One asynchronous-tools scenario. */
export interface AsyncScenario {
  /** Kebab-case name: the recording's folder. */
  name: string;
  /** What it shows (the test title). */
  title: string;
  /**
   * The conversations the scripted model plays, by name. `main` is the session's own agent (its
   * prompt carries the marker `[as:main]`); any other name `x` plays the conversation whose user
   * text carries `[as:x]` (a subagent's prompt, a fork's directive, a message sent to an agent).
   */
  agents: Record<string, readonly RouteStep[]>;
  /** The prompt after the marker. @default 'Do the task.' */
  prompt?: string;
  /** Flags instead of {@link ASYNC_FLAGS}. */
  flags?: readonly string[];
  /** Flags after the common ones. */
  args?: readonly string[];
  /** Extra environment of the CLI (e.g. a switch under test). */
  env?: Record<string, string>;
  /** Files of the repository (path → content); `{{repo}}` becomes its path. */
  files?: Record<string, string>;
  /** Files of HOME (path → content); `{{repo}}` becomes the repository's path. */
  homeFiles?: Record<string, string>;
  /** Make the repository a git repository with one commit. */
  git?: boolean;
  /**
   * The runner does not implement this scenario's tools yet: only the real CLI is run (and
   * recorded); the comparison with `agent-runner -p` is skipped. Clear it once it does.
   */
  pending: boolean;
  /** Waits in real time (a wake-up, a long poll): runs only with `CONFORMANCE_SLOW=1`. */
  slow?: boolean;
  /** Runs with the real CLI in every test run (a quick proof that the recorder still works), not only with `CONFORMANCE_LIVE=1`. */
  smoke?: boolean;
  /** Kill the CLI after this long, ms. @default 120000 */
  timeoutMs?: number;
  /**
   * What must hold of a run of this scenario, by either program: jest `expect`s over the
   * (normalised) recording. Run on the committed recording by a cheap test, and on every live run.
   */
  check(rec: Recording): void;
}

/** The tools every scenario gets (`--tools`): the project's six and Claude Code's async tools. */
export const ASYNC_TOOLS = [
  'Read',
  'Write',
  'Edit',
  'Bash',
  'Glob',
  'Grep',
  'Agent',
  'SendMessage',
  'TaskStop',
  'ListAgents',
  'Monitor',
  'ScheduleWakeup',
  'CronCreate',
  'CronDelete',
  'CronList',
] as const;

/** Flags of every scenario unless it gives its own. */
export const ASYNC_FLAGS: readonly string[] = [
  '--output-format',
  'stream-json',
  '--verbose',
  '--permission-mode',
  'acceptEdits',
  '--allowedTools',
  ASYNC_TOOLS.join(','),
  '--tools',
  ASYNC_TOOLS.join(','),
  '--model',
  'claude-sonnet-5-5',
];

/** The marker of conversation `name` (see {@link AsyncScenario.agents}). */
export const marker = (name: string): string => `[as:${name}]`;

/** A tool call block. */
export const tool = (name: string, input: Record<string, unknown>): ContentSpec => ({ tool_use: { name, input } });
/** A text block. */
export const text = (t: string): ContentSpec => ({ text: t });
/** A step answering with these blocks. */
export const say = (...content: ContentSpec[]): StepSpec => ({ content });

/** Texts of every tool_result the request carries, latest first. */
export function toolResultTexts(req: ParsedRequest): string[] {
  const out: string[] = [];
  for (const m of req.messages) {
    if (typeof m.content === 'string') continue;
    for (const b of m.content) if (b.type === 'tool_result') out.push(toolResultText(b));
  }
  return out.reverse();
}

/**
 * The first group of `re` in the latest tool_result (or, failing that, user text) that matches
 * it, e.g. the agentId a launch returned.
 * @throws Error when none matches
 */
export function captured(req: ParsedRequest, re: RegExp): string {
  const texts = [...toolResultTexts(req), ...req.messages.map(ownUserText).reverse()];
  for (const t of texts) {
    const m = re.exec(t);
    if (m?.[1] !== undefined) return m[1];
  }
  throw new Error(`nothing in the request matches ${String(re)}`);
}

/** A step built from a value {@link captured} from the request. */
export const usingCaptured =
  (re: RegExp, build: (value: string) => StepSpec): RouteStep =>
  (req) =>
    build(captured(req, re));

/** The agentId of an Agent tool_result (`agentId: <id>`). */
export const AGENT_ID = /agentId: (\S+)/;
