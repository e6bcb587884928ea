/**
 * Agent events (OTel log records) under Claude Code's names, from an `agent-runner worker` process
 * configured only by Claude Code's variables, received by a local OTLP/HTTP (JSON) collector
 * stand-in after one turn with a failed model call, a tool run and a denied tool call.
 */
import * as http from 'node:http';
import type * as net from 'node:net';
import { makeRepo, startRunnerEnv, type RunnerEnv } from '../../helpers/runner-env';
import { startWorkerProcess, type WorkerProcess } from '../../helpers/worker-process';

interface OtlpAttr {
  key: string;
  value: { stringValue?: string; intValue?: string | number; doubleValue?: number };
}
interface OtlpLogRecord {
  body?: { stringValue?: string };
  attributes: OtlpAttr[];
}
interface OtlpLogsRequest {
  resourceLogs: Array<{
    resource: { attributes: OtlpAttr[] };
    scopeLogs: Array<{ scope?: { name?: string }; logRecords: OtlpLogRecord[] }>;
  }>;
}

/** A collector stand-in: OTLP/HTTP with JSON bodies on /v1/logs, every request kept. */
async function startOtlpLogReceiver(): Promise<{ url: string; requests: OtlpLogsRequest[]; close(): Promise<void> }> {
  const requests: OtlpLogsRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/logs' && req.headers['content-type']?.includes('application/json')) {
        requests.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpLogsRequest);
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

/** An event as name → attribute values (strings and numbers as OTLP/JSON carries them). */
interface Event {
  body: string;
  scope: string;
  attrs: Record<string, string | number | undefined>;
}

function eventsOf(requests: OtlpLogsRequest[], sessionId: string): Event[] {
  return requests
    .flatMap((r) => r.resourceLogs)
    .flatMap((rl) =>
      rl.scopeLogs.flatMap((s) =>
        s.logRecords.map((rec) => ({
          body: rec.body?.stringValue ?? '',
          scope: s.scope?.name ?? '',
          attrs: Object.fromEntries(
            rec.attributes.map((a) => [
              a.key,
              a.value.stringValue ?? (a.value.intValue !== undefined ? Number(a.value.intValue) : a.value.doubleValue),
            ]),
          ),
        })),
      ),
    )
    .filter((e) => e.attrs['session.id'] === sessionId);
}

async function waitForEvents(
  requests: OtlpLogsRequest[],
  sessionId: string,
  done: (events: Event[]) => boolean,
): Promise<Event[]> {
  const deadline = Date.now() + 20_000;
  let events: Event[] = [];
  while (Date.now() < deadline) {
    events = eventsOf(requests, sessionId);
    if (done(events)) return events;
    await new Promise((r) => setTimeout(r, 200));
  }
  return events;
}

const PROMPT = '[case:events] run the commands for the secret project zebra-42';
let env: RunnerEnv;
let otlp: Awaited<ReturnType<typeof startOtlpLogReceiver>>;
let worker: WorkerProcess | undefined;
beforeAll(async () => {
  otlp = await startOtlpLogReceiver();
  env = await startRunnerEnv({
    worker: false,
    scenario: {
      scripts: [
        {
          name: 'events',
          match: { promptContains: '[case:events]' },
          steps: [
            {
              errors: [{ status: 500 }],
              content: [{ tool_use: { name: 'Bash', input: { command: 'echo allowed' } } }],
              usage: {
                input_tokens: 120,
                output_tokens: 9,
                cache_read_input_tokens: 40,
                cache_creation_input_tokens: 8,
              },
            },
            { content: [{ tool_use: { name: 'Bash', input: { command: 'touch denied.txt' } } }] },
            { content: [{ text: 'Done.' }] },
          ],
        },
        { name: 'chat', steps: [{ content: [{ text: 'Hello!' }] }] },
      ],
    } as never,
  });
});
afterAll(async () => {
  await worker?.stop();
  await env.close();
  await otlp.close();
});

const base = (url: string): NodeJS.ProcessEnv => ({
  ...env.workerEnv,
  CLAUDE_CODE_ENABLE_TELEMETRY: '1',
  OTEL_LOGS_EXPORTER: 'otlp',
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  OTEL_EXPORTER_OTLP_ENDPOINT: url,
  OTEL_LOGS_EXPORT_INTERVAL: '200',
});

