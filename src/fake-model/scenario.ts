import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

/**
 * Scenario files for the fake model server: the zod schema, its types and the loader.
 *
 * A scenario holds one or more scripts; a script is a list of steps; a step is one scripted
 * model response (plus optional faults and request checks). See `docs/fake-model.md`.
 */

const nonNegativeInt = z.number().int().nonnegative();

/** `stop_reason` values the Messages API can return. */
export const STOP_REASONS = [
  'end_turn',
  'max_tokens',
  'stop_sequence',
  'tool_use',
  'pause_turn',
  'refusal',
  'model_context_window_exceeded',
] as const;

/** One scripted tool call: `input` is sent as `input_json_delta` chunks of its JSON. */
export const ToolUseSpecSchema = z.strictObject({
  name: z.string().min(1),
  input: z.record(z.string(), z.unknown()).default({}),
  /** Tool-use id; defaults to a `toolu_…` id derived from (conversation, step, block index). */
  id: z.string().min(1).optional(),
});

/** A tool call whose input JSON is exactly `partial_json` (possibly invalid JSON). */
export const RawToolUseSpecSchema = z.strictObject({
  name: z.string().min(1),
  partial_json: z.string(),
  id: z.string().min(1).optional(),
});

const CONTENT_KINDS = [
  'text',
  'tool_use',
  'raw_tool_use',
  'thinking',
  'redacted_thinking',
  'server_tool_use',
  'block',
] as const;

/**
 * One content block of a scripted response: exactly one of `text`, `tool_use`, `raw_tool_use`,
 * `thinking`, `redacted_thinking` (its opaque `data`), `server_tool_use` (a server tool call such
 * as `web_search`; `input` streamed as `input_json_delta`s, as the API does) or `block` (any block,
 * e.g. a `web_search_tool_result`, sent whole in its `content_block_start`; a `text` block with
 * `citations` streams as the API does: `citations_delta`s, then `text_delta`s).
 */
export const ContentSpecSchema = z
  .strictObject({
    text: z.string().optional(),
    tool_use: ToolUseSpecSchema.optional(),
    raw_tool_use: RawToolUseSpecSchema.optional(),
    thinking: z.string().optional(),
    redacted_thinking: z.string().optional(),
    server_tool_use: ToolUseSpecSchema.optional(),
    block: z.looseObject({ type: z.string().min(1) }).optional(),
  })
  .superRefine((item, ctx) => {
    const present = CONTENT_KINDS.filter((k) => item[k] !== undefined);
    if (present.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message: `a content item needs exactly one of ${CONTENT_KINDS.join(', ')} (got ${
          present.length === 0 ? 'none' : present.join(', ')
        })`,
      });
    }
  });

const FAULT_KINDS = ['status', 'cut_after_events', 'malformed_sse', 'sse_error', 'batch_result'] as const;

/**
 * A fault applied to one attempt of a step, instead of the normal response.
 * Exactly one of `status`, `cut_after_events`, `malformed_sse`, `sse_error`.
 */
export const FaultSpecSchema = z
  .strictObject({
    /** HTTP error status (400–599); the body is the API error shape with the matching type. */
    status: z.number().int().min(400).max(599).optional(),
    /** Overrides the error `type` of an HTTP error (default: by status). */
    type: z.string().min(1).optional(),
    /** Error message of an HTTP error or an `sse_error`. */
    message: z.string().optional(),
    /** `retry-after` header value in seconds (429 defaults to 1). */
    retry_after: z.number().nonnegative().optional(),
    /** `x-should-retry` header of an HTTP error: the API's own word on retrying it. */
    should_retry: z.boolean().optional(),
    /** Send this many SSE events (pings count), then destroy the socket. */
    cut_after_events: nonNegativeInt.optional(),
    /** Send a data line that is not JSON (after `after_events` good events), then end the stream. */
    malformed_sse: z.literal(true).optional(),
    /** Send a 200 stream, then `event: error` with this error type (e.g. `overloaded_error`). */
    sse_error: z.string().min(1).optional(),
    /** Good SSE events sent before a `malformed_sse` / `sse_error` fault (default 1: `message_start`). */
    after_events: nonNegativeInt.optional(),
    /** Extra delay before the response headers, in ms. */
    delay_ms: nonNegativeInt.optional(),
    /**
     * In a Message Batch, the request is not processed and its result is of this type; a
     * synchronous call skips the fault (answers normally).
     */
    batch_result: z.enum(['expired', 'canceled']).optional(),
  })
  .superRefine((fault, ctx) => {
    const present = FAULT_KINDS.filter((k) => fault[k] !== undefined);
    if (present.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message: `a fault needs exactly one of ${FAULT_KINDS.join(', ')} (got ${
          present.length === 0 ? 'none' : present.join(', ')
        })`,
      });
    }
  });

