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
import { AgentMetrics } from './agent-metrics';

/**
 * Thrown by {@link startAgentTelemetry} for a telemetry variable with a value it does not know
 * (an exporter or protocol name, an interval that is not a positive number). The worker exits 2.
 */
export class TelemetryConfigError extends AgentRunnerError {
  override readonly name = 'TelemetryConfigError';
  readonly kind = 'usage';
}

/** A running metrics pipeline. */
export interface AgentTelemetry {
  metrics: AgentMetrics;
  /** One line for the worker's start message, e.g. `otlp (http/json), prometheus :9464`. */
  description: string;
  /** Exports what is pending and stops the exporters (the Prometheus server too). */
  shutdown(): Promise<void>;
}

const EXPORTERS = new Set(['otlp', 'prometheus', 'console', 'none']);
const PROTOCOLS = new Set(['grpc', 'http/protobuf', 'http/json']);

/** True when `CLAUDE_CODE_ENABLE_TELEMETRY` is `1` or `true` (any case). */
export function telemetryEnabled(env: NodeJS.ProcessEnv): boolean {
  const v = (env['CLAUDE_CODE_ENABLE_TELEMETRY'] ?? '').trim().toLowerCase();
  return v === '1' || v === 'true';
}

/**
 * Starts the agent metrics pipeline when telemetry is on and an exporter is chosen.
 * @returns null when `CLAUDE_CODE_ENABLE_TELEMETRY` is off or `OTEL_METRICS_EXPORTER` is unset or `none`.
 * @throws TelemetryConfigError for an unknown exporter or protocol, or a bad interval.
 */
export function startAgentTelemetry(env: NodeJS.ProcessEnv = process.env): AgentTelemetry | null {
  if (!telemetryEnabled(env)) return null;
  const names = (env['OTEL_METRICS_EXPORTER'] ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s.length > 0);
  for (const n of names) {
    if (!EXPORTERS.has(n)) {
      throw new TelemetryConfigError(
        `OTEL_METRICS_EXPORTER: unknown exporter "${n}" (expected a comma list of otlp, prometheus, console, none)`,
      );
    }
  }
  const chosen = names.filter((n) => n !== 'none');
  if (chosen.length === 0) return null;

  const readers: IMetricReader[] = [];
  const described: string[] = [];
  const interval = exportInterval(env);
  for (const name of new Set(chosen)) {
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
      const protocol = otlpProtocol(env);
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

  const resource = resourceFromAttributes({ 'service.name': 'agent-runner', 'service.version': RUNNER_VERSION }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  const provider = new MeterProvider({ resource, readers });
  const meter = provider.getMeter('com.anthropic.claude_code', RUNNER_VERSION);
  return {
    metrics: new AgentMetrics(meter, RUNNER_VERSION),
    description: described.join(', '),
    shutdown: () => provider.shutdown(),
  };
}

function otlpProtocol(env: NodeJS.ProcessEnv): string {
  const raw = env['OTEL_EXPORTER_OTLP_METRICS_PROTOCOL'] || env['OTEL_EXPORTER_OTLP_PROTOCOL'] || 'http/protobuf';
  const p = raw.trim().toLowerCase();
  if (!PROTOCOLS.has(p)) {
    throw new TelemetryConfigError(
      `OTEL_EXPORTER_OTLP_PROTOCOL: unknown protocol "${raw}" (expected grpc, http/protobuf or http/json)`,
    );
  }
  return p;
}

function exportInterval(env: NodeJS.ProcessEnv): number {
  const raw = env['OTEL_METRIC_EXPORT_INTERVAL'];
  if (raw === undefined || raw === '') return 60_000;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) {
    throw new TelemetryConfigError(`OTEL_METRIC_EXPORT_INTERVAL: expected a positive number of ms, got "${raw}"`);
  }
  return n;
}
