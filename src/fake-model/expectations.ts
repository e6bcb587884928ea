import type { ParsedRequest } from './request';
import { systemText, toolResultBlocks, toolResultText } from './request';
import type { ExpectSpec } from './scenario';

/** Prefix of the 400 message sent when a step's `expect` check fails. */
export const EXPECTATION_FAILED_PREFIX = 'fake-model: expectation failed:';

function show(text: string, max = 300): string {
  const s = JSON.stringify(text);
  return s.length > max ? `${s.slice(0, max)}…" (${text.length} chars)` : s;
}

/**
 * Checks a request against a step's `expect` block.
 *
 * @returns one line per failed check, saying what was expected and what came (empty when all pass)
 */
export function checkExpectations(expect: ExpectSpec | undefined, req: ParsedRequest): string[] {
  if (expect === undefined) return [];
  const failures: string[] = [];
  const results = toolResultBlocks(req);
  const last = results[results.length - 1];

  if (expect.lastToolResultContains !== undefined) {
    if (last === undefined) {
      failures.push(
        `lastToolResultContains: expected the last tool_result to contain ${show(expect.lastToolResultContains)}, but the request has no tool_result`,
      );
    } else if (!toolResultText(last).includes(expect.lastToolResultContains)) {
      failures.push(
        `lastToolResultContains: expected the last tool_result to contain ${show(expect.lastToolResultContains)}, got ${show(toolResultText(last))}`,
      );
    }
  }
  if (expect.lastToolResultIsError !== undefined) {
    if (last === undefined) {
      failures.push(
        `lastToolResultIsError: expected a last tool_result with is_error=${String(expect.lastToolResultIsError)}, but the request has no tool_result`,
      );
    } else {
      const isError = last['is_error'] === true;
      if (isError !== expect.lastToolResultIsError) {
        failures.push(
          `lastToolResultIsError: expected is_error=${String(expect.lastToolResultIsError)}, got is_error=${String(isError)} (content ${show(toolResultText(last), 120)})`,
        );
      }
    }
  }
  if (expect.systemContains !== undefined) {
    const system = systemText(req);
    if (!system.includes(expect.systemContains)) {
      failures.push(
        `systemContains: expected the system prompt to contain ${show(expect.systemContains)}, got ${show(system)}`,
      );
    }
  }
  if (expect.messagesCount !== undefined && req.messages.length !== expect.messagesCount) {
    failures.push(`messagesCount: expected ${expect.messagesCount} messages, got ${req.messages.length}`);
  }
  if (expect.toolsInclude !== undefined) {
    const names = (req.tools ?? []).map((t) => t.name).filter((n): n is string => typeof n === 'string');
    const missing = expect.toolsInclude.filter((n) => !names.includes(n));
    if (missing.length > 0) {
      failures.push(`toolsInclude: expected tools ${JSON.stringify(missing)}, got tools ${JSON.stringify(names)}`);
    }
  }
  return failures;
}
