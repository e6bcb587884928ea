/**
 * The worker's OpenTelemetry metrics pipeline, configured by the variables Claude Code reads:
 *
 * | variable | meaning | default |
 * | --- | --- | --- |
 * | `CLAUDE_CODE_ENABLE_TELEMETRY` | `1`/`true` turns the agent metrics on | off |
 * | `OTEL_METRICS_EXPORTER` | comma list of `otlp`, `prometheus`, `console`, `none` | `none` |
 * | `OTEL_EXPORTER_OTLP_METRICS_PROTOCOL`, `OTEL_EXPORTER_OTLP_PROTOCOL` | `grpc`, `http/protobuf`, `http/json` | `http/protobuf` |
 * | `OTEL_METRIC_EXPORT_INTERVAL` | ms between OTLP exports | 60000 |
 * | `OTEL_EXPORTER_OTLP_ENDPOINT`, `…_METRICS_ENDPOINT`, `…_HEADERS`, `…_METRICS_TEMPORALITY_PREFERENCE` | read by the OTLP exporters themselves | the SDK's |
 * | `OTEL_EXPORTER_PROMETHEUS_HOST`, `OTEL_EXPORTER_PROMETHEUS_PORT` | the Prometheus endpoint (`/metrics`) | `0.0.0.0`, 9464 |
 * | `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES` | resource attributes | `service.name=agent-runner` |
 * | `OTEL_LOGS_EXPORTER` | the events: comma list of `otlp`, `console`, `none` | `none` |
 * | `OTEL_EXPORTER_OTLP_LOGS_PROTOCOL` | as the metrics' protocol, for the events | the general one |
 * | `OTEL_LOGS_EXPORT_INTERVAL` | ms between event exports | 5000 |
 * | `OTEL_TRACES_EXPORTER` | the activities' spans: comma list of `otlp`, `console`, `none` | `none` |
 * | `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, `OTEL_TRACES_EXPORT_INTERVAL` | as for the events | the general one, 5000 |
 * | `OTEL_LOG_USER_PROMPTS` | `1`/`true`: `claude_code.user_prompt` carries the prompt's text | off |
 *
 * The OTLP and Prometheus exporters read their own variables from `process.env` (the SDK's rule).
 */
