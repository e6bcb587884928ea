import type { Config } from '../../config';
import type { RateLimits, RatePoolView } from '../../common/rate-pool';
import { ratePoolWorkflowId } from '../../common/rate-pool';
import { RatePoolNotFoundError, ensureRatePool, ratePoolState, setRatePoolLimits } from '../../client/rate-pool';
import { retry } from '../../connection/retry';
import type { ControlIo } from '../control';
import { kvTable, openControlRuntime } from '../control';
import { UsageError, positiveInt } from '../turn-options';
import { withControlErrors } from './control-errors';

/** Flags of `agent-runner pool rate`. */
export interface RatePoolFlags {
  rpm?: string;
  itpm?: string;
  otpm?: string;
  json?: boolean;
}

/** The human-readable `agent-runner pool rate` table. */
export function formatRatePool(s: RatePoolView): string {
  const per = (n: number | null): string => (n === null ? 'learned from the next response' : `${Math.round(n)}/min`);
  return kvTable([
    ['rate pool', `${s.poolId} (workflow ${ratePoolWorkflowId(s.poolId)})`],
    ['requests', per(s.requestsPerMinute)],
    ['input tokens', per(s.inputTokensPerMinute)],
    ['output tokens', per(s.outputTokensPerMinute)],
    ['share granted', `${Math.round(s.factor * 100)}%${s.pausedUntil ? ` (paused until ${s.pausedUntil})` : ''}`],
    ['leases', `${s.granted} granted, ${s.waiting} waiting, ${s.outstanding} not yet reported`],
    ['429s', String(s.throttled)],
  ]);
}

/**
 * `agent-runner pool rate <id> [--rpm N] [--itpm N] [--otpm N] [--json]`: starts rate pool `<id>`
 * if missing, sets the limits given (per minute; the others are learned from the API's headers)
 * and prints its state. Needs a running server (as `pool show`).
 */
export async function runRatePool(
  config: Config,
  poolId: string,
  flags: RatePoolFlags,
  io: ControlIo,
): Promise<number> {
  const rpm = positiveInt('--rpm', flags.rpm);
  const itpm = positiveInt('--itpm', flags.itpm);
  const otpm = positiveInt('--otpm', flags.otpm);
  const limits: RateLimits = {
    ...(rpm !== undefined ? { requestsPerMinute: rpm } : {}),
    ...(itpm !== undefined ? { inputTokensPerMinute: itpm } : {}),
    ...(otpm !== undefined ? { outputTokensPerMinute: otpm } : {}),
  };
  return withControlErrors(io, async () => {
    const rt = await openControlRuntime(config, 'pool rate');
    try {
      try {
        await ensureRatePool(rt.client, { taskQueue: rt.taskQueue, poolId, limits });
        if (Object.keys(limits).length > 0) await setRatePoolLimits(rt.client, poolId, limits);
      } catch (e) {
        if (e instanceof RangeError) throw new UsageError(e.message);
        throw e;
      }
      // A pool just started may find no worker ready yet: retry briefly.
      const state = await retry(() => ratePoolState(rt.client, poolId), {
        attempts: 9,
        delayMs: 100,
        maxDelayMs: 2000,
        retryIf: (e) => !(e instanceof RatePoolNotFoundError),
      });
      io.stdout(flags.json ? JSON.stringify(state) : formatRatePool(state));
      return 0;
    } finally {
      await rt.close();
    }
  });
}
