import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import { ModelErrorType } from '../common/model';
import { ToolErrorType } from '../common/tools';
import type { ModelErrorDetails } from '../common/model';

/** A failed model call after Temporal's retries, as the turn workflow sees it. */
export interface ModelFailure {
  /** `ApplicationFailure.type` set by the activity (`ModelError.*`, `TranscriptError…`), or `Error`. */
  type: string;
  message: string;
  /** HTTP status of the API's answer, when there was one. */
  status: number | null;
  /** Usage the failed call's attempts were billed (the turn counts it). */
  billed?: NonNullable<ModelErrorDetails['billed']>;
  /** A "prompt is too long" caused by the newest prompt itself: compaction cannot help. */
  promptOverLimit?: boolean;
  /** A rate pool member's 429: the response's rate headers. */
  rate?: ModelErrorDetails['rate'];
}

/** The one place where the workflow normalizes an activity error (ActivityFailure → cause). */
export function modelFailureOf(err: unknown): ModelFailure {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure) {
    const details = cause.details?.[0] as Partial<ModelErrorDetails> | undefined;
    return {
      type: cause.type ?? 'Error',
      message: cause.message,
      status: details?.status ?? null,
      ...(details?.billed ? { billed: details.billed } : {}),
      ...(details?.promptOverLimit === true ? { promptOverLimit: true } : {}),
      ...(details?.rate ? { rate: details.rate } : {}),
    };
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  return { type: 'Error', message, status: null };
}

/** The text of a failure in a result's `errors` (after the `[ede_diagnostic]` line). */
export function failureText(f: ModelFailure): string {
  if (f.promptOverLimit) {
    return `Prompt is too long: the prompt alone is over the model's context window (API Error${f.status ? ` ${f.status}` : ''}: ${f.message}). Send a shorter prompt, or put the material in a file the agent can read.`;
  }
  return f.type.startsWith(ModelErrorType.Transcript)
    ? `Transcript store error: ${f.message} (${f.type})`
    : `API Error${f.status ? ` ${f.status}` : ''}: ${f.message} (${f.type})`;
}

/** `terminal_reason` of a turn ended by a model failure. */
export function failureTerminalReason(f: ModelFailure): 'prompt_too_long' | 'api_error' {
  return f.type === ModelErrorType.PromptTooLong ? 'prompt_too_long' : 'api_error';
}

/**
 * The message of a tool run that failed with a fault retrying cannot fix (`Tool.Fault`, see
 * src/activities/tool-faults.ts), or undefined for any other error.
 */
export function toolFaultOf(err: unknown): string | undefined {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure && cause.type === ToolErrorType.Fault ? cause.message : undefined;
}
