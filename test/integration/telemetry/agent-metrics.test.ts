/**
 * Agent metrics under Claude Code's names, from an `agent-runner worker` process configured only by
 * Claude Code's variables, received by a local OTLP/HTTP (JSON) collector stand-in and scraped from
 * the Prometheus endpoint after one turn.
 */
import * as http from 'node:http';
import * as net from 'node:net';
import { runCli } from '../../helpers/cli';
import { makeRepo, startRunnerEnv, testTurnOptions, type RunnerEnv } from '../../helpers/runner-env';
import { startWorkerProcess, type WorkerProcess } from '../../helpers/worker-process';

interface OtlpAttr {
  key: string;
  value: { stringValue?: string; intValue?: string; doubleValue?: number };
}
interface OtlpPoint {
  attributes: OtlpAttr[];
  asInt?: string;
  asDouble?: number;
}
interface OtlpMetric {
  name: string;
  unit?: string;
  sum?: { dataPoints: OtlpPoint[]; isMonotonic?: boolean };
}
interface OtlpRequest {
  resourceMetrics: Array<{ resource: { attributes: OtlpAttr[] }; scopeMetrics: Array<{ metrics: OtlpMetric[] }> }>;
}

/** A collector stand-in: OTLP/HTTP with JSON bodies on /v1/metrics, every request kept. */
async function startOtlpReceiver(): Promise<{ url: string; requests: OtlpRequest[]; close(): Promise<void> }> {
  const requests: OtlpRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/metrics' && req.headers['content-type']?.includes('application/json')) {
        requests.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpRequest);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } else {
        res.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as net.AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

const attr = (p: { attributes: OtlpAttr[] }, key: string): string | undefined =>
  p.attributes.find((a) => a.key === key)?.value.stringValue;
const valueOf = (p: OtlpPoint): number => (p.asDouble !== undefined ? p.asDouble : Number(p.asInt ?? 0));

/** The newest points of `name` for `sessionId` (cumulative temporality: the newest export holds the totals). */
function latestPoints(requests: OtlpRequest[], name: string, sessionId: string): OtlpPoint[] {
  for (let i = requests.length - 1; i >= 0; i--) {
    const points = (requests[i]?.resourceMetrics ?? [])
      .flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics))
      .filter((m) => m.name === name)
      .flatMap((m) => m.sum?.dataPoints ?? [])
      .filter((p) => attr(p, 'session.id') === sessionId);
    if (points.length > 0) return points;
  }
  return [];
}

const PROMPT = 'Say hello to the secret project zebra-42';
let env: RunnerEnv;
let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
let worker: WorkerProcess | undefined;
beforeAll(async () => {
  otlp = await startOtlpReceiver();
  env = await startRunnerEnv({
    worker: false,
    scenario: {
      scripts: [
        {
          name: 'code',
          match: { promptContains: 'commit the greeting' },
          steps: [
            {
              content: [{ tool_use: { name: 'Write', input: { file_path: '{{cwd}}/hello.txt', content: 'a\nb\nc' } } }],
            },
            {
              content: [
                {
                  tool_use: {
                    name: 'Bash',
                    input: {
                      command:
                        'git init -q && git add -A && git -c user.email=t@example.com -c user.name=t commit -qm greet',
                    },
                  },
                },
              ],
            },
            { content: [{ tool_use: { name: 'Bash', input: { command: 'git commit -m nothing-to-commit' } } }] },
            { content: [{ text: 'Committed.' }] },
          ],
        },
        {
          name: 'main',
          steps: [
            {
              content: [{ text: 'Hello!' }],
              usage: {
                input_tokens: 120,
                output_tokens: 9,
                cache_read_input_tokens: 40,
                cache_creation_input_tokens: 8,
              },
            },
          ],
        },
      ],
    } as never,
  });
});
afterAll(async () => {
  await worker?.stop();
  await env.close();
  await otlp.close();
});