import { OTLPMetricExporter as GrpcExporter } from '@opentelemetry/exporter-metrics-otlp-grpc';
import { OTLPMetricExporter as HttpJsonExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as HttpProtoExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  ConsoleMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type IMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import { AgentRunnerError } from '../common/errors';
import { RUNNER_VERSION } from '../common/version';
import { OTLPLogExporter as GrpcLogExporter } from '@opentelemetry/exporter-logs-otlp-grpc';
import { OTLPLogExporter as HttpJsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as HttpProtoLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import {
  BatchLogRecordProcessor,
  ConsoleLogRecordExporter,
  LoggerProvider,
  type LogRecordExporter,
} from '@opentelemetry/sdk-logs';
import { AgentMetrics } from './agent-metrics';
import { AgentEvents } from './agent-events';
import { startTracing } from './tracing';
import type { Tracer } from '@opentelemetry/api';

/**
 * Thrown by {@link startAgentTelemetry} for a telemetry variable with a value it does not know
 * (an exporter or protocol name, an interval that is not a positive number). The worker exits 2.
 */
export class TelemetryConfigError extends AgentRunnerError {
  override readonly name = 'TelemetryConfigError';
  readonly kind = 'usage';
}

/** A running metrics and events pipeline (at least one of the two). */
export interface AgentTelemetry {
  /** Absent when `OTEL_METRICS_EXPORTER` chooses none. */
  metrics?: AgentMetrics;
  /** Absent when `OTEL_LOGS_EXPORTER` chooses none. */
  events?: AgentEvents;
  /** Absent when `OTEL_TRACES_EXPORTER` chooses none. */
  tracer?: Tracer;
  /** One line for the worker's start message, e.g. `otlp (http/json), prometheus :9464; events otlp (http/json)`. */
  description: string;
  /** Exports what is pending and stops the exporters (the Prometheus server too). */
  shutdown(): Promise<void>;
}

const EXPORTERS = new Set(['otlp', 'prometheus', 'console', 'none']);
const LOG_EXPORTERS = new Set(['otlp', 'console', 'none']);
const PROTOCOLS = new Set(['grpc', 'http/protobuf', 'http/json']);

/** True when `CLAUDE_CODE_ENABLE_TELEMETRY` is `1` or `true` (any case). */
export function telemetryEnabled(env: NodeJS.ProcessEnv): boolean {
  const v = (env['CLAUDE_CODE_ENABLE_TELEMETRY'] ?? '').trim().toLowerCase();
  return v === '1' || v === 'true';
}

/**
 * Starts the agent metrics and events pipelines when telemetry is on and an exporter is chosen.
 * @returns null when `CLAUDE_CODE_ENABLE_TELEMETRY` is off or none of `OTEL_METRICS_EXPORTER`,
 *   `OTEL_LOGS_EXPORTER`, `OTEL_TRACES_EXPORTER` chooses an exporter (unset or `none`).
 * @throws TelemetryConfigError for an unknown exporter or protocol, or a bad interval.
 */
export function startAgentTelemetry(env: NodeJS.ProcessEnv = process.env): AgentTelemetry | null {
  if (!telemetryEnabled(env)) return null;
  const metricNames = exporterNames(env, 'OTEL_METRICS_EXPORTER', EXPORTERS, 'otlp, prometheus, console, none');
  const logNames = exporterNames(env, 'OTEL_LOGS_EXPORTER', LOG_EXPORTERS, 'otlp, console, none');
  const traceNames = exporterNames(env, 'OTEL_TRACES_EXPORTER', LOG_EXPORTERS, 'otlp, console, none');
  if (metricNames.length === 0 && logNames.length === 0 && traceNames.length === 0) return null;
  const resource = resourceFromAttributes({ 'service.name': 'agent-runner', 'service.version': RUNNER_VERSION }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  const described: string[] = [];
  const stops: Array<() => Promise<void>> = [];
  const out: Omit<AgentTelemetry, 'description' | 'shutdown'> = {};
  if (metricNames.length > 0) {
    const m = startMetrics(env, metricNames, resource);
    out.metrics = m.metrics;
    described.push(m.description);
    stops.push(m.shutdown);
  }
  if (logNames.length > 0) {
    const l = startEvents(env, logNames, resource);
    out.events = l.events;
    described.push(`events ${l.description}`);
    stops.push(l.shutdown);
  }
  if (traceNames.length > 0) {
    const t = startTracing(
      traceNames,
      resource,
      () => otlpProtocol(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'),
      exportInterval(env, 'OTEL_TRACES_EXPORT_INTERVAL', 5_000),
    );
    out.tracer = t.tracer;
    described.push(`traces ${t.description}`);
    stops.push(t.shutdown);
  }
  return {
    ...out,
    description: described.join('; '),
    shutdown: async () => {
      await Promise.all(stops.map((stop) => stop()));
    },
  };
}

/** The exporters a comma-list variable chooses, `none` left out. */
function exporterNames(env: NodeJS.ProcessEnv, variable: string, known: Set<string>, expected: string): string[] {
  const names = (env[variable] ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s.length > 0);
  for (const n of names) {
    if (!known.has(n)) {
      throw new TelemetryConfigError(`${variable}: unknown exporter "${n}" (expected a comma list of ${expected})`);
    }
  }
  return [...new Set(names.filter((n) => n !== 'none'))];
}

type Resource = ReturnType<typeof resourceFromAttributes>;

function startMetrics(
  env: NodeJS.ProcessEnv,
  chosen: string[],
  resource: Resource,
): { metrics: AgentMetrics; description: string; shutdown: () => Promise<void> } {
  const readers: IMetricReader[] = [];
  const described: string[] = [];
  const interval = exportInterval(env, 'OTEL_METRIC_EXPORT_INTERVAL', 60_000);
  for (const name of chosen) {
    if (name === 'prometheus') {
      const exporter = new PrometheusExporter({});
      readers.push(exporter);
      described.push(`prometheus :${env['OTEL_EXPORTER_PROMETHEUS_PORT'] || PrometheusExporter.DEFAULT_OPTIONS.port}`);
      continue;
    }
    let exporter: PushMetricExporter;
    if (name === 'console') {
      exporter = new ConsoleMetricExporter();
      described.push('console');
    } else {
      const protocol = otlpProtocol(env, 'OTEL_EXPORTER_OTLP_METRICS_PROTOCOL');
      exporter =
        protocol === 'grpc'
          ? new GrpcExporter()
          : protocol === 'http/json'
            ? new HttpJsonExporter()
            : new HttpProtoExporter();
      described.push(`otlp (${protocol})`);
    }
    readers.push(new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: interval }));
  }
  const provider = new MeterProvider({ resource, readers });
  const meter = provider.getMeter('com.anthropic.claude_code', RUNNER_VERSION);
  return {
    metrics: new AgentMetrics(meter, RUNNER_VERSION),
    description: described.join(', '),
    shutdown: () => provider.shutdown(),
  };
}

function startEvents(
  env: NodeJS.ProcessEnv,
  chosen: string[],
  resource: Resource,
): { events: AgentEvents; description: string; shutdown: () => Promise<void> } {
  const interval = exportInterval(env, 'OTEL_LOGS_EXPORT_INTERVAL', 5_000);
  const described: string[] = [];
  const processors = chosen.map((name) => {
    let exporter: LogRecordExporter;
    if (name === 'console') {
      exporter = new ConsoleLogRecordExporter();
      described.push('console');
    } else {
      const protocol = otlpProtocol(env, 'OTEL_EXPORTER_OTLP_LOGS_PROTOCOL');
      exporter =
        protocol === 'grpc'
          ? new GrpcLogExporter()
          : protocol === 'http/json'
            ? new HttpJsonLogExporter()
            : new HttpProtoLogExporter();
      described.push(`otlp (${protocol})`);
    }
    return new BatchLogRecordProcessor({ exporter, scheduledDelayMillis: interval });
  });
  const provider = new LoggerProvider({ resource, processors });
  // Claude Code's logger name.
  const logger = provider.getLogger('com.anthropic.claude_code.events', RUNNER_VERSION);
  return {
    events: new AgentEvents(logger, RUNNER_VERSION, isOn(env['OTEL_LOG_USER_PROMPTS'])),
    description: described.join(', '),
    shutdown: () => provider.shutdown(),
  };
}

function isOn(v: string | undefined): boolean {
  const s = (v ?? '').trim().toLowerCase();
  return s === '1' || s === 'true';
}

function otlpProtocol(env: NodeJS.ProcessEnv, specific: string): string {
  const variable = env[specific] ? specific : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const raw = env[variable] || 'http/protobuf';
  const p = raw.trim().toLowerCase();
  if (!PROTOCOLS.has(p)) {
    throw new TelemetryConfigError(
      `${variable}: unknown protocol "${raw}" (expected grpc, http/protobuf or http/json)`,
    );
  }
  return p;
}

function exportInterval(env: NodeJS.ProcessEnv, variable: string, fallback: number): number {
  const raw = env[variable];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) {
    throw new TelemetryConfigError(`${variable}: expected a positive number of ms, got "${raw}"`);
  }
  return n;
}
