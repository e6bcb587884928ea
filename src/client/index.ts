/**
 * Client-only entry point (`@durable-agent-runner/agent-runner/client`): start, follow and steer turns on a
 * running server. Loads no native worker, workflow bundler, dev-server launcher or Anthropic SDK;
 * a process that runs work imports `@durable-agent-runner/agent-runner/worker` (or the root entry) instead.
 */
export { QueryEngine } from './query-engine';
export type { QueryEngineOptions, StreamPosition } from './query-engine';
export { ask } from './ask';
export {
  connectClient,
  connectionOptions,
  findServer,
  NoServerError,
  openTranscriptStore,
  TemporalUnreachableError,
} from '../connection/connect';
export type {
  ClientRuntime,
  ConnectClientOptions,
  ServerTarget,
  TemporalConnectionOptions,
} from '../connection/connect';
export { readLiveServerState } from '../host/server-state';
export type { ServerState } from '../host/server-state';
export {
  BudgetPoolNotFoundError,
  budgetPoolExists,
  budgetPoolState,
  ensureBudgetPool,
  setBudgetPoolLimit,
} from './budget-pool';
export type { EnsureBudgetPoolOptions, EnsuredBudgetPool } from './budget-pool';
export { SessionNotFoundError, interruptSession, sessionStatus, setSessionLimits } from './session-control';
export type { SessionStatusReport } from './session-control';
export { listSessions, sessionListQuery } from './list';
export {
  ScheduleExistsError,
  UnknownScheduleError,
  createBatchSchedule,
  describeBatchSchedule,
  listBatchSchedules,
  operateBatchSchedule,
} from './schedules';
export type { BatchScheduleMemo, CreateBatchScheduleOptions, ScheduleOperation } from './schedules';
export { scheduledBatchId } from '../common/schedule';
export type { ScheduledBatchInput, ScheduledBatchResult } from '../common/schedule';
export { turnOutcome } from './turn-outcome';
export { AGENT_RESULT_FAILURE, resultOfFailure } from '../common/agent-result';
export { StoreUnavailableError } from '../store/outage';
export type { ListSessionsOptions, SessionRow } from './list';
export { loadConfig, ConfigError } from '../config';
export type { Config } from '../config';
export { JsonlTranscriptStore } from '../store/jsonl-store';
export { PostgresTranscriptStore } from '../store/postgres/postgres-store';
export { openStore, storeLocation, type StoreLocation } from '../store/open';
export type { TranscriptStore } from '../store/transcript-store';
export type * from '../common/sdk-messages';
export type { TurnOptions, TurnOutcome } from '../common/turn';
export type { Usage, ModelUsage } from '../common/usage';
export { sessionWorkflowId, turnWorkflowId, budgetPoolWorkflowId } from '../common/ids';
export type { LimitPatch, PoolStateView, SessionStatusView } from '../workflows/messages';
