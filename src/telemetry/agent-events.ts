/**
 * Agent events (OpenTelemetry log records) under Claude Code's names and attributes, emitted by
 * the worker: one record per real model call, tool run, permission decision and prompt (never
 * for a result an earlier attempt already stored, never from workflow code, so never on replay).
 *
 * As Claude Code 2.1.328 emits them (read from its binary): the logger is
 * `com.anthropic.claude_code.events`, a record's body is `claude_code.<name>`, and its attributes
 * are the standard ones (`session.id`, `app.version`), `event.name` (`<name>`), `event.timestamp`
 * (ISO 8601), `event.sequence` (a counter per process), then the event's own:
 *
 * | event | attributes |
 * | --- | --- |
 * | `claude_code.user_prompt` | `prompt_length`, `prompt`, `prompt_text` (`<REDACTED>` unless `OTEL_LOG_USER_PROMPTS`) |
 * | `claude_code.api_request` | `model`, `input_tokens`, `output_tokens`, `cache_read_tokens`, `cache_creation_tokens`, `cost_usd`, `cost_usd_micros`, `duration_ms`, `speed` |
 * | `claude_code.api_error` | `model`, `error`, `status_code`, `duration_ms`, `attempt`, `request_id`, `speed` |
 * | `claude_code.tool_decision` | `decision` (`accept`, `reject`), `source`, `tool_name`, `tool_use_id` |
 * | `claude_code.tool_result` | `tool_name`, `tool_use_id`, `success` (`true`, `false`), `duration_ms`, `tool_result_size_bytes`, `decision_source`, `decision_type`, `error_type` |
 *
 * Claude Code writes the tool and prompt figures as strings (`"true"`, `"42"`) and the model-call
 * figures as numbers; so does this module. No content is an attribute except the prompt's text,
 * and that only with `OTEL_LOG_USER_PROMPTS` set.
 */
import type { AnyValueMap, Logger } from '@opentelemetry/api-logs';
import type { Usage } from '../common/usage';
import type { AgentMetricContext } from './agent-metrics';

/** The event names (bodies are `claude_code.<name>`). */
export const CLAUDE_CODE_EVENTS = {
  userPrompt: 'user_prompt',
  apiRequest: 'api_request',
  apiError: 'api_error',
  toolResult: 'tool_result',
  toolDecision: 'tool_decision',
} as const;

/** What Claude Code writes for a prompt's text when `OTEL_LOG_USER_PROMPTS` is off. */
export const REDACTED = '<REDACTED>';

/** One finished model call (`claude_code.api_request`). */
export interface ApiRequestEvent {
  model: string;
  /** The call's billed tokens (every attempt the API billed, as the metrics count them). */
  usage: Usage;
  /** USD from the configured prices; null (an unpriced model) is written as 0, as Claude Code does for an unknown price. */
  costUsd: number | null;
  /** Wall time of the call, ms. */
  durationMs: number;
}

/** One failed model call (`claude_code.api_error`). */
export interface ApiErrorEvent {
  model: string;
  /** The error's message (the API's, never the request's content). */
  error: string;
  /** HTTP status, when the API answered. */
  statusCode?: number | null;
  durationMs: number;
  /** The activity attempt (1 for the first). */
  attempt: number;
  requestId?: string | null;
}

/** One tool call's permission decision (`claude_code.tool_decision`). */
export interface ToolDecisionEvent {
  toolName: string;
  toolUseId: string;
  decision: 'accept' | 'reject';
  /** Claude Code's source values; a headless run decides by its configuration: `config`. */
  source: string;
}

/** One tool run (`claude_code.tool_result`). */
export interface ToolResultEvent {
  toolName: string;
  toolUseId: string;
  success: boolean;
  durationMs: number;
  /** Size of the tool_result content, bytes. */
  resultBytes?: number;
  decisionSource: string;
  /** e.g. `Tool.Fault` for a run that failed without a result. */
  errorType?: string;
}

