/**
 * `agent-runner approvals list|approve|deny|answer`: answer the tool calls that turns wait on,
 * from any process that reaches the server (and the transcript store). `answer` takes one JSON
 * object (argument or stdin) and prints one JSON object: the form for a chat bot or a CI gate.
 */
import type { Config } from '../../config';
import type { ApprovalDecision, ApprovalView } from '../../client/approvals';
import { ApprovalNotFoundError, RUNNING_SESSION_QUERY_MS, answerApproval, listApprovals } from '../../client/approvals';
import type { ControlIo } from '../control';
import { kvTable, openControlRuntime } from '../control';
import { EXIT } from '../output';
import { UsageError } from '../turn-options';
import { withControlErrors } from './control-errors';

/** Flags of `approvals list`. */
export interface ApprovalsListFlags {
  session?: string;
  json?: boolean;
}

/** Flags of `approvals approve|deny`. */
export interface ApprovalsAnswerFlags {
  message?: string;
  /** `approve`: the input to run the tool with instead (JSON object). */
  updatedInput?: string;
  /** `approve` of an AskUserQuestion call: the person's choices, question text → label (JSON object of strings). */
  answers?: string;
  json?: boolean;
}

function inputPreview(input: unknown): string {
  const s = JSON.stringify(input ?? {});
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
}

/** The human-readable list. */
export function formatApprovals(list: readonly ApprovalView[]): string {
  if (list.length === 0) return 'no pending approvals';
  return list
    .map((a) =>
      kvTable([
        ['approval', a.approvalId],
        ['  tool', `${a.toolName} ${inputPreview(a.input)}`],
        ['  why', a.reason],
        ['  waiting since', a.requestedAt],
        ['  on timeout', a.expiresAt ? `${a.onTimeout} at ${a.expiresAt}` : 'never times out'],
      ]),
    )
    .join('\n\n');
}

/** `approvals list`. */
export async function runApprovalsList(config: Config, flags: ApprovalsListFlags, io: ControlIo): Promise<number> {
  return withControlErrors(io, async () => {
    const rt = await openControlRuntime(config, 'approvals list');
    try {
      const unanswered: string[] = [];
      const list = await listApprovals(rt.client, rt.store, {
        ...(flags.session ? { sessionId: flags.session } : {}),
        onUnanswered: (id) => unanswered.push(id),
      });
      if (unanswered.length > 0) {
        io.stderr(
          `agent-runner approvals: ${unanswered.length} running session(s) did not answer within ${RUNNING_SESSION_QUERY_MS / 1000} s ` +
            `(no worker is running them now; their approvals, if any, show once a worker picks them up): ${unanswered.join(', ')}`,
        );
      }
      if (flags.json) for (const a of list) io.stdout(JSON.stringify(a));
      else io.stdout(formatApprovals(list));
      return EXIT.success;
    } finally {
      await rt.close();
    }
  });
}

function jsonObject(flag: string, text: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${flag}: not valid JSON (${(e as Error).message})`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new UsageError(`${flag}: expected a JSON object`);
  return v as Record<string, unknown>;
}

/** AskUserQuestion's answers: an object of strings (question text → the chosen label or labels). */
function answersOf(flag: string, v: unknown): Record<string, string> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new UsageError(`${flag}: expected a JSON object`);
  for (const [q, a] of Object.entries(v)) {
    if (typeof a !== 'string') throw new UsageError(`${flag}: the answer to "${q}" must be a string`);
  }
  return v as Record<string, string>;
}

async function answer(config: Config, d: ApprovalDecision, json: boolean, io: ControlIo): Promise<number> {
  return withControlErrors(io, async () => {
    const rt = await openControlRuntime(config, `approvals ${d.behavior === 'allow' ? 'approve' : 'deny'}`);
    try {
      const answered = await answerApproval(rt.client, rt.store, d);
      io.stdout(
        json
          ? JSON.stringify({
              ok: true,
              approvalId: answered.approvalId,
              behavior: d.behavior,
              toolName: answered.toolName,
            })
          : `${d.behavior === 'allow' ? 'approved' : 'denied'}: ${answered.approvalId} (${answered.toolName})`,
      );
      return EXIT.success;
    } catch (e) {
      if (!(e instanceof ApprovalNotFoundError)) throw e;
      if (json) io.stdout(JSON.stringify({ ok: false, approvalId: d.approvalId, error: e.message }));
      else io.stderr(`agent-runner: ${e.message}`);
      return EXIT.error;
    } finally {
      await rt.close();
    }
  });
}

/** `approvals approve|deny <id> [--message …] [--updated-input <json>]`. */
export async function runApprovalsAnswer(
  config: Config,
  behavior: 'allow' | 'deny',
  approvalId: string,
  flags: ApprovalsAnswerFlags,
  io: ControlIo,
): Promise<number> {
  if (flags.updatedInput !== undefined && behavior === 'deny')
    throw new UsageError('--updated-input applies to approve only');
  if (flags.answers !== undefined && behavior === 'deny') throw new UsageError('--answers applies to approve only');
  const updatedInput = flags.updatedInput !== undefined ? jsonObject('--updated-input', flags.updatedInput) : undefined;
  const answers =
    flags.answers !== undefined ? answersOf('--answers', jsonObject('--answers', flags.answers)) : undefined;
  return answer(
    config,
    {
      approvalId,
      behavior,
      ...(flags.message !== undefined ? { message: flags.message } : {}),
      ...(updatedInput ? { updatedInput } : {}),
      ...(answers ? { answers } : {}),
      by: 'cli',
    },
    flags.json === true,
    io,
  );
}

/**
 * `approvals answer [<json>]` (stdin when absent): `{"approvalId"|"id", "behavior": "allow"|"deny",
 * "message"?, "updatedInput"?}` → `{"ok": true, …}` or `{"ok": false, "error"}` on stdout.
 */
export async function runApprovalsJson(config: Config, text: string, io: ControlIo): Promise<number> {
  const o = jsonObject('approval answer', text);
  const approvalId = o['approvalId'] ?? o['id'];
  const behavior = o['behavior'] === 'approve' ? 'allow' : o['behavior'];
  if (typeof approvalId !== 'string' || approvalId === '')
    throw new UsageError('approval answer: approvalId: expected a string');
  if (behavior !== 'allow' && behavior !== 'deny')
    throw new UsageError('approval answer: behavior: expected "allow" or "deny"');
  const message = o['message'];
  if (message !== undefined && typeof message !== 'string')
    throw new UsageError('approval answer: message: expected a string');
  const updated = o['updatedInput'];
  if (updated !== undefined && (updated === null || typeof updated !== 'object' || Array.isArray(updated))) {
    throw new UsageError('approval answer: updatedInput: expected an object');
  }
  const answers = o['answers'] !== undefined ? answersOf('approval answer: answers', o['answers']) : undefined;
  return answer(
    config,
    {
      approvalId,
      behavior,
      ...(message !== undefined ? { message } : {}),
      ...(updated !== undefined ? { updatedInput: updated as Record<string, unknown> } : {}),
      ...(answers ? { answers } : {}),
      by: 'webhook',
    },
    true,
    io,
  );
}
