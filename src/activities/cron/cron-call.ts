/**
 * The activities of the Cron tools. The workflow answers the calls (the jobs are the session's
 * tasks, their fires its timers); these read a call's input from the stored tool_use and check it
 * (storing the prompt as content, which never enters workflow history), compute fire times
 * (cron-parser, in the worker's local time zone, as 2.1.328 reads cron in the user's), and write
 * 2.1.328's tool_result texts.
 */
import type { CronCall, CronCallRef, CronJobRow, CronOutcome, CronTaskInfo } from '../../common/cron';
import type { RunToolSummary } from '../../common/tools';
import { SCHEDULED_PROMPT_MAX_CHARS, scheduledPromptTooLongText } from '../../common/scheduled-prompt';
import { storePrompt } from '../../store/prompt-content';
import type { TranscriptStore } from '../../store/transcript-store';
import { writeDenialIfDenied, writeToolResult } from '../agents/tool-result-line';
import { ApplicationFailure } from '@temporalio/common';
import {
  addScheduledTask,
  MALFORMED_SCHEDULED_TASKS,
  processStart,
  removeScheduledTask,
  SCHEDULED_TASKS_FILE,
  scheduledTasksFileProblem,
} from './durable-file';
import {
  checkCron,
  cronCreatedText,
  cronErrorText,
  cronListLine,
  cronOneShotText,
  cronText,
  humanSchedule,
  jobFireAt,
} from './schedule';

export type { CronCall, CronCallRef, CronOutcome } from '../../common/cron';

/** Input of `readCronCall`: the call, the job id the workflow drew, and the workflow's time. */
export type ReadCronCallInput = CronCallRef & { id: string; nowMs: number };

const toolError = (message: string): string => `<tool_use_error>${message}</tool_use_error>`;

async function useInput(store: TranscriptStore, i: CronCallRef): Promise<Record<string, unknown>> {
  const line = await store.get(i.sessionId, i.assistantUuid);
  const content = Array.isArray(line?.message?.content) ? line.message.content : [];
  const use = content.find((b) => b.type === 'tool_use' && (b as { id?: string }).id === i.toolUseId) as
    { input?: Record<string, unknown> } | undefined;
  return use?.input ?? {};
}

/** Creates `readCronCall`: what a CronCreate/CronList/CronDelete call asks, or its error result written. */
export function createReadCronCall(store: TranscriptStore): (i: ReadCronCallInput) => Promise<CronCall> {
  return async ({ id, nowMs, permission, ...ref }) => {
    const input = await useInput(store, ref);
    const denied = await writeDenialIfDenied(store, ref, permission, input);
    if (denied) return { kind: 'invalid', result: denied };
    const invalid = async (message: string): Promise<CronCall> => ({
      kind: 'invalid',
      result: await writeToolResult(store, {
        ...ref,
        content: toolError(message),
        isError: true,
        structured: `Error: ${message}`,
        outcome: 'error',
      }),
    });
    if (ref.toolName === 'CronList') return { kind: 'list' };
    if (ref.toolName === 'CronDelete') {
      const target = input['id'];
      if (typeof target !== 'string') return invalid('The required parameter `id` is missing');
      return { kind: 'delete', id: target };
    }
    const cron = input['cron'];
    const prompt = input['prompt'];
    if (typeof cron !== 'string') return invalid('The required parameter `cron` is missing');
    if (typeof prompt !== 'string') return invalid('The required parameter `prompt` is missing');
    if (prompt.length > SCHEDULED_PROMPT_MAX_CHARS) return invalid(scheduledPromptTooLongText(prompt.length));
    const recurring = input['recurring'] !== false;
    const checked = checkCron(cron, nowMs);
    if (!checked.ok) return invalid(checked.message);
    const next = jobFireAt({ cron: checked.cron, id, recurring }, nowMs);
    if (next === null) return invalid(cronErrorText.never(cron));
    const durable = input['durable'] === true;
    if (durable && ref.cwd !== undefined) {
      const problem = await scheduledTasksFileProblem(ref.cwd);
      if (problem !== null) return invalid(`durable: true cannot be kept: ${problem}`);
    }
    const job: CronTaskInfo = {
      cron: checked.cron,
      humanSchedule: humanSchedule(checked.cron),
      recurring,
      durable,
      promptRef: await storePrompt(store, ref.sessionId, prompt),
      createdAtMs: nowMs,
      nextFireAtMs: next,
      fires: 0,
      failedFires: 0,
    };
    return { kind: 'create', job };
  };
}