describe('agent metrics (claude_code.*) and Temporal worker metrics from the worker', () => {
  test("telemetry: one turn exports claude_code.token.usage and claude_code.cost.usage over OTLP and on the Prometheus endpoint, beside Temporal's worker metrics", async () => {
    const promPort = await freePort();
    const temporalPromPort = await freePort();
    worker = await startWorkerProcess({
      ...env.workerEnv,
      CLAUDE_CODE_ENABLE_TELEMETRY: '1',
      OTEL_METRICS_EXPORTER: 'otlp,prometheus',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_METRIC_EXPORT_INTERVAL: '300',
      OTEL_EXPORTER_PROMETHEUS_HOST: '127.0.0.1',
      OTEL_EXPORTER_PROMETHEUS_PORT: String(promPort),
      OTEL_RESOURCE_ATTRIBUTES: 'team=platform',
      AGENT_RUNNER_METRICS_PROMETHEUS_ADDRESS: `127.0.0.1:${temporalPromPort}`,
    });
    const engine = env.engine({ cwd: makeRepo({}) });
    const { result } = await env.runTurn(engine, PROMPT);
    expect(result.subtype).toBe('success');
    const sessionId = result.session_id;

    // OTLP: wait for an export that holds this session's points.
    const deadline = Date.now() + 15_000;
    let tokens: OtlpPoint[] = [];
    while (Date.now() < deadline) {
      tokens = latestPoints(otlp.requests, 'claude_code.token.usage', sessionId);
      if (tokens.length === 4) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const byType = Object.fromEntries(tokens.map((p) => [attr(p, 'type'), valueOf(p)]));
    expect(byType).toEqual({
      input: result.usage.input_tokens,
      output: result.usage.output_tokens,
      cacheRead: result.usage.cache_read_input_tokens,
      cacheCreation: result.usage.cache_creation_input_tokens,
    });
    expect(byType['input']).toBe(120);
    for (const p of tokens) {
      expect(attr(p, 'model')).toMatch(/^claude-/);
      expect(attr(p, 'app.version')).toBeDefined();
    }
    const sessions = latestPoints(otlp.requests, 'claude_code.session.count', sessionId);
    expect(sessions.map(valueOf)).toEqual([1]);
    const cost = latestPoints(otlp.requests, 'claude_code.cost.usage', sessionId);
    expect(cost).toHaveLength(1);
    expect(valueOf(cost[0]!)).toBeCloseTo(result.total_cost_usd, 9);
    expect(result.total_cost_usd).toBeGreaterThan(0);

    const metricsOf = otlp.requests.flatMap((r) => r.resourceMetrics);
    const unitOf = (name: string) =>
      metricsOf.flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics)).find((m) => m.name === name)?.unit;
    expect(unitOf('claude_code.token.usage')).toBe('tokens');
    expect(unitOf('claude_code.cost.usage')).toBe('USD');
    const resource = metricsOf[0]!.resource;
    expect(attr(resource, 'service.name')).toBe('agent-runner');
    expect(attr(resource, 'team')).toBe('platform');
    // Content never becomes an attribute.
    expect(JSON.stringify(otlp.requests)).not.toContain('zebra-42');

    // Prometheus: the same counters, scraped.
    const text = await (await fetch(`http://127.0.0.1:${promPort}/metrics`)).text();
    const line = text
      .split('\n')
      .find(
        (l) =>
          l.startsWith('claude_code_token_usage') &&
          l.includes(`session_id="${sessionId}"`) &&
          l.includes('type="input"'),
      );
    expect(line).toBeDefined();
    expect(Number(line!.trim().split(/\s+/).pop())).toBe(120);
    expect(text).toMatch(/claude_code_cost_usage\w*\{[^}]*session_id="/);

    // Temporal's own worker metrics, from the SDK Runtime's Prometheus endpoint.
    const core = await (await fetch(`http://127.0.0.1:${temporalPromPort}/metrics`)).text();
    const ours = core
      .split('\n')
      .filter((l) => l.startsWith('temporal_') && l.includes(`task_queue="${env.taskQueue}"`));
    expect(ours.some((l) => l.startsWith('temporal_workflow_completed'))).toBe(true);
    expect(ours.some((l) => l.startsWith('temporal_activity_execution_latency'))).toBe(true);
    expect(core).toContain('temporal_worker_task_slots_available');
  });

  test('telemetry: lines_of_code counts what Write changed by model; commit.count a git commit that exited 0, not one that failed', async () => {
    expect(worker).toBeDefined(); // the telemetry worker of the test above
    const engine = env.engine({ cwd: makeRepo({}), defaults: testTurnOptions() });
    const { result } = await env.runTurn(engine, 'commit the greeting');
    expect(result).toMatchObject({ subtype: 'success', result: 'Committed.' });
    const sessionId = result.session_id;
    const deadline = Date.now() + 15_000;
    let lines: OtlpPoint[] = [];
    let commits: OtlpPoint[] = [];
    while (Date.now() < deadline) {
      lines = latestPoints(otlp.requests, 'claude_code.lines_of_code.count', sessionId);
      commits = latestPoints(otlp.requests, 'claude_code.commit.count', sessionId);
      if (lines.length === 2 && commits.length === 1) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const byType = Object.fromEntries(lines.map((p) => [attr(p, 'type'), valueOf(p)]));
    expect(byType).toEqual({ added: 3, removed: 0 });
    expect(lines.every((p) => attr(p, 'model') === 'claude-sonnet-5-5')).toBe(true);
    expect(commits.map(valueOf)).toEqual([1]);
    expect(latestPoints(otlp.requests, 'claude_code.pull_request.count', sessionId)).toEqual([]);
  });

  test('telemetry: an unknown exporter or protocol stops the worker with exit 2 naming the variable', async () => {
    const bad = await runCli(['worker'], {
      env: { ...env.workerEnv, CLAUDE_CODE_ENABLE_TELEMETRY: '1', OTEL_METRICS_EXPORTER: 'otlp,statsd' },
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('OTEL_METRICS_EXPORTER: unknown exporter "statsd"');
    const proto = await runCli(['worker'], {
      env: {
        ...env.workerEnv,
        CLAUDE_CODE_ENABLE_TELEMETRY: 'true',
        OTEL_METRICS_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'thrift',
      },
    });
    expect(proto.code).toBe(2);
    expect(proto.stderr).toContain('OTEL_EXPORTER_OTLP_PROTOCOL: unknown protocol "thrift"');
  });
});
