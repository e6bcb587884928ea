import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { LogLevel, MetricsExporterConfig } from '@temporalio/worker';
import { formatLogEntry } from './log-format';

let installed = false;

export { runtimeLogLevel } from './log-level';

/**
 * Installs the Temporal SDK runtime once per process:
 * - with a logger at `level` (the SDK logs every worker state change at INFO, which would drown a
 *   CLI's output), writing to **stderr**;
 * - with `forwardCoreLogs`, the native core's logs forwarded to that logger (by default the core
 *   prints to the console itself, which could put a log line into a `stream-json` stdout). The
 *   CLI turns it on; it is off by default because the forwarding keeps the runtime alive, so a
 *   process that does not call `process.exit` (a test runner) would not exit on its own;
 * - with **no shutdown signal handlers**: by default the SDK shuts workers down on SIGINT/SIGTERM,
 *   which would stop an in-process worker before the CLI's own handler can interrupt the turn
 *   cleanly. The commands handle signals themselves.
 * Later calls are no-ops (the runtime can only be installed before the first worker or connection).
 */
export function installRuntimeLogging(
  level: LogLevel = 'WARN',
  opts: {
    forwardCoreLogs?: boolean;
    /** Temporal's worker metrics (`worker.metricsPrometheusAddress`, `worker.metricsOtlpUrl`). */
    metrics?: { prometheusAddress: string | null; otlpUrl: string | null };
  } = {},
): void {
  if (installed) return;
  installed = true;
  const metrics = runtimeMetrics(opts.metrics);
  try {
    Runtime.install({
      logger: new DefaultLogger(level, ({ level: l, message, meta }) => {
        // Expected for the activity-only worker of a host queue (workspace routing): not news.
        if (message === 'No workflows registered, not polling for workflow tasks') return;
        process.stderr.write(`${new Date().toISOString()} [${l}] ${formatLogEntry(message, meta)}\n`);
      }),
      ...(opts.forwardCoreLogs || metrics
        ? {
            telemetryOptions: {
              ...(opts.forwardCoreLogs ? { logging: { filter: { core: level, other: level }, forward: {} } } : {}),
              ...(metrics ? { metrics } : {}),
            },
          }
        : {}),
      shutdownSignals: [],
    });
  } catch {
    // Already installed (e.g. by a test harness): keep that one.
  }
}

/**
 * The SDK Runtime's metrics exporter for the configured endpoint: Prometheus wins when both are
 * set (the SDK Runtime has one metrics exporter); an `http(s)` OTLP URL is OTLP/HTTP, `grpc(s)` OTLP/gRPC.
 */
export function runtimeMetrics(
  m: { prometheusAddress: string | null; otlpUrl: string | null } | undefined,
): MetricsExporterConfig | undefined {
  if (m?.prometheusAddress) return { prometheus: { bindAddress: m.prometheusAddress } };
  if (m?.otlpUrl) {
    const http = /^https?:/.test(m.otlpUrl);
    const url = http ? m.otlpUrl : m.otlpUrl.replace(/^grpc/, 'http');
    return { otel: { url, http } };
  }
  return undefined;
}
