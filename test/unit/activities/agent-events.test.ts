import { ApplicationFailure } from '@temporalio/common';
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  withCodeEditMetrics,
  withModelEvents,
  withPromptEvents,
  withToolEvents,
} from '../../../src/activities/agent-events';
import type { Activities } from '../../../src/activities/types';
import { AgentMetrics } from '../../../src/telemetry/agent-metrics';
import type { CallModelInput, CallModelSummary } from '../../../src/common/model';
import type { RecordPromptInput } from '../../../src/common/turn';
import type { RunToolInput, RunToolSummary } from '../../../src/common/tools';
import type { TranscriptStore } from '../../../src/store/transcript-store';
import { AgentEvents } from '../../../src/telemetry/agent-events';

function eventsWith(logUserPrompts = false): {
  events: AgentEvents;
  names: () => string[];
  exporter: InMemoryLogRecordExporter;
} {
  const exporter = new InMemoryLogRecordExporter();
  const provider = new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter })] });
  const events = new AgentEvents(provider.getLogger('test'), '0.0.0', logUserPrompts);
  return { events, exporter, names: () => exporter.getFinishedLogRecords().map((r) => String(r.body)) };
}

const modelInput = { sessionId: 's1', model: 'claude-sonnet-4-5' } as CallModelInput;
const summary = (replayed: boolean): CallModelSummary =>
  ({
    model: 'claude-sonnet-4-5',
    usage: { input_tokens: 3, output_tokens: 2, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
    costUsd: 0.5,
    durationMs: 10,
    replayed,
  }) as CallModelSummary;
const toolInput = {
  sessionId: 's1',
  toolName: 'Bash',
  toolUseId: 'toolu_1',
  permission: { behavior: 'allow' },
} as RunToolInput;
const toolSummary = (s: Partial<RunToolSummary>): RunToolSummary =>
  ({
    toolUseId: 'toolu_1',
    resultUuid: 'r',
    isError: false,
    outcome: 'ok',
    resultBytes: 5,
    replayed: false,
    ...s,
  }) as RunToolSummary;

describe('agent events of the activities', () => {
  test('events: a model call emits api_request once; a stored response (replayed) emits nothing', async () => {
    const t = eventsWith();
    await withModelEvents(async () => summary(false), t.events)(modelInput);
    await withModelEvents(async () => summary(true), t.events)(modelInput);
    expect(t.names()).toEqual(['claude_code.api_request']);
    expect(t.exporter.getFinishedLogRecords()[0]!.attributes).toMatchObject({ cost_usd: 0.5, cost_usd_micros: 500000 });
  });

  test('events: an API failure emits api_error with its status; a store failure emits none', async () => {
    const t = eventsWith();
    const api = ApplicationFailure.create({
      type: 'ModelError.Server',
      message: 'boom',
      details: [{ status: 503, requestId: 'req_1' }],
    });
    await expect(withModelEvents(() => Promise.reject(api), t.events)(modelInput)).rejects.toBe(api);
    const store = ApplicationFailure.create({ type: 'TranscriptError.Unavailable', message: 'db down' });
    await expect(withModelEvents(() => Promise.reject(store), t.events)(modelInput)).rejects.toBe(store);
    expect(t.names()).toEqual(['claude_code.api_error']);
    expect(t.exporter.getFinishedLogRecords()[0]!.attributes).toMatchObject({
      status_code: 503,
      request_id: 'req_1',
      error: 'boom',
      attempt: 1,
    });
  });

  test('events: a tool run emits tool_decision then tool_result; a denial only a reject; replayed, ask and skipped runs nothing', async () => {
    const t = eventsWith();
    await withToolEvents(async () => toolSummary({}), t.events)(toolInput);
    await withToolEvents(async () => toolSummary({ outcome: 'denied', isError: true }), t.events)(toolInput);
    await withToolEvents(async () => toolSummary({ replayed: true }), t.events)(toolInput);
    await withToolEvents(async () => toolSummary({ outcome: 'ask' }), t.events)(toolInput);
    await withToolEvents(
      async () => toolSummary({ isError: true }),
      t.events,
    )({ ...toolInput, skipReason: 'interrupted' });
    expect(t.names()).toEqual(['claude_code.tool_decision', 'claude_code.tool_result', 'claude_code.tool_decision']);
    const [accept, result, reject] = t.exporter.getFinishedLogRecords().map((r) => r.attributes);
    expect(accept).toMatchObject({ decision: 'accept', source: 'config', tool_name: 'Bash', tool_use_id: 'toolu_1' });
    expect(result).toMatchObject({ success: 'true', tool_result_size_bytes: '5', decision_type: 'accept' });
    expect(reject).toMatchObject({ decision: 'reject' });
  });

  test("events: a hook's denial has source hook; a Tool.Fault is a failed tool_result with its type", async () => {
    const t = eventsWith();
    const hookDenied = {
      ...toolInput,
      permission: { behavior: 'deny', message: 'no', reason: 'hook' },
    } as RunToolInput;
    await withToolEvents(async () => toolSummary({ outcome: 'denied' }), t.events)(hookDenied);
    const fault = ApplicationFailure.create({ type: 'Tool.Fault', message: 'EACCES', nonRetryable: true });
    await expect(withToolEvents(() => Promise.reject(fault), t.events)(toolInput)).rejects.toBe(fault);
    const attrs = t.exporter.getFinishedLogRecords().map((r) => r.attributes);
    expect(attrs[0]).toMatchObject({ decision: 'reject', source: 'hook' });
    expect(attrs[2]).toMatchObject({ success: 'false', error_type: 'Tool.Fault' });
  });

  test('events: user_prompt is emitted when the line is written, redacted unless OTEL_LOG_USER_PROMPTS', async () => {
    const store = { getContent: async () => Buffer.from('fix the bug') } as unknown as TranscriptStore;
    const input = { sessionId: 's1', prompt: { key: 'prompt/1', sha256: 'x' } } as unknown as RecordPromptInput;
    const off = eventsWith(false);
    await withPromptEvents(async () => ({ uuid: 'u', written: true }), off.events, store)(input);
    await withPromptEvents(async () => ({ uuid: 'u', written: false }), off.events, store)(input);
    expect(off.exporter.getFinishedLogRecords().map((r) => r.attributes)).toEqual([
      expect.objectContaining({ prompt_length: '11', prompt: '<REDACTED>', prompt_text: '<REDACTED>' }),
    ]);
    const on = eventsWith(true);
    await withPromptEvents(async () => ({ uuid: 'u', written: true }), on.events, store)(input);
    expect(on.exporter.getFinishedLogRecords()[0]!.attributes).toMatchObject({ prompt: 'fix the bug' });
  });

  test('metrics: claude_code.code_edit_tool.decision counts Edit/Write/NotebookEdit decisions once; other tools and replays add nothing', async () => {
    const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
    const provider = new MeterProvider({ readers: [reader] });
    const metrics = new AgentMetrics(provider.getMeter('test'), '0.0.0');
    const outcomes: RunToolSummary[] = [
      toolSummary({}),
      toolSummary({ outcome: 'denied', isError: true }),
      toolSummary({ replayed: true }),
      toolSummary({}),
    ];
    const acts = withCodeEditMetrics(metrics, { runTool: async () => outcomes.shift()! } as unknown as Activities);
    await acts.runTool({ ...toolInput, toolName: 'Edit' });
    await acts.runTool({ ...toolInput, toolName: 'Write' });
    await acts.runTool({ ...toolInput, toolName: 'Edit' });
    await acts.runTool({ ...toolInput, toolName: 'Bash' });
    await reader.forceFlush();
    const points = exporter
      .getMetrics()
      .flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics))
      .filter((m) => m.descriptor.name === 'claude_code.code_edit_tool.decision')
      .flatMap((m) =>
        m.dataPoints.map((p) => [p.attributes['tool_name'], p.attributes['decision'], p.attributes['source'], p.value]),
      );
    expect(points).toEqual([
      ['Edit', 'accept', 'config', 1],
      ['Write', 'reject', 'config', 1],
    ]);
    await provider.shutdown();
  });
});
