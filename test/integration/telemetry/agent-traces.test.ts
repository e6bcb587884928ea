/**
 * Spans of a turn's activities, from an `agent-runner worker` process configured only by
 * `OTEL_TRACES_EXPORTER` and the OTLP variables, received by a local OTLP/HTTP (JSON) collector
 * stand-in: Temporal's `RunActivity:<type>` spans, and the runner's `claude_code.llm_request` and
 * `claude_code.tool` spans as their children.
 */
import * as http from 'node:http';
import type * as net from 'node:net';
import { makeRepo, startRunnerEnv, type RunnerEnv } from '../../helpers/runner-env';
import { startWorkerProcess, type WorkerProcess } from '../../helpers/worker-process';

interface OtlpAttr {
  key: string;
  value: { stringValue?: string; intValue?: string | number; boolValue?: boolean };
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: OtlpAttr[];
}
interface OtlpTracesRequest {
  resourceSpans: Array<{ resource: { attributes: OtlpAttr[] }; scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
}

async function startOtlpTraceReceiver(): Promise<{ url: string; spans: OtlpSpan[]; close(): Promise<void> }> {
  const spans: OtlpSpan[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces' && req.headers['content-type']?.includes('application/json')) {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpTracesRequest;
        spans.push(...body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)));
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
    spans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const attr = (s: OtlpSpan, key: string): string | boolean | undefined => {
  const v = s.attributes.find((a) => a.key === key)?.value;
  return v?.stringValue ?? v?.boolValue;
};

let env: RunnerEnv;
let otlp: Awaited<ReturnType<typeof startOtlpTraceReceiver>>;
let worker: WorkerProcess | undefined;
beforeAll(async () => {
  otlp = await startOtlpTraceReceiver();
  env = await startRunnerEnv({
    worker: false,
    scenario: {
      steps: [
        { content: [{ tool_use: { name: 'Bash', input: { command: 'echo traced' } } }] },
        { content: [{ text: 'Done.' }] },
      ],
    } as never,
  });
});
afterAll(async () => {
  await worker?.stop();
  await env.close();
  await otlp.close();
});

describe('traces of a turn from the worker', () => {
  test("telemetry: a turn's model calls and tool run are claude_code.llm_request and claude_code.tool spans inside Temporal's RunActivity spans", async () => {
    worker = await startWorkerProcess({
      ...env.workerEnv,
      CLAUDE_CODE_ENABLE_TELEMETRY: '1',
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_TRACES_EXPORT_INTERVAL: '200',
    });
    const { result } = await env.runTurn(env.engine({ cwd: makeRepo({}) }), 'run echo, zebra-9', {
      permissionMode: 'bypassPermissions',
    });
    expect(result.subtype).toBe('success');
    const sessionId = result.session_id;
    const ours = () => otlp.spans.filter((s) => attr(s, 'session.id') === sessionId);
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline && ours().filter((s) => s.name === 'claude_code.llm_request').length < 2) {
      await new Promise((r) => setTimeout(r, 200));
    }
    const byId = new Map(otlp.spans.map((s) => [s.spanId, s]));
    const llm = ours().filter((s) => s.name === 'claude_code.llm_request');
    const tools = ours().filter((s) => s.name === 'claude_code.tool');
    expect(llm).toHaveLength(2);
    expect(tools).toHaveLength(1);
    for (const s of llm) {
      const parent = byId.get(s.parentSpanId ?? '');
      expect(parent?.name).toBe('RunActivity:callModel');
      expect(parent?.traceId).toBe(s.traceId);
      expect(attr(s, 'model')).toMatch(/^claude-/);
      expect(attr(s, 'success')).toBe(true);
    }
    const tool = tools[0]!;
    expect(byId.get(tool.parentSpanId ?? '')?.name).toBe('RunActivity:runTool');
    expect(attr(tool, 'tool_name')).toBe('Bash');
    expect(attr(tool, 'agent_runner.outcome')).toBe('ok');
    // Temporal's span names the workflow it ran for.
    expect(String(attr(byId.get(tool.parentSpanId ?? '')!, 'temporalWorkflowId'))).toContain(sessionId);
    expect(JSON.stringify(otlp.spans)).not.toContain('zebra-9');
    expect(JSON.stringify(otlp.spans)).not.toContain('echo traced');
  });
});