describe('agent events (claude_code.* log records) from the worker', () => {
  test('telemetry: one turn emits user_prompt, api_error, api_request, tool_decision and tool_result once per real call, with no content', async () => {
    worker = await startWorkerProcess(base(otlp.url));
    const engine = env.engine({ cwd: makeRepo({}) });
    const { result } = await env.runTurn(engine, PROMPT, { permissionMode: 'default', allowedTools: ['Bash(echo *)'] });
    expect(result.subtype).toBe('success');
    const sessionId = result.session_id;
    const events = await waitForEvents(
      otlp.requests,
      sessionId,
      (es) => es.filter((e) => e.body === 'claude_code.api_request').length >= 3,
    );
    // Give a late duplicate the chance to arrive before counting.
    await new Promise((r) => setTimeout(r, 600));
    const all = eventsOf(otlp.requests, sessionId);
    const count = (body: string) => all.filter((e) => e.body === body).length;
    expect({
      user_prompt: count('claude_code.user_prompt'),
      api_error: count('claude_code.api_error'),
      api_request: count('claude_code.api_request'),
      tool_decision: count('claude_code.tool_decision'),
      tool_result: count('claude_code.tool_result'),
    }).toEqual({ user_prompt: 1, api_error: 1, api_request: 3, tool_decision: 2, tool_result: 1 });
    expect(events.every((e) => e.scope === 'com.anthropic.claude_code.events')).toBe(true);
    for (const e of all) {
      expect(e.attrs['event.name']).toBe(e.body.replace('claude_code.', ''));
      expect(typeof e.attrs['event.sequence']).toBe('number');
      expect(e.attrs['event.timestamp']).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(e.attrs['app.version']).toBeDefined();
    }

    const prompt = all.find((e) => e.body === 'claude_code.user_prompt')!;
    expect(prompt.attrs['prompt_length']).toBe(String(PROMPT.length));
    expect(prompt.attrs['prompt']).toBe('<REDACTED>');

    const error = all.find((e) => e.body === 'claude_code.api_error')!;
    expect(error.attrs).toMatchObject({ status_code: 500, attempt: 1, speed: 'normal' });
    expect(error.attrs['model']).toMatch(/^claude-/);

    // The first request's usage (the fake model's), and the totals equal the result's.
    const requests = all.filter((e) => e.body === 'claude_code.api_request');
    expect(requests[0]!.attrs).toMatchObject({
      input_tokens: 120,
      output_tokens: 9,
      cache_read_tokens: 40,
      cache_creation_tokens: 8,
    });
    const sum = (k: string) => requests.reduce((n, e) => n + Number(e.attrs[k] ?? 0), 0);
    expect(sum('input_tokens')).toBe(result.usage.input_tokens);
    expect(sum('output_tokens')).toBe(result.usage.output_tokens);
    expect(sum('cost_usd')).toBeCloseTo(result.total_cost_usd, 9);
    for (const r of requests) expect(typeof r.attrs['duration_ms']).toBe('number');

    const decisions = all.filter((e) => e.body === 'claude_code.tool_decision').map((e) => e.attrs);
    expect(decisions.map((d) => [d['tool_name'], d['decision'], d['source']])).toEqual([
      ['Bash', 'accept', 'config'],
      ['Bash', 'reject', 'config'],
    ]);
    const toolResult = all.find((e) => e.body === 'claude_code.tool_result')!;
    expect(toolResult.attrs).toMatchObject({
      tool_name: 'Bash',
      success: 'true',
      decision_source: 'config',
      decision_type: 'accept',
      tool_use_id: decisions[0]!['tool_use_id'],
    });
    expect(String(toolResult.attrs['duration_ms'])).toMatch(/^\d+$/);

    // Content never becomes an attribute: not the prompt, not the commands.
    const exported = JSON.stringify(otlp.requests);
    expect(exported).not.toContain('zebra-42');
    expect(exported).not.toContain('touch denied');
  });

  test('telemetry: with OTEL_LOG_USER_PROMPTS=1 the user_prompt event carries the prompt text', async () => {
    await worker?.stop();
    worker = await startWorkerProcess({ ...base(otlp.url), OTEL_LOG_USER_PROMPTS: '1' });
    const { result } = await env.runTurn(env.engine({ cwd: makeRepo({}) }), 'hello there, zebra-7');
    expect(result.subtype).toBe('success');
    const events = await waitForEvents(otlp.requests, result.session_id, (es) =>
      es.some((e) => e.body === 'claude_code.user_prompt'),
    );
    const prompt = events.find((e) => e.body === 'claude_code.user_prompt')!;
    expect(prompt.attrs).toMatchObject({
      prompt: 'hello there, zebra-7',
      prompt_text: 'hello there, zebra-7',
      prompt_length: '20',
    });
  });
});