/** Checks on the incoming request; a failed check answers HTTP 400 `fake-model: expectation failed: …`. */
export const ExpectSpecSchema = z.strictObject({
  /** The last `tool_result` block of the request contains this text. */
  lastToolResultContains: z.string().optional(),
  /** The last `tool_result` block has `is_error` equal to this (absent counts as false). */
  lastToolResultIsError: z.boolean().optional(),
  /** The system prompt (string or text blocks joined by newlines) contains this text. */
  systemContains: z.string().optional(),
  /** The request has exactly this many `messages`. */
  messagesCount: nonNegativeInt.optional(),
  /** The request's `tools` include tools with each of these names. */
  toolsInclude: z.array(z.string()).optional(),
});

/** Usage overrides for a step, in tokens; unset fields come from the estimate and cache simulation. */
export const UsageSpecSchema = z.strictObject({
  input_tokens: nonNegativeInt.optional(),
  output_tokens: nonNegativeInt.optional(),
  cache_read_input_tokens: nonNegativeInt.optional(),
  cache_creation_input_tokens: nonNegativeInt.optional(),
  /** Server tool requests the response reports (`usage.server_tool_use`), e.g. `{web_search_requests: 1}`. */
  server_tool_use: z.record(z.string(), nonNegativeInt).optional(),
});

/** One scripted model response. */
export const StepSpecSchema = z.strictObject({
  content: z.array(ContentSpecSchema).default([]),
  /** Default: `tool_use` if any tool call is in `content`, else `end_turn`. */
  stop_reason: z.enum(STOP_REASONS).optional(),
  stop_sequence: z.string().nullable().optional(),
  usage: UsageSpecSchema.optional(),
  /** Model name reported; default: the request's `model`. */
  model: z.string().min(1).optional(),
  /** Delay before the response headers, in ms. */
  delay_ms: nonNegativeInt.optional(),
  /** Delay between SSE events, in ms. */
  chunk_delay_ms: nonNegativeInt.optional(),
  /** Faults for the first attempts of this step: attempt n gets `errors[n-1]`. */
  errors: z.array(FaultSpecSchema).optional(),
  expect: ExpectSpecSchema.optional(),
});

/** Which conversations a script serves. */
export const MatchSpecSchema = z.strictObject({
  /** The first user message's text contains this. */
  promptContains: z.string().optional(),
});

/** A named list of steps; step n answers a request with n assistant messages. */
export const ScriptSpecSchema = z.strictObject({
  name: z.string().min(1),
  match: MatchSpecSchema.optional(),
  steps: z.array(StepSpecSchema).min(1),
});

/** A scenario file in its canonical form: `{scripts: [...]}`. */
export const ScenarioSchema = z
  .strictObject({
    description: z.string().optional(),
    scripts: z.array(ScriptSpecSchema).min(1),
  })
  .superRefine((s, ctx) => {
    const seen = new Set<string>();
    s.scripts.forEach((script, i) => {
      if (seen.has(script.name)) {
        ctx.addIssue({
          code: 'custom',
          path: ['scripts', i, 'name'],
          message: `duplicate script name "${script.name}"`,
        });
      }
      seen.add(script.name);
    });
  });

