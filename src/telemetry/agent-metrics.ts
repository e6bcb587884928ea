/**
 * Agent metrics under Claude Code's names, emitted by the worker (the process that calls the
 * model), so nothing is lost when a short-lived `-p` client exits.
 *
 * Names, units and attributes follow Claude Code 2.1.328 (read from its binary: the instruments
 * of its meter and the attributes it adds), so dashboards made for Claude Code work unchanged:
 *
 * | instrument | unit | attributes |
 * | --- | --- | --- |
 * | `claude_code.session.count` | — | the standard ones |
 * | `claude_code.token.usage` | `tokens` | `type` (`input`, `output`, `cacheRead`, `cacheCreation`), `model` |
 * | `claude_code.cost.usage` | `USD` | `model` |
 * | `claude_code.code_edit_tool.decision` | — | `decision` (`accept`, `reject`), `source`, `tool_name` (Edit, Write, NotebookEdit) |
 * | `claude_code.lines_of_code.count` | — | `type` (`added`, `removed`), `model` |
 * | `claude_code.commit.count` | — | the standard ones |
 * | `claude_code.pull_request.count` | — | the standard ones |
 *
 * Standard attributes on every point: `session.id`, `app.version` (Claude Code's names), and the
 * runner's own `agent_runner.batch.id`, `agent_runner.task.id`, `agent_runner.pool.id` when the caller
 * knows them. No content (prompts, outputs, tool input) is ever an attribute.
 * The events (`claude_code.api_request`, `claude_code.tool_result`, …) are in `agent-events.ts`.
 */
import type { Counter, Meter } from '@opentelemetry/api';
import type { Usage } from '../common/usage';

/** Who a point belongs to. */
export interface AgentMetricContext {
  /** The session id (Claude Code's `session.id`). */
  sessionId: string;
  /** The batch the turn belongs to, if any. */
  batchId?: string;
  /** The batch task, if any. */
  taskId?: string;
  /** The budget pool the turn spends from, if any. */
  poolId?: string;
}

/** The instruments of {@link AgentMetrics}, by Claude Code's names. */
export const CLAUDE_CODE_METRICS = {
  sessionCount: 'claude_code.session.count',
  tokenUsage: 'claude_code.token.usage',
  costUsage: 'claude_code.cost.usage',
  codeEditToolDecision: 'claude_code.code_edit_tool.decision',
  linesOfCode: 'claude_code.lines_of_code.count',
  commitCount: 'claude_code.commit.count',
  pullRequestCount: 'claude_code.pull_request.count',
} as const;

/** The tools whose permission decisions `claude_code.code_edit_tool.decision` counts (Claude Code's list). */
export const CODE_EDIT_TOOLS: ReadonlySet<string> = new Set(['Edit', 'Write', 'NotebookEdit']);

/** The agent's counters on one meter (see the module comment for names and attributes). */
export class AgentMetrics {
  private readonly sessions: Counter;
  private readonly tokens: Counter;
  private readonly cost: Counter;
  private readonly editDecisions: Counter;
  private readonly lines: Counter;
  private readonly commits: Counter;
  private readonly pullRequests: Counter;

  constructor(
    meter: Meter,
    /** `app.version` on every point. */
    private readonly appVersion: string,
  ) {
    // Descriptions and units as Claude Code declares them.
    this.sessions = meter.createCounter(CLAUDE_CODE_METRICS.sessionCount, {
      description: 'Count of CLI sessions started',
    });
    this.tokens = meter.createCounter(CLAUDE_CODE_METRICS.tokenUsage, {
      description: 'Number of tokens used',
      unit: 'tokens',
    });
    this.cost = meter.createCounter(CLAUDE_CODE_METRICS.costUsage, {
      description: 'Cost of the Claude Code session',
      unit: 'USD',
    });
    this.editDecisions = meter.createCounter(CLAUDE_CODE_METRICS.codeEditToolDecision, {
      description:
        'Count of code editing tool permission decisions (accept/reject) for Edit, Write, and NotebookEdit tools',
    });
    this.lines = meter.createCounter(CLAUDE_CODE_METRICS.linesOfCode, {
      description:
        "Count of lines of code modified, with the 'type' attribute indicating whether lines were added or removed and the 'model' attribute indicating which model made the change",
    });
    this.commits = meter.createCounter(CLAUDE_CODE_METRICS.commitCount, {
      description: 'Number of git commits created',
    });
    this.pullRequests = meter.createCounter(CLAUDE_CODE_METRICS.pullRequestCount, {
      description: 'Number of pull requests created',
    });
  }

  /** Lines an Edit or Write call changed (lines), attributed to the model that asked for it. */
  linesChanged(ctx: AgentMetricContext, model: string, added: number, removed: number): void {
    const attrs = { ...this.standard(ctx), model };
    this.lines.add(added, { ...attrs, type: 'added' });
    this.lines.add(removed, { ...attrs, type: 'removed' });
  }

  /** Commits and pull requests a successful Bash command created (counts). */
  gitActivity(ctx: AgentMetricContext, commits: number, pullRequests: number): void {
    if (commits > 0) this.commits.add(commits, this.standard(ctx));
    if (pullRequests > 0) this.pullRequests.add(pullRequests, this.standard(ctx));
  }

  /**
   * A permission decision on a code-editing tool ({@link CODE_EDIT_TOOLS}), once per call.
   * Claude Code adds `language` (from the file's extension); the runner does not yet.
   */
  codeEditDecision(ctx: AgentMetricContext, toolName: string, decision: 'accept' | 'reject', source: string): void {
    this.editDecisions.add(1, { ...this.standard(ctx), decision, source, tool_name: toolName });
  }

  /** A session started: its first prompt was recorded (once, by the attempt that wrote it). */
  sessionStarted(ctx: AgentMetricContext): void {
    this.sessions.add(1, this.standard(ctx));
  }

  /**
   * One model call's billed usage: every token the API billed for it, counted once (the attempts
   * a retry repeated included; see `src/activities/model/billing.ts`).
   * @param costUsd USD from the configured prices; null (an unpriced model) records no cost.
   */
  modelCall(ctx: AgentMetricContext, model: string, usage: Usage, costUsd: number | null): void {
    const attrs = { ...this.standard(ctx), model };
    this.tokens.add(usage.input_tokens, { ...attrs, type: 'input' });
    this.tokens.add(usage.output_tokens, { ...attrs, type: 'output' });
    this.tokens.add(usage.cache_read_input_tokens, { ...attrs, type: 'cacheRead' });
    this.tokens.add(usage.cache_creation_input_tokens, { ...attrs, type: 'cacheCreation' });
    if (costUsd !== null) this.cost.add(costUsd, attrs);
  }

  private standard(ctx: AgentMetricContext): Record<string, string> {
    return {
      'session.id': ctx.sessionId,
      'app.version': this.appVersion,
      ...(ctx.batchId ? { 'agent_runner.batch.id': ctx.batchId } : {}),
      ...(ctx.taskId ? { 'agent_runner.task.id': ctx.taskId } : {}),
      ...(ctx.poolId ? { 'agent_runner.pool.id': ctx.poolId } : {}),
    };
  }
}
