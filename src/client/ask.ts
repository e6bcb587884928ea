import type { SDKMessage, SDKResultMessage } from '../common/sdk-messages';
import type { TurnOptions } from '../common/turn';
import type { QueryEngineOptions } from './query-engine';
import { QueryEngine } from './query-engine';

/**
 * One-shot helper (the seeds' `ask()`): runs one turn in a new (or given) session, yields its
 * messages, and ends the session workflow afterwards (in `finally`, even when the caller stops
 * early), so nothing is left running. The transcript stays in the store for `--resume`.
 */
export async function* ask(
  prompt: string,
  opts: QueryEngineOptions & { turnOptions?: Partial<TurnOptions> },
): AsyncGenerator<SDKMessage, SDKResultMessage | undefined, undefined> {
  const engine = new QueryEngine(opts);
  let result: SDKResultMessage | undefined;
  try {
    for await (const msg of engine.submitMessage(prompt, opts.turnOptions)) {
      if (msg.type === 'result') result = msg;
      yield msg;
    }
  } finally {
    await engine.end().catch(() => undefined);
  }
  return result;
}
