/**
 * The agent loop without Temporal: the same activity functions (`createActivities`: same store,
 * same Anthropic client, same tools) called in a plain loop inside a hand-made activity context.
 * The baseline the runner's per-step overhead is compared with.
 */
import { randomUUID } from 'node:crypto';
import { asyncLocalStorage, Context } from '@temporalio/activity';
import type { Info } from '@temporalio/activity';
import { noopMetricMeter } from '@temporalio/common';
import type { Activities } from '../src/activities';
import type { TurnOptions } from '../src/common/turn';

/** A context that lets activity code run outside a worker: heartbeats go nowhere, nothing cancels it. */
export function benchContext(workflowId: string): Context {
  const info = {
    workflowExecution: { workflowId, runId: '' },
    activityType: 'inProcess',
    activityId: '1',
    attempt: 1,
  } as unknown as Info;
  const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };
  return new Context(
    info,
    new Promise<never>(() => undefined),
    new AbortController().signal,
    () => undefined,
    undefined,
    quiet,
    noopMetricMeter,
    {} as never,
  );
}

/**
 * Runs one turn the way `turnWorkflow` does (record the prompt, then call the model and run each
 * tool it asks for, sequentially, until it stops), without Temporal.
 * @returns the number of model calls.
 */
export async function runInProcessTurn(
  acts: Activities,
  args: { sessionId: string; cwd: string; prompt: string; options: TurnOptions },
): Promise<number> {
  const { sessionId, cwd, prompt, options } = args;
  return asyncLocalStorage.run(benchContext(`in-process-${sessionId}`), async () => {
    const promptUuid = randomUUID();
    await acts.recordTranscript([
      {
        v: 1,
        type: 'user',
        uuid: promptUuid,
        parentUuid: null,
        sessionId,
        timestamp: new Date().toISOString(),
        message: { role: 'user', content: prompt },
        cwd,
      },
    ]);
    let leaf: string = promptUuid;
    let calls = 0;
    for (;;) {
      const assistantUuid = randomUUID();
      const summary = await acts.callModel({
        sessionId,
        cwd,
        assistantUuid,
        parentUuid: leaf,
        model: options.model,
        maxTokens: options.maxTokens,
      });
      calls++;
      leaf = assistantUuid;
      if (summary.toolUses.length === 0) return calls;
      for (const use of summary.toolUses) {
        const result = await acts.runTool({
          sessionId,
          cwd,
          assistantUuid,
          toolUseId: use.id,
          toolName: use.name,
          resultUuid: randomUUID(),
          parentUuid: leaf,
          permission: { behavior: 'allow' },
          readState: null,
        });
        leaf = result.resultUuid;
      }
    }
  });
}
