/**
 * A local model server that speaks the Anthropic Messages API and replays scripted responses
 * (scenario files or a code `responder`), with faults, request checks, a request log and a
 * prompt-cache simulation. See `docs/fake-model.md`.
 */
export { startFakeModelServer } from './server';
export type { FakeModelServer, FakeModelServerOptions } from './server';
export type { Responder, ResponderContext } from './messages-handler';
export { selectScript } from './messages-handler';
export { billedUsage, repeatedCompletedCalls } from './request-log';
export type { BilledUsage, RepeatedCall, RequestLogEntry, RequestOutcome } from './request-log';
export type { CacheStats } from './prompt-cache';
export { estimateTokens } from './prompt-cache';
export type { ParsedRequest, RequestBlock, RequestMessage } from './request';
export { ScenarioError, STOP_REASONS, loadScenarioFile, parseScenario, parseStep } from './scenario';
export type { ContentSpec, ExpectSpec, FaultSpec, Scenario, ScenarioInput, Script, Step, StepSpec } from './scenario';
export { EXPECTATION_FAILED_PREFIX } from './expectations';
export { matchMarker, ownUserText, routeByMarker } from './router';
export type { MarkedScript, RouteContext, RouterOptions, RouteStep } from './router';
export type { BatchResultLine, BatchSummary, BatchTiming } from './batches';
export type { RateLimitOptions } from './rate-limits';
