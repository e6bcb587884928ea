import { HOOK_CONFIG_ERROR_PREFIX } from '../common/hooks';
import type { SDKMessage, SDKResultMessage } from '../common/sdk-messages';

/** Output formats of `-p`, as in `claude -p`. */
export const OUTPUT_FORMATS = ['text', 'json', 'stream-json'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** Input formats of `-p`, as in `claude -p`. */
export const INPUT_FORMATS = ['text', 'stream-json'] as const;
export type InputFormat = (typeof INPUT_FORMATS)[number];

/** Exit codes of `agent-runner`. */
export const EXIT = {
  /** The turn ended with a success result. */
  success: 0,
  /** The turn ended with an error result, or the run failed (server unreachable, worker crash). */
  error: 1,
  /** Bad usage or configuration: nothing was run. */
  usage: 2,
} as const;

/** The text of a `system`/`informational` notice (not in the SDK's message types), or null. */
function noticeText(m: unknown): string | null {
  const n = m as { subtype?: unknown; content?: unknown };
  return n.subtype === 'informational' ? String(n.content ?? '') : null;
}

/** One-line human summary of a message, for `--verbose` progress on stderr. */
export function describeMessage(m: SDKMessage): string | null {
  switch (m.type) {
    case 'system':
      if (m.subtype === 'init') return `session ${m.session_id} · model ${m.model} · cwd ${m.cwd}`;
      if (m.subtype === 'permission_denied') return null; // its tool result follows
      if (m.subtype === 'status' || m.subtype === 'thinking_tokens') return null;
      if (m.subtype === 'model_fallback') return m.content;
      if (m.subtype === 'microcompact_boundary') {
        const mc = m.microcompact_metadata;
        return `old tool results cleared (${mc.cleared_tool_results} results, about ${mc.tokens_saved} tokens freed)`;
      }
      if (m.subtype === 'content_replacement') {
        const cr = m.content_replacement_metadata;
        return `large tool results sent by reference (${cr.replaced_tool_results} results, about ${cr.tokens_saved} tokens freed)`;
      }
      if (m.subtype === 'snip_boundary') {
        const sn = m.snip_metadata;
        return `stale rounds left out (${sn.snipped_rounds} rounds, about ${sn.tokens_saved} tokens freed)`;
      }
      if (m.subtype === 'collapse_boundary') {
        const cl = m.collapse_metadata;
        return `old rounds collapsed (${cl.collapsed_rounds} rounds, about ${cl.tokens_saved} tokens freed)`;
      }
      if (m.subtype === 'compact_boundary') return `context compacted (${m.compact_metadata.pre_tokens} tokens before)`;
      // A notice (a refusal, the Stop-hook cap, a blocked prompt); notifications repeat it.
      return noticeText(m);
    case 'assistant': {
      const content = (m.message['content'] ?? []) as Array<Record<string, unknown>>;
      const parts = content.map((b) =>
        b['type'] === 'tool_use'
          ? `→ ${String(b['name'])} ${JSON.stringify(b['input']).slice(0, 160)}`
          : b['type'] === 'text'
            ? `assistant: ${String(b['text']).slice(0, 300)}`
            : `[${String(b['type'])}]`,
      );
      return parts.join('\n');
    }
    case 'user': {
      const content = m.message.content;
      if (!Array.isArray(content)) return null;
      return content
        .map((b: Record<string, unknown>) => {
          if (b['type'] !== 'tool_result') return null;
          const c = b['content'];
          const text = typeof c === 'string' ? c : JSON.stringify(c);
          const firstLine = text.split('\n')[0]?.slice(0, 160) ?? '';
          return `  ${b['is_error'] ? '✗' : '✓'} ${firstLine}${text.includes('\n') ? ' …' : ''}`;
        })
        .filter((s): s is string => s !== null)
        .join('\n');
    }
    case 'result':
      return `${m.subtype} · ${m.num_turns} model calls · $${m.total_cost_usd.toFixed(4)}${m.total_cost_usd_known ? '' : ' (some cost unknown)'} · ${m.duration_ms} ms`;
    default:
      return null;
  }
}

/** Exit code for a result message. */
export function exitCodeFor(result: SDKResultMessage | undefined): number {
  if (result && SETUP_STOPS.has(result.terminal_reason)) return EXIT.usage;
  if (result?.terminal_reason === 'turn_setup_failed') return EXIT.usage; // e.g. an MCP server did not start
  if (result?.is_error && result.errors?.some((e) => e.startsWith(HOOK_CONFIG_ERROR_PREFIX))) return EXIT.usage;
  return result && !result.is_error ? EXIT.success : EXIT.error;
}

/**
 * Terminal reasons of turns stopped by the setup rather than the task, which the user fixes
 * before resuming (exit 2): a workspace snapshot over `workspace.maxSnapshotBytes`.
 */
const SETUP_STOPS = new Set(['workspace_snapshot_too_large']);

/**
 * What text mode prints: the result text, or for an error result an `Error: …` line. A task's
 * error (exit 1) goes to stdout as `claude -p` prints it (a script's `out=$(…)` gets it), the two
 * limits in Claude Code's words (`Error: Reached max turns (N)`, `Error: Exceeded USD budget
 * (X)`, checked against 2.1.328); other errors name the subtype and the errors. A setup error
 * (exit 2: an MCP server that does not start, a hook misconfigured) goes to stderr, as usage
 * errors do.
 */
export function textOutput(result: SDKResultMessage): { stdout: string; stderr: string } {
  if (!result.is_error) return { stdout: result.result ?? '', stderr: '' };
  const errors = (result.errors ?? []).filter((e) => !e.startsWith('[ede_diagnostic]'));
  const limit = (re: RegExp): string | undefined => errors.map((e) => re.exec(e)?.[1]).find((v) => v !== undefined);
  const turns = result.subtype === 'error_max_turns' ? limit(/maximum number of turns \((\d+)\)/) : undefined;
  const usd = result.subtype === 'error_max_budget_usd' ? limit(/maximum budget \(\$([^)]+)\)/) : undefined;
  const line =
    turns !== undefined
      ? `Error: Reached max turns (${turns})`
      : usd !== undefined
        ? `Error: Exceeded USD budget (${usd})`
        : `Error: ${result.subtype}${errors.length ? `: ${errors.join('; ')}` : ''}`;
  return exitCodeFor(result) === EXIT.usage ? { stdout: '', stderr: line } : { stdout: line, stderr: '' };
}

/**
 * The stderr notice of a turn whose workspace moved to another host (the host that held it was
 * gone, or its tree was deleted): where it was, where the turn ran, and how to get the tree. Null
 * when the workspace did not move during the turn.
 */
export function workspaceMoveNotice(result: SDKResultMessage): string | null {
  const ws = result.workspace;
  if (!ws?.moved_from) return null;
  return (
    `agent-runner: the workspace of session ${result.session_id} was not found at ` +
    `${ws.moved_from.host}:${ws.moved_from.path}; this turn ran in a copy rebuilt from its last snapshot ` +
    `at ${ws.host}:${ws.path} (agent-runner workspace export ${result.session_id} --to DIR copies it out)`
  );
}
