/**
 * `--fallback-model`: after repeated overloaded errors (HTTP 529) the turn switches to the
 * fallback model for the rest of the turn, and says so in the stream. Pure.
 */
import { ModelErrorType } from '../common/model';

/**
 * Attempts of one call, the last of them overloaded, before the turn switches model (Claude
 * Code switches on its third overloaded answer).
 */
export const OVERLOADED_ATTEMPTS_BEFORE_FALLBACK = 3;

/** The model to switch to after `failureType`, or null to fail the turn as usual. */
export function fallbackFor(
  failureType: string,
  current: string,
  options: { model: string; fallbackModel?: string },
): string | null {
  if (failureType !== ModelErrorType.Overloaded || options.fallbackModel === undefined) return null;
  return current === options.fallbackModel ? null : options.fallbackModel;
}

/** The notice of a switch (`system/model_fallback` `content`). */
export function fallbackNotice(from: string, to: string): string {
  return `Switched to ${to} due to high demand for ${from}`;
}
