/**
 * The worker's trace pipeline (`OTEL_TRACES_EXPORTER`): a tracer provider whose spans go to OTLP
 * (gRPC, HTTP/protobuf, HTTP/JSON) or the console, batched every `OTEL_TRACES_EXPORT_INTERVAL` ms
 * (default 5000). The activities' spans (Temporal's `RunActivity:<type>` and the runner's
 * `claude_code.llm_request` / `claude_code.tool` inside it) come from this tracer; an
 * AsyncLocalStorage context manager makes a span started inside another its child.
 */
import { context, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter as GrpcTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as HttpJsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as HttpProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import type { Resource } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { RUNNER_VERSION } from '../common/version';

/** Claude Code's tracer name. */
export const TRACER_NAME = 'com.anthropic.claude_code.tracing';

let contextManagerSet = false;

/**
 * Starts the trace pipeline for the chosen exporters (`otlp`, `console`).
 * @param protocol the OTLP protocol already checked by the caller.
 */
export function startTracing(
  chosen: string[],
  resource: Resource,
  protocol: () => string,
  intervalMs: number,
): { tracer: Tracer; description: string; shutdown: () => Promise<void> } {
  const described: string[] = [];
  const spanProcessors = chosen.map((name) => {
    let exporter: SpanExporter;
    if (name === 'console') {
      exporter = new ConsoleSpanExporter();
      described.push('console');
    } else {
      const p = protocol();
      exporter =
        p === 'grpc'
          ? new GrpcTraceExporter()
          : p === 'http/json'
            ? new HttpJsonTraceExporter()
            : new HttpProtoTraceExporter();
      described.push(`otlp (${p})`);
    }
    return new BatchSpanProcessor(exporter, { scheduledDelayMillis: intervalMs });
  });
  if (!contextManagerSet) {
    // Once per process: the active span follows async calls (the API keeps the first one set).
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    contextManagerSet = true;
  }
  const provider = new BasicTracerProvider({ resource, spanProcessors });
  return {
    tracer: provider.getTracer(TRACER_NAME, RUNNER_VERSION),
    description: described.join(', '),
    shutdown: () => provider.shutdown(),
  };
}
