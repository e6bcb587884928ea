/**
 * The runner's own spans inside Temporal's activity spans, under Claude Code's span names:
 * `claude_code.llm_request` for a model call (in `RunActivity:callModel`) and `claude_code.tool`
 * for a tool run (in `RunActivity:runTool`). Attributes are names and figures only, never content.
 * An attempt that returns a result an earlier one stored says so (`agent_runner.replayed`).
 */
import { SpanStatusCode, type Span, type Tracer } from '@opentelemetry/api';
import type { Activities } from './types';

/** The activities with `callModel` and `runTool` in a span each (as they are when `tracer` is absent). */
export function withAgentSpans(tracer: Tracer | undefined, acts: Activities): Activities {
  if (!tracer) return acts;
  const callModel = acts.callModel;
  const runTool = acts.runTool;
  return {
    ...acts,
    callModel: (input) =>
      inSpan(
        tracer,
        'claude_code.llm_request',
        {
          'span.type': 'llm_request',
          'session.id': input.sessionId,
          model: input.model,
          'gen_ai.system': 'anthropic',
          'gen_ai.request.model': input.model,
        },
        async (span) => {
          const s = await callModel(input);
          span.setAttributes({
            input_tokens: s.usage.input_tokens,
            output_tokens: s.usage.output_tokens,
            cache_read_tokens: s.usage.cache_read_input_tokens,
            cache_creation_tokens: s.usage.cache_creation_input_tokens,
            success: true,
            'agent_runner.replayed': s.replayed,
            ...(s.stopReason ? { stop_reason: s.stopReason } : {}),
          });
          return s;
        },
      ),
    runTool: (input) =>
      inSpan(
        tracer,
        'claude_code.tool',
        {
          'span.type': 'tool',
          'session.id': input.sessionId,
          tool_name: input.toolName,
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': input.toolName,
          'gen_ai.tool.call.id': input.toolUseId,
        },
        async (span) => {
          const s = await runTool(input);
          span.setAttributes({
            success: !s.isError,
            'agent_runner.outcome': s.outcome,
            'agent_runner.replayed': s.replayed,
          });
          return s;
        },
      ),
  };
}

async function inSpan<T>(
  tracer: Tracer,
  name: string,
  attributes: Record<string, string>,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    const started = Date.now();
    try {
      return await fn(span);
    } catch (err) {
      span.setAttribute('success', false);
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
      throw err;
    } finally {
      span.setAttribute('duration_ms', Date.now() - started);
      span.end();
    }
  });
}
