import { TelemetryConfigError, startAgentTelemetry, telemetryEnabled } from '../../../src/telemetry/setup';

function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected an error');
}

describe('telemetry setup from Claude Code variables', () => {
  test('telemetry: CLAUDE_CODE_ENABLE_TELEMETRY is on for 1 or true only', () => {
    expect(telemetryEnabled({ CLAUDE_CODE_ENABLE_TELEMETRY: '1' })).toBe(true);
    expect(telemetryEnabled({ CLAUDE_CODE_ENABLE_TELEMETRY: 'TRUE' })).toBe(true);
    expect(telemetryEnabled({ CLAUDE_CODE_ENABLE_TELEMETRY: '0' })).toBe(false);
    expect(telemetryEnabled({})).toBe(false);
  });

  test('telemetry: off, or on without an exporter (unset or none), starts nothing', () => {
    expect(startAgentTelemetry({ OTEL_METRICS_EXPORTER: 'otlp' })).toBeNull();
    expect(startAgentTelemetry({ CLAUDE_CODE_ENABLE_TELEMETRY: '1' })).toBeNull();
    expect(startAgentTelemetry({ CLAUDE_CODE_ENABLE_TELEMETRY: '1', OTEL_METRICS_EXPORTER: 'none' })).toBeNull();
  });

  test('telemetry: the OTLP protocol comes from the metrics variable first, then the general one', async () => {
    const t = startAgentTelemetry({
      CLAUDE_CODE_ENABLE_TELEMETRY: '1',
      OTEL_METRICS_EXPORTER: 'otlp,console',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/json',
    });
    expect(t?.description).toBe('otlp (http/json), console');
    await t?.shutdown();
  });

  test('telemetry: a bad interval is a usage error naming the variable', () => {
    const err = errorOf(() =>
      startAgentTelemetry({
        CLAUDE_CODE_ENABLE_TELEMETRY: '1',
        OTEL_METRICS_EXPORTER: 'otlp',
        OTEL_METRIC_EXPORT_INTERVAL: 'soon',
      }),
    );
    expect(err).toBeInstanceOf(TelemetryConfigError);
    expect(err.message).toBe('OTEL_METRIC_EXPORT_INTERVAL: expected a positive number of ms, got "soon"');
  });

  test('telemetry: OTEL_LOGS_EXPORTER alone starts the events without metrics, with its own protocol variable', async () => {
    const t = startAgentTelemetry({
      CLAUDE_CODE_ENABLE_TELEMETRY: '1',
      OTEL_LOGS_EXPORTER: 'otlp,console',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_LOGS_PROTOCOL: 'http/json',
    });
    expect(t?.metrics).toBeUndefined();
    expect(t?.events?.logUserPrompts).toBe(false);
    expect(t?.description).toBe('events otlp (http/json), console');
    await t?.shutdown();
  });

  test('telemetry: an unknown log exporter or a bad events interval is a usage error naming the variable', () => {
    const on = { CLAUDE_CODE_ENABLE_TELEMETRY: '1' };
    expect(errorOf(() => startAgentTelemetry({ ...on, OTEL_LOGS_EXPORTER: 'prometheus' })).message).toBe(
      'OTEL_LOGS_EXPORTER: unknown exporter "prometheus" (expected a comma list of otlp, console, none)',
    );
    const err = errorOf(() =>
      startAgentTelemetry({ ...on, OTEL_LOGS_EXPORTER: 'otlp', OTEL_LOGS_EXPORT_INTERVAL: '-1' }),
    );
    expect(err).toBeInstanceOf(TelemetryConfigError);
    expect(err.message).toBe('OTEL_LOGS_EXPORT_INTERVAL: expected a positive number of ms, got "-1"');
  });
});
