/**
 * durable-agent-runner: an LLM coding agent whose every turn is a durable Temporal workflow.
 *
 * Client side: {@link QueryEngine} (one conversation; `submitMessage()` streams SDK messages)
 * and {@link ask} (one-shot). Worker side: {@link createRunnerWorker} and {@link createActivities}.
 * Workflows are loaded by the worker from `./workflows` (the sandboxed entry point).
 */
export { QueryEngine } from './client/query-engine';
export type { QueryEngineOptions, StreamPosition } from './client/query-engine';
export { ask } from './client/ask';
export { openRuntime } from './host/runtime';
export type { Runtime, OpenRuntimeOptions } from './host/runtime';
export { connectClient, findServer, NoServerError, TemporalUnreachableError } from './connection/connect';
export type { ClientRuntime, ConnectClientOptions } from './connection/connect';
export { createActivities } from './activities';
export type { Activities, ActivityDeps } from './activities';
export { createRunnerWorker, workflowBundle } from './worker/worker';
export type { RunnerWorkerOptions } from './worker/worker';
export { startDevServer, findTemporalCli } from './host/dev-server';
export { loadConfig, ConfigError } from './config';
export type { Config } from './config';
export { JsonlTranscriptStore } from './store/jsonl-store';
export { PostgresTranscriptStore } from './store/postgres/postgres-store';
export { openStore, storeLocation, type StoreLocation } from './store/open';
export type { TranscriptStore } from './store/transcript-store';
export type * from './common/sdk-messages';
export type { TurnOptions, TurnOutcome } from './common/turn';
export type { Usage, ModelUsage } from './common/usage';
export { sessionWorkflowId, turnWorkflowId } from './common/ids';
export { budgetPoolWorkflowId } from './common/ids';
export {
  BudgetPoolNotFoundError,
  budgetPoolExists,
  budgetPoolState,
  ensureBudgetPool,
  setBudgetPoolLimit,
} from './client/budget-pool';
export type { EnsureBudgetPoolOptions, EnsuredBudgetPool } from './client/budget-pool';
export {
  RatePoolNotFoundError,
  closeRatePool,
  ensureRatePool,
  ratePoolState,
  setRatePoolLimits,
} from './client/rate-pool';
export type { EnsureRatePoolOptions } from './client/rate-pool';
export { ratePoolWorkflowId } from './common/rate-pool';
export type { RateLimits, RatePoolView } from './common/rate-pool';
export { SessionNotFoundError, interruptSession, sessionStatus, setSessionLimits } from './client/session-control';
export type { SessionStatusReport } from './client/session-control';
export { turnOutcome } from './client/turn-outcome';
export { AGENT_RESULT_FAILURE, resultOfFailure } from './common/agent-result';
export { StoreUnavailableError } from './store/outage';
export type { LimitPatch, PoolStateView, SessionStatusView } from './workflows/messages';