/** Creates `nextCronFire`: a recurring job's fire after the one at `fromMs` (null: none within the next year). */
export function createNextCronFire(): (i: { cron: string; id: string; fromMs: number }) => Promise<number | null> {
  return async ({ cron, id, fromMs }) => Promise.resolve(jobFireAt({ cron, id, recurring: true }, fromMs));
}

/** Creates `recordCronResult`: the call's tool_result, with 2.1.328's text and `tool_use_result`. */
export function createRecordCronResult(
  store: TranscriptStore,
): (i: CronCallRef & { outcome: CronOutcome }) => Promise<RunToolSummary> {
  return async ({ outcome, cwd, ...ref }) => {
    const ok = (content: string, structured: unknown): Promise<RunToolSummary> =>
      writeToolResult(store, { ...ref, content, isError: false, structured, outcome: 'ok' });
    switch (outcome.kind) {
      case 'created': {
        const { id, job } = outcome;
        if (job.durable && cwd !== undefined) {
          const prompt = (await store.getContent(ref.sessionId, job.promptRef.key))?.toString('utf8') ?? '';
          await addScheduledTask(cwd, {
            id,
            cron: job.cron,
            prompt,
            createdAt: job.createdAtMs,
            ...(job.recurring ? { recurring: true as const } : {}),
            createdBySessionId: ref.sessionId,
            createdByPid: process.pid,
            createdByProcStart: processStart(),
            createdInProject: cwd,
          });
        }
        const text = job.recurring
          ? cronCreatedText(id, job.humanSchedule, job.nextFireAtMs, job.durable)
          : cronOneShotText(id, job.humanSchedule, job.nextFireAtMs, job.durable);
        return ok(text, {
          id,
          humanSchedule: job.humanSchedule,
          recurring: job.recurring,
          durable: job.durable,
          nextFireAt: job.nextFireAtMs,
        });
      }
      case 'listed': {
        const jobs = await Promise.all(outcome.jobs.map((j) => withPrompt(store, ref.sessionId, j)));
        const text =
          jobs.length === 0
            ? cronText.none
            : jobs
                .map((j) =>
                  cronListLine({
                    id: j.id,
                    human: j.humanSchedule,
                    recurring: j.recurring,
                    durable: j.durable,
                    nextFireAt: j.nextFireAt,
                    prompt: j.prompt,
                  }),
                )
                .join('\n');
        return ok(text, { jobs });
      }
      case 'deleted':
        if (!outcome.deleted) {
          const message = cronErrorText.unknownId(outcome.id);
          return writeToolResult(store, {
            ...ref,
            content: toolError(message),
            isError: true,
            structured: `Error: ${message}`,
            outcome: 'error',
          });
        }
        if (outcome.durable && cwd !== undefined) {
          // The job has left the session; a file that cannot be updated is said, not a failed turn.
          const note = await removeScheduledTask(cwd, outcome.id).then(
            () => '',
            (e: unknown) => {
              if (e instanceof ApplicationFailure && e.type === MALFORMED_SCHEDULED_TASKS)
                return `\n(The project's ${SCHEDULED_TASKS_FILE} was not updated: ${e.message})`;
              throw e;
            },
          );
          return ok(cronText.cancelled(outcome.id) + note, { id: outcome.id });
        }
        return ok(cronText.cancelled(outcome.id), { id: outcome.id });
    }
  };
}

/** A CronList row as 2.1.328's `tool_use_result` has it, with the prompt read back. */
async function withPrompt(
  store: TranscriptStore,
  sessionId: string,
  j: CronJobRow,
): Promise<{
  id: string;
  cron: string;
  humanSchedule: string;
  prompt: string;
  recurring: boolean;
  durable: boolean;
  nextFireAt: number;
}> {
  const body = await store.getContent(sessionId, j.promptRef.key);
  return {
    id: j.id,
    cron: j.cron,
    humanSchedule: j.humanSchedule,
    prompt: body ? body.toString('utf8') : '',
    recurring: j.recurring,
    durable: j.durable,
    nextFireAt: j.nextFireAtMs,
  };
}
