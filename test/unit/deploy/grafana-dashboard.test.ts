import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLAUDE_CODE_METRICS } from '../../../src/telemetry/agent-metrics';

const FILE = path.resolve(__dirname, '../../../deploy/grafana-dashboard.json');

interface Panel {
  title: string;
  targets: Array<{ expr: string }>;
}

/** The Prometheus names an OTel counter gets: direct exporter (`x_total`) or an OTel Collector (`x_<unit>_total`). */
function promNames(otelName: string, unit: string): RegExp {
  return new RegExp(`^${otelName.replace(/\./g, '_')}(_${unit})?_total$`);
}

describe('deploy/grafana-dashboard.json', () => {
  const dash = JSON.parse(fs.readFileSync(FILE, 'utf8')) as { panels: Panel[]; templating: unknown };
  const exprs = dash.panels.flatMap((p) => p.targets.map((t) => t.expr));

  test('dashboard: every claude_code series it queries is one the worker emits, under both Prometheus spellings', () => {
    const emitted = [
      promNames(CLAUDE_CODE_METRICS.tokenUsage, 'tokens'),
      promNames(CLAUDE_CODE_METRICS.costUsage, 'USD'),
    ];
    const matchers = exprs.flatMap((e) => [...e.matchAll(/__name__=~"([^"]+)"/g)].map((m) => m[1]!));
    expect(matchers.length).toBeGreaterThan(0);
    for (const m of matchers) {
      const re = new RegExp(`^(?:${m})$`);
      // The matcher accepts the direct exporter's name and the Collector's, and only names we emit.
      const accepted = [
        'claude_code_token_usage_total',
        'claude_code_token_usage_tokens_total',
        'claude_code_cost_usage_total',
        'claude_code_cost_usage_USD_total',
      ].filter((n) => re.test(n));
      expect(accepted.length).toBe(2);
      for (const n of accepted) expect(emitted.some((e) => e.test(n))).toBe(true);
    }
  });

  test('dashboard: it groups only by labels the series carry (claude_code: model, type, session_id)', () => {
    for (const e of exprs.filter((x) => x.includes('claude_code'))) {
      for (const m of e.matchAll(/by \(([^)]+)\)/g)) {
        for (const label of m[1]!.split(',').map((s) => s.trim())) {
          expect(['model', 'type', 'session_id']).toContain(label);
        }
      }
    }
  });

  test('dashboard: the Temporal panels read the SDK Runtime metric names seen on its Prometheus endpoint', () => {
    const temporal = exprs.flatMap((e) => [...e.matchAll(/\b(temporal_[a-z_]+)/g)].map((m) => m[1]!));
    const known = [
      'temporal_worker_task_slots_available',
      'temporal_activity_execution_latency_bucket',
      'temporal_activity_schedule_to_start_latency_bucket',
      'temporal_workflow_completed',
      'temporal_workflow_failed',
    ];
    expect(temporal.length).toBeGreaterThan(0);
    for (const name of temporal) expect(known).toContain(name);
  });
});
