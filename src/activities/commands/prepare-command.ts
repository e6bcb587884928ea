/**
 * `prepareCommand`: what the model gets for a typed `/name args`, written on the workspace's host
 * before the turn's first model call (Claude Code 2.1.328, docs/reference/claude-code-commands-skills-model.md):
 *
 * - a custom command or skill: one line with the command block (`<command-message>…`) and its
 *   expanded text, the files its `@` references name attached, standing in for the prompt line
 *   (`replacesPrompt`);
 * - a `!` line refused by the permission rules or failing: the failed command's record
 *   (caveat, command, error) in the prompt's place, and an answer line with the error (no model
 *   call; the turn's result);
 * - an unknown `/name`: a note listing the session's commands, sent before the prompt;
 * - a skill under `--bare`: an answer saying it is not available.
 *
 * Idempotent by the uuids the workflow gives: an attempt that finds the lines returns them.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { PrepareCommandInput, PrepareCommandSummary } from '../../common/commands';
import {
  commandMessageText,
  failedCommandBlocks,
  localCommandStderr,
  shellFailureText,
  unavailableCommandText,
} from '../../common/command-text';
import { slashCommandOf } from '../../common/prompt-command';
import type { ContextAttachment } from '../../common/context';
import { ModelErrorType } from '../../common/model';
import type { TranscriptEntry } from '../../common/transcript';
import { TRANSCRIPT_SCHEMA_VERSION } from '../../common/transcript';
import type { Definitions } from '../../config-files/definitions/types';
import { emptyDefinitions } from '../../config-files/definitions/types';
import { findCommand, modelInvocable } from '../../config-files/definitions/catalog';
import { getDefinitions } from '../../store/definitions';
import { MissingContextContentError } from '../../store/context-content';
import type { TranscriptStore } from '../../store/transcript-store';
import type { ChildEnvironments } from '../../env/child-env';
import { readSettingsEnv } from '../settings-env';
import { expandDefinition } from './expand';
import { SYNTHETIC_MODEL } from '../model/request';

/** Built-in commands of the runner, listed after the session's own in the unknown-command note. */
export const RUNNER_COMMANDS: readonly string[] = ['clear', 'compact'];

/** What `prepareCommand` needs from the worker. */
export interface PrepareCommandDeps {
  store: TranscriptStore;
  childEnv: ChildEnvironments;
}

/** The session's definitions by key (none without a key). @throws ApplicationFailure when the key is not in the store */
export async function definitionsOf(
  store: TranscriptStore,
  sessionId: string,
  key: string | undefined,
): Promise<Definitions> {
  if (key === undefined) return emptyDefinitions();
  try {
    return await getDefinitions(store, sessionId, key);
  } catch (err) {
    if (!(err instanceof MissingContextContentError)) throw err;
    throw ApplicationFailure.create({ type: ModelErrorType.Transcript, message: err.message, nonRetryable: true });
  }
}

function promptText(e: TranscriptEntry | undefined): string {
  const c = e?.message?.content;
  if (typeof c === 'string') return c;
  return (c ?? [])
    .filter((b) => b.type === 'text')
    .map((b) => String((b as { text?: unknown }).text ?? ''))
    .join('\n');
}

/** A synthetic assistant line: an answer no model gave (zero usage), for a command that stopped before the model. */
function answerLine(
  input: PrepareCommandInput,
  parentUuid: string,
  text: string,
  localCommand: TranscriptEntry['localCommand'],
): TranscriptEntry {
  return {
    v: TRANSCRIPT_SCHEMA_VERSION,
    type: 'assistant',
    uuid: input.answerUuid,
    parentUuid,
    sessionId: input.sessionId,
    timestamp: new Date().toISOString(),
    turnId: Context.current().info.workflowExecution?.workflowId ?? '',
    message: {
      role: 'assistant',
      id: input.answerUuid,
      type: 'message',
      model: SYNTHETIC_MODEL,
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      diagnostics: null,
      container: null,
      stop_details: null,
    },
    ...(localCommand ? { localCommand } : {}),
  };
}

function userLine(
  input: PrepareCommandInput,
  fields: Pick<TranscriptEntry, 'message'> & Partial<Pick<TranscriptEntry, 'attachments' | 'replacesPrompt'>>,
): TranscriptEntry {
  return {
    v: TRANSCRIPT_SCHEMA_VERSION,
    type: 'user',
    uuid: input.uuid,
    parentUuid: input.parentUuid,
    sessionId: input.sessionId,
    timestamp: new Date().toISOString(),
    turnId: Context.current().info.workflowExecution?.workflowId ?? '',
    isMeta: true,
    ...fields,
  };
}

