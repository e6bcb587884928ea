import { homedir } from 'node:os';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { ContextAttachment, LoadContextInput, LoadContextSummary, MemoryFile } from '../../common/context';
import { ContextErrorType } from '../../common/context';
import { TRANSCRIPT_SCHEMA_VERSION } from '../../common/transcript';
import type { TranscriptEntry } from '../../common/transcript';
import { MemoryImportCycleError } from '../../config-files/memory-files';
import { loadSessionContext } from './session-context';
import { planFilePath } from './plan-mode';
import { getContextContent, MissingContextContentError } from '../../store/context-content';
import { modelInvocable } from '../../config-files/definitions/catalog';
import { definitionsOf } from '../commands/prepare-command';
import type { TranscriptStore } from '../../store/transcript-store';

/** The text of a prompt line (its text blocks joined). */
function promptText(line: TranscriptEntry | undefined): string {
  const content = line?.message?.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as Array<{ type?: string; text?: unknown }>)
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join(' ');
}

function summaryOf(entry: TranscriptEntry, replayed: boolean, warnings: number): LoadContextSummary {
  const attachments = (entry.attachments ?? []) as unknown as ContextAttachment[];
  const instructions = attachments.find((a) => a.type === 'instructions');
  const environment = attachments.find((a) => a.type === 'environment');
  const planFile = environment?.type === 'environment' ? environment.planFile : undefined;
  return {
    uuid: entry.uuid,
    memoryFiles: instructions?.type === 'instructions' ? instructions.files.length : 0,
    warnings,
    replayed,
    ...(planFile !== undefined ? { planFile } : {}),
  };
}

/**
 * Creates `loadContext`: on the worker, where the working tree is, reads the session's memory
 * files, a git status snapshot and the environment, and writes them as one `attachment` line
 * after the first prompt (the request builder renders it into every call of the session).
 * Idempotent by the line's uuid: a retry returns what the store holds. Warnings go to the worker
 * log (the CLI shows the same ones before it starts).
 * @throws ApplicationFailure `ContextError.MemoryImportCycle` (non-retryable) naming the files.
 */
export function createLoadContext(store: TranscriptStore): (input: LoadContextInput) => Promise<LoadContextSummary> {
  return async function loadContext(input: LoadContextInput): Promise<LoadContextSummary> {
    const existing = await store.get(input.sessionId, input.uuid);
    if (existing) return summaryOf(existing, true, 0);
    let userMemory: MemoryFile[] = [];
    if (input.userMemoryKey !== undefined) {
      try {
        userMemory = JSON.parse(await getContextContent(store, input.sessionId, input.userMemoryKey)) as MemoryFile[];
      } catch (err) {
        if (!(err instanceof MissingContextContentError)) throw err;
        throw ApplicationFailure.create({
          type: ContextErrorType.MissingContent,
          nonRetryable: true,
          message: err.message,
        });
      }
    }
    let loaded;
    try {
      loaded = await loadSessionContext({
        cwd: input.cwd,
        model: input.model,
        ...(input.settingSources ? { sources: input.settingSources } : {}),
        userMemory,
        gitStatus: input.gitStatus,
      });
    } catch (err) {
      if (err instanceof MemoryImportCycleError) {
        throw ApplicationFailure.create({
          type: ContextErrorType.MemoryImportCycle,
          nonRetryable: true,
          message: err.message,
        });
      }
      throw err;
    }
    const ctx = Context.current();
    for (const w of loaded.warnings) ctx.log.warn(w, { sessionId: input.sessionId });
    // The skills the model may load, listed once for the session (a stable prefix for the cache).
    const skills =
      input.definitionsKey === undefined
        ? []
        : modelInvocable(await definitionsOf(store, input.sessionId, input.definitionsKey)).map((c) => ({
            name: c.name,
            description: c.description,
          }));
    // Plan mode names the session's plan file, after the words of its prompt.
    const planFile = input.planMode
      ? planFilePath(homedir(), promptText(await store.get(input.sessionId, input.parentUuid)), input.sessionId)
      : undefined;
    const attachments: ContextAttachment[] = [
      ...loaded.attachments.map((a) => (a.type === 'environment' && planFile !== undefined ? { ...a, planFile } : a)),
      ...(skills.length ? [{ type: 'skill_listing' as const, skills }] : []),
    ];
    const entry: TranscriptEntry = {
      v: TRANSCRIPT_SCHEMA_VERSION,
      type: 'attachment',
      uuid: input.uuid,
      parentUuid: input.parentUuid,
      sessionId: input.sessionId,
      timestamp: new Date().toISOString(),
      turnId: ctx.info.workflowExecution?.workflowId ?? '',
      attachments: attachments as unknown as TranscriptEntry['attachments'],
      settingSources: input.settingSources ?? ['user', 'project', 'local'],
    };
    // First writer wins: a superseded attempt that wrote meanwhile decides what is stored.
    const written = await store.append(entry);
    const stored = written ? entry : ((await store.get(input.sessionId, input.uuid)) ?? entry);
    return summaryOf(stored, !written, loaded.warnings.length);
  };
}