/** Shorthand scenario with a single script: top-level `steps` (name defaults to `main`). */
export const ShorthandScenarioSchema = z.strictObject({
  description: z.string().optional(),
  name: z.string().min(1).default('main'),
  match: MatchSpecSchema.optional(),
  steps: z.array(StepSpecSchema).min(1),
});

/** A step as written in a file or returned by a `responder` (defaults not yet applied). */
export type StepSpec = z.input<typeof StepSpecSchema>;
/** A validated step with defaults applied. */
export type Step = z.output<typeof StepSpecSchema>;
/** A content item as written. */
export type ContentSpec = z.input<typeof ContentSpecSchema>;
/** A fault as written. */
export type FaultSpec = z.output<typeof FaultSpecSchema>;
/** Request checks of a step. */
export type ExpectSpec = z.output<typeof ExpectSpecSchema>;
/** A validated script. */
export type Script = z.output<typeof ScriptSpecSchema>;
/** A validated scenario in canonical form. */
export type Scenario = z.output<typeof ScenarioSchema>;
/** A scenario as written: canonical `{scripts}` or the `{steps}` shorthand. */
export type ScenarioInput = z.input<typeof ScenarioSchema> | z.input<typeof ShorthandScenarioSchema>;

/** Thrown by {@link parseScenario} / {@link loadScenarioFile} when a scenario is invalid; the message names the field. */
export class ScenarioError extends Error {
  override readonly name = 'ScenarioError';
}

/** Formats a zod issue path like `scripts[0].steps[1].content[0].tool_use.name`. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out === '' ? String(p) : `.${String(p)}`;
  }
  return out === '' ? '(root)' : out;
}

/** Turns zod issues into `field: problem` lines; unknown keys are named as fields. */
export function formatZodIssues(issues: readonly z.core.$ZodIssue[]): string {
  const lines: string[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        lines.push(`${formatIssuePath([...issue.path, key])}: unknown field`);
      }
    } else {
      lines.push(`${formatIssuePath(issue.path)}: ${issue.message}`);
    }
  }
  return lines.join('; ');
}

/**
 * Validates a scenario object (canonical or shorthand form) and returns the canonical form.
 *
 * @param raw - the parsed YAML/JSON value
 * @param source - named in error messages (e.g. the file path)
 * @throws ScenarioError naming each bad field
 */
export function parseScenario(raw: unknown, source = 'scenario'): Scenario {
  const isShorthand = typeof raw === 'object' && raw !== null && 'steps' in raw && !('scripts' in raw);
  if (isShorthand) {
    const r = ShorthandScenarioSchema.safeParse(raw);
    if (!r.success) {
      throw new ScenarioError(`invalid ${source}: ${formatZodIssues(r.error.issues)}`);
    }
    const { description, ...script } = r.data;
    return description === undefined ? { scripts: [script] } : { description, scripts: [script] };
  }
  const r = ScenarioSchema.safeParse(raw);
  if (!r.success) {
    throw new ScenarioError(`invalid ${source}: ${formatZodIssues(r.error.issues)}`);
  }
  return r.data;
}

/**
 * Validates one step (e.g. a `responder`'s return value) and applies defaults.
 *
 * @throws ScenarioError naming each bad field
 */
export function parseStep(raw: unknown, source = 'step'): Step {
  const r = StepSpecSchema.safeParse(raw);
  if (!r.success) {
    throw new ScenarioError(`invalid ${source}: ${formatZodIssues(r.error.issues)}`);
  }
  return r.data;
}

/**
 * Reads and validates a scenario file: `.json` is parsed as JSON, anything else as YAML.
 *
 * @throws ScenarioError when the file cannot be read, parsed or validated
 */
export function loadScenarioFile(path: string): Scenario {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ScenarioError(`cannot read scenario file ${path}: ${(e as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = extname(path).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    throw new ScenarioError(`cannot parse scenario file ${path}: ${(e as Error).message}`);
  }
  return parseScenario(raw, `scenario file ${path}`);
}