/** The record of a command that failed before the model: what later requests show of it, in the prompt's place. */
function failedRecord(input: PrepareCommandInput, name: string, args: string, error: string): TranscriptEntry {
  return userLine(input, {
    message: { role: 'user', content: failedCommandBlocks(name, args, error).map((text) => ({ type: 'text', text })) },
    replacesPrompt: input.promptUuid,
  });
}

/** Creates the `prepareCommand` activity. */
export function createPrepareCommand(
  deps: PrepareCommandDeps,
): (input: PrepareCommandInput) => Promise<PrepareCommandSummary> {
  const { store } = deps;
  return async function prepareCommand(input: PrepareCommandInput): Promise<PrepareCommandSummary> {
    const [line, answer] = await Promise.all([
      store.get(input.sessionId, input.uuid),
      store.get(input.sessionId, input.answerUuid),
    ]);
    if (answer?.localCommand?.outcome === 'failed' && !line) {
      // The answer was written and the attempt died before the record: write it from the answer.
      const { command = '', args = '' } = answer.localCommand;
      await store.append(failedRecord(input, command, args, promptText(answer)));
      return { outcome: 'answered', uuid: input.uuid, answerUuid: answer.uuid, localCommand: true, replayed: true };
    }
    if (line || answer) {
      return {
        outcome: answer ? 'answered' : 'expanded',
        ...(line ? { uuid: line.uuid } : {}),
        ...(answer ? { answerUuid: answer.uuid } : {}),
        ...(answer?.localCommand?.outcome === 'failed' ? { localCommand: true } : {}),
        replayed: true,
      };
    }
    const prompt = promptText(await store.get(input.sessionId, input.promptUuid));
    const typed = slashCommandOf(prompt);
    const name = typed?.name ?? '';
    const args = typed?.args ?? '';
    const defs = await definitionsOf(store, input.sessionId, input.definitionsKey);
    const write = async (entries: TranscriptEntry[]): Promise<void> => {
      for (const e of entries) await store.append(e);
    };
    if (input.kind === 'unavailable') {
      const text = unavailableCommandText(name);
      await write([
        answerLine(input, input.parentUuid, text, {
          source: `<local-command-stdout>${text}</local-command-stdout>`,
          outcome: 'unavailable_headless',
        }),
      ]);
      return { outcome: 'answered', answerUuid: input.answerUuid, replayed: false };
    }
    const def = typed ? findCommand(defs, name) : undefined;
    if (input.kind === 'unknown' || !def) {
      const available = [...modelInvocable(defs).map((c) => c.name), ...RUNNER_COMMANDS];
      const note: ContextAttachment = { type: 'unknown_command', command: name, available };
      // The prompt as typed, with the note before it, in the prompt's place.
      await write([
        userLine(input, {
          message: { role: 'user', content: [{ type: 'text', text: prompt }] },
          replacesPrompt: input.promptUuid,
          attachments: [note as unknown as NonNullable<TranscriptEntry['attachments']>[number]],
        }),
      ]);
      return { outcome: 'expanded', uuid: input.uuid, replayed: false };
    }
    const ctx = Context.current();
    const env = deps.childEnv.forTools(input.settingsEnv ? await readSettingsEnv(input.settingsEnv) : undefined);
    const expansion = await expandDefinition(def, args, {
      cwd: input.cwd,
      permission: input.shellPermission,
      env,
      signal: ctx.cancellationSignal,
      style: 'command',
    });
    if (expansion.failure) {
      const error = shellFailureText(expansion.failure);
      const source = localCommandStderr(error).replace(/\n$/, '');
      // The answer first: a retry that finds it writes the record from it.
      await write([
        answerLine(input, input.uuid, error, { source, command: name, args, outcome: 'failed' }),
        failedRecord(input, name, args, error),
      ]);
      return {
        outcome: 'answered',
        uuid: input.uuid,
        answerUuid: input.answerUuid,
        localCommand: true,
        replayed: false,
      };
    }
    await write([
      userLine(input, {
        message: {
          role: 'user',
          content: [
            { type: 'text', text: commandMessageText(name, args) },
            { type: 'text', text: expansion.text },
          ],
        },
        replacesPrompt: input.promptUuid,
        ...(expansion.files.length
          ? { attachments: expansion.files as unknown as NonNullable<TranscriptEntry['attachments']> }
          : {}),
      }),
    ]);
    return { outcome: 'expanded', uuid: input.uuid, replayed: false };
  };
}
