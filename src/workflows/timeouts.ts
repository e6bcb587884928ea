import type { ActivityTimeouts } from '../common/turn';

/** Activity timeouts with defaults applied (ms). */
export type ResolvedTimeouts = Required<ActivityTimeouts>;

/** Defaults: see `ActivityTimeouts`. */
export const DEFAULT_TIMEOUTS: ResolvedTimeouts = {
  modelHeartbeatMs: 30_000,
  modelStartToCloseMs: 600_000,
  modelMaxAttempts: 10,
  toolHeartbeatMs: 10_000,
  toolStartToCloseMs: 900_000,
};

/** Applies defaults to a turn's timeouts. */
export function activityTimeouts(t: ActivityTimeouts | undefined): ResolvedTimeouts {
  return { ...DEFAULT_TIMEOUTS, ...(t ?? {}) };
}