/** The agent's events on one logger (see the module comment for names and attributes). */
export class AgentEvents {
  private sequence = 0;

  constructor(
    private readonly logger: Logger,
    /** `app.version` on every record. */
    private readonly appVersion: string,
    /** `OTEL_LOG_USER_PROMPTS`: the prompt's text goes into `claude_code.user_prompt`. */
    readonly logUserPrompts: boolean,
  ) {}

  /** A prompt was recorded (once, by the attempt that wrote its line). `text` is needed only with {@link logUserPrompts}. */
  userPrompt(ctx: AgentMetricContext, length: number, text?: string): void {
    const prompt = this.logUserPrompts && text !== undefined ? text : REDACTED;
    this.emit(ctx, CLAUDE_CODE_EVENTS.userPrompt, { prompt_length: String(length), prompt, prompt_text: prompt });
  }

  /** A model call that returned a response (by the attempt that made it). */
  apiRequest(ctx: AgentMetricContext, e: ApiRequestEvent): void {
    const cost = e.costUsd ?? 0;
    this.emit(ctx, CLAUDE_CODE_EVENTS.apiRequest, {
      model: e.model,
      input_tokens: e.usage.input_tokens,
      output_tokens: e.usage.output_tokens,
      cache_read_tokens: e.usage.cache_read_input_tokens,
      cache_creation_tokens: e.usage.cache_creation_input_tokens,
      cost_usd: cost,
      cost_usd_micros: Math.round(cost * 1_000_000),
      duration_ms: e.durationMs,
      speed: 'normal',
    });
  }

  /** A model call that failed (each failed attempt: each made a request). */
  apiError(ctx: AgentMetricContext, e: ApiErrorEvent): void {
    this.emit(ctx, CLAUDE_CODE_EVENTS.apiError, {
      model: e.model,
      error: e.error,
      ...(e.statusCode !== undefined && e.statusCode !== null ? { status_code: e.statusCode } : {}),
      duration_ms: e.durationMs,
      attempt: e.attempt,
      ...(e.requestId ? { request_id: e.requestId } : {}),
      speed: 'normal',
    });
  }

  /** A tool call's permission was decided (by the attempt that ran or refused it). */
  toolDecision(ctx: AgentMetricContext, e: ToolDecisionEvent): void {
    this.emit(ctx, CLAUDE_CODE_EVENTS.toolDecision, {
      decision: e.decision,
      source: e.source,
      tool_name: e.toolName,
      tool_use_id: e.toolUseId,
    });
  }

  /** A tool ran (by the attempt that ran it). */
  toolResult(ctx: AgentMetricContext, e: ToolResultEvent): void {
    this.emit(ctx, CLAUDE_CODE_EVENTS.toolResult, {
      tool_name: e.toolName,
      tool_use_id: e.toolUseId,
      success: e.success ? 'true' : 'false',
      duration_ms: String(e.durationMs),
      ...(e.errorType ? { error_type: e.errorType } : {}),
      ...(e.resultBytes !== undefined ? { tool_result_size_bytes: String(e.resultBytes) } : {}),
      decision_source: e.decisionSource,
      decision_type: 'accept',
    });
  }

  private emit(ctx: AgentMetricContext, name: string, attrs: AnyValueMap): void {
    const now = new Date();
    this.logger.emit({
      timestamp: now,
      observedTimestamp: now,
      body: `claude_code.${name}`,
      attributes: {
        'session.id': ctx.sessionId,
        'app.version': this.appVersion,
        ...(ctx.batchId ? { 'agent_runner.batch.id': ctx.batchId } : {}),
        ...(ctx.taskId ? { 'agent_runner.task.id': ctx.taskId } : {}),
        ...(ctx.poolId ? { 'agent_runner.pool.id': ctx.poolId } : {}),
        'event.name': name,
        'event.timestamp': now.toISOString(),
        'event.sequence': this.sequence++,
        ...attrs,
      },
    });
  }
}
