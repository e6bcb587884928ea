/**
 * What `runTool` does with one call, decided from what it has read: the stored call, the checks
 * of its input, the permission. Pure: the activity gathers the facts (src/activities/tool-run/
 * call.ts), asks {@link planToolCall}, and then executes the plan, snapshots the workspace and
 * records the result, each a step of its own.
 */

/** What the activity knows of a call before anything runs. */
export interface ToolCallFacts {
  /** Set by the workflow when the call must not run (an interrupt, a budget stop, a hook): why. */
  skipReason?: string;
  /** The `tool_use` block is in the stored assistant line. */
  found: boolean;
  /** The model's input as sent, when it was not valid JSON. */
  invalidJson?: string;
  /** Why the system calls would refuse the input (a NUL byte in a path), in the model's words. */
  inputFault?: string;
  /** The permission check failed with a fault retrying cannot fix: its message for the model. */
  fault?: string;
  /** The permission decided for the input and the files (`ask` is a denial someone could lift). */
  permission: { behavior: 'allow' } | { behavior: 'deny'; message: string; ask?: boolean };
  /** Someone can answer an `ask` (the turn has durable approvals). */
  askable: boolean;
  /** For a StructuredOutput call of a turn with a JSON Schema: the schema's content key. */
  jsonSchemaKey?: string;
  /** The tool may run again after a crash (Read, Glob, Grep); the others get a run marker first. */
  idempotent: boolean;
}

/** Longest reason of an `ask` that travels back to the workflow (characters). */
export const MAX_ASK_REASON_CHARS = 2048;

/**
 * What to do with a call. Every kind but `ask` ends in one tool_result line; `ask` writes
 * nothing (the workflow waits for the answer and runs the call again with it).
 */
export type ToolCallPlan =
  /** Someone can decide: return the question, write nothing. */
  | { kind: 'ask'; reason: string }
  /** The workflow said not to run it: the reason is the is_error result. */
  | { kind: 'skipped'; reason: string }
  /** The call is not in the stored assistant line. */
  | { kind: 'not-found' }
  /** Claude Code's InputValidationError for input that did not parse. */
  | { kind: 'invalid-json'; raw: string }
  /** An input the system would reject, answered before anything touches the files. */
  | { kind: 'input-fault'; message: string }
  /** The permission check failed for good: its error is the result. */
  | { kind: 'fault'; message: string }
  /** Refused by a rule, the mode, a hook or an approver. */
  | { kind: 'denied'; message: string }
  /** Checked against the schema; a valid object is the turn's structured output. */
  | { kind: 'structured-output'; jsonSchemaKey: string }
  /** Run the tool; `marked`: write its run marker first (a crash then never re-runs it). */
  | { kind: 'run'; marked: boolean };

/** The plan of one call: the first fact that decides it, in the order below. */
export function planToolCall(f: ToolCallFacts): ToolCallPlan {
  if (f.skipReason !== undefined) return { kind: 'skipped', reason: f.skipReason };
  if (!f.found) return { kind: 'not-found' };
  if (f.invalidJson !== undefined) return { kind: 'invalid-json', raw: f.invalidJson };
  if (f.inputFault !== undefined) return { kind: 'input-fault', message: f.inputFault };
  if (f.fault !== undefined) return { kind: 'fault', message: f.fault };
  if (f.permission.behavior === 'deny') {
    if (f.permission.ask && f.askable) {
      return { kind: 'ask', reason: f.permission.message.slice(0, MAX_ASK_REASON_CHARS) };
    }
    return { kind: 'denied', message: f.permission.message };
  }
  if (f.jsonSchemaKey !== undefined) return { kind: 'structured-output', jsonSchemaKey: f.jsonSchemaKey };
  return { kind: 'run', marked: !f.idempotent };
}
