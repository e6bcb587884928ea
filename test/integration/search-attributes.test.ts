/**
 * The runner's custom search attributes on a real dev server: set at session start by the client,
 * upserted by the session workflow after each turn, found by `agent-runner list` (client.workflow.list)
 * and by `temporal workflow list --query`; and a server without them registered still runs sessions.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { listSessions } from '../../src/client/list';
import type { SessionRow } from '../../src/client/list';
import { QueryEngine } from '../../src/client/query-engine';
import { runList } from '../../src/cli/commands/list';
import { SA, SEARCH_ATTRIBUTES } from '../../src/common/search-attributes';
import type { SDKMessage, SDKResultMessage } from '../../src/common/sdk-messages';
import { loadConfig } from '../../src/config';
import { JsonlTranscriptStore } from '../../src/store/jsonl-store';
import { findTemporalCli, startDevServer } from '../../src/host/dev-server';
import { createRunnerWorker } from '../../src/worker/worker';
import { makeRepo, startRunnerEnv, temporalAddress, testTurnOptions } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';

jest.setTimeout(90_000);

async function waitForRows(
  client: Client,
  batchId: string,
  pred: (rows: SessionRow[]) => boolean,
  timeoutMs = 20_000,
): Promise<SessionRow[]> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const rows = await listSessions(client, { batchId });
    if (pred(rows)) return rows;
    if (Date.now() > end) throw new Error(`visibility never matched; last rows: ${JSON.stringify(rows)}`);
    await sleep(200);
  }
}

async function collect(gen: AsyncGenerator<SDKMessage>): Promise<SDKResultMessage> {
  let last: SDKMessage | undefined;
  for await (const m of gen) last = m;
  if (last?.type !== 'result') throw new Error('no result');
  return last;
}

describe('search attributes', () => {
  let env: RunnerEnv | undefined;
  afterEach(async () => {
    await env?.close();
    env = undefined;
  });

  test('search attributes: a session carries its session, batch and task ids; status and cost follow each turn', async () => {
    env = await startRunnerEnv({
      responder: (req, ctx) => {
        const first = JSON.stringify(req.messages[0]?.content ?? '');
        if (first.includes('slow')) return { delay_ms: 2500, content: [{ text: 'slow answer' }] };
        if (first.includes('loop'))
          return { content: [{ tool_use: { name: 'Bash', input: { command: `echo ${ctx.step}` } } }] };
        return { content: [{ text: 'answer' }] };
      },
    });
    const batchId = `sa-${Date.now()}`;
    const repo = makeRepo({});
    const okEngine = env.engine({ cwd: repo, searchAttributes: { batchId, taskId: 'ok' } });
    const ok = await collect(okEngine.submitMessage('quick question'));
    expect(ok.subtype).toBe('success');

    // A failing turn (max turns) and a slow one, observed while running.
    const errEngine = env.engine({ cwd: repo, searchAttributes: { batchId, taskId: 'err' } });
    const err = await collect(errEngine.submitMessage('loop forever', { limits: { maxTurns: 1 } }));
    expect(err.subtype).toBe('error_max_turns');
    const slowEngine = env.engine({ cwd: repo, searchAttributes: { batchId, taskId: 'slow' } });
    const slow = collect(slowEngine.submitMessage('slow question'));
    const during = await waitForRows(env.client, batchId, (rows) => rows.some((r) => r.taskId === 'slow'));
    expect(during.find((r) => r.taskId === 'slow')).toMatchObject({
      agentStatus: 'running',
      costUsd: 0,
      workflowStatus: 'RUNNING',
    });
    await slow;

    const rows = await waitForRows(
      env.client,
      batchId,
      (rs) => rs.length === 3 && rs.every((r) => r.agentStatus !== 'running'),
    );
    const byTask = Object.fromEntries(rows.map((r) => [r.taskId, r]));
    expect(byTask['ok']).toMatchObject({ sessionId: okEngine.sessionId, batchId, agentStatus: 'success' });
    expect(byTask['err']).toMatchObject({ sessionId: errEngine.sessionId, agentStatus: 'error_max_turns' });
    expect(byTask['slow']).toMatchObject({ agentStatus: 'success' });
    expect(byTask['ok']?.costUsd).toBeCloseTo(ok.total_cost_usd, 6);
    expect(byTask['err']?.costUsd).toBeCloseTo(err.total_cost_usd, 6);
    expect(byTask['ok']?.costUsd).toBeGreaterThan(0);

    // A second turn of the same session: status back to running, then the new result; cost accumulates.
    const second = await collect(okEngine.submitMessage('another quick question'));
    const after = await waitForRows(env.client, batchId, (rs) =>
      rs.some((r) => r.taskId === 'ok' && (r.costUsd ?? 0) > (byTask['ok']?.costUsd ?? 0) + 1e-9),
    );
    // The second result's total_cost_usd is the session's (both turns), as in Claude Code.
    expect(second.total_cost_usd).toBeGreaterThan(ok.total_cost_usd);
    expect(after.find((r) => r.taskId === 'ok')?.costUsd).toBeCloseTo(second.total_cost_usd, 6);

    // `agent-runner list --batch … --json` (in-process) and `temporal workflow list --query`.
    const lines: string[] = [];
    await runList(env.config, { batch: batchId, json: true }, { stdout: (s) => lines.push(s) });
    const listed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(listed.map((r) => r['task_id']).sort()).toEqual(['err', 'ok', 'slow']);
    expect(listed.find((r) => r['task_id'] === 'err')).toMatchObject({ status: 'error_max_turns', batch_id: batchId });
    const table: string[] = [];
    await runList(env.config, { batch: batchId, status: 'error_max_turns' }, { stdout: (s) => table.push(s) });
    expect(table.join('\n')).toMatch(/^SESSION\s+BATCH\s+TASK\s+STATUS\s+COST\s+MODEL\s+CWD\s+STARTED\s+PROMPT\n/);
    expect(table.join('\n')).toContain(errEngine.sessionId);
    expect(table.join('\n')).not.toContain(okEngine.sessionId);

    const { stdout } = await promisify(execFile)(findTemporalCli(), [
      'workflow',
      'list',
      '--address',
      temporalAddress(),
      '--query',
      `WorkflowType = 'sessionWorkflow' AND AgentBatchId = '${batchId}' AND AgentStatus = 'success'`,
      '-o',
      'json',
    ]);
    const ids = (JSON.parse(stdout) as Array<{ execution: { workflowId: string } }>).map((w) => w.execution.workflowId);
    expect(ids.sort()).toEqual([okEngine.workflowId, slowEngine.workflowId].sort());
  });

  test('search attributes: a server without them registered still runs sessions (started without attributes)', async () => {
    const server = await startDevServer({
      cliPath: findTemporalCli(),
      dataDir: mkdtempSync(join(tmpdir(), 'dar-nosa-')),
      dbFilename: null,
      logLevel: 'error',
    });
    env = await startRunnerEnv({ worker: false, scenario: { steps: [{ content: [{ text: 'plain answer' }] }] } });
    const connection = await Connection.connect({ address: server.address });
    const native = await NativeConnection.connect({ address: server.address });
    const config = loadConfig({ env: { ANTHROPIC_BASE_URL: env.fake.baseUrl, TEMPORAL_ADDRESS: server.address } });
    const store = new JsonlTranscriptStore(env.dataDir);
    const worker = await createRunnerWorker({
      connection: native,
      config,
      store,
      taskQueue: 'no-sa',
      env: { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: env.fake.baseUrl },
    });
    const run = worker.run();
    try {
      const client = new Client({ connection });
      const engine = new QueryEngine({
        client,
        store,
        taskQueue: 'no-sa',
        cwd: makeRepo({}),
        defaults: testTurnOptions(),
        searchAttributes: { batchId: 'b', taskId: 't' },
      });
      const result = await collect(engine.submitMessage('hello'));
      expect(result).toMatchObject({ subtype: 'success', result: 'plain answer' });
      const desc = await client.workflow.getHandle(engine.workflowId).describe();
      expect(desc.typedSearchAttributes.get(SA.sessionId)).toBeUndefined();
      // The session is idle and healthy (no failing workflow task from an upsert).
      const state = await engine.state();
      expect(state).toMatchObject({ turnCount: 1, busy: false });
      await engine.end();
    } finally {
      worker.shutdown();
      await run.catch(() => undefined);
      await native.close();
      await connection.close();
      await server.stop();
    }
  });

  test('search attributes: the names and types the dev servers register', () => {
    expect(SEARCH_ATTRIBUTES).toEqual({
      AgentSessionId: 'Keyword',
      AgentBatchId: 'Keyword',
      AgentTaskId: 'Keyword',
      AgentStatus: 'Keyword',
      AgentCostUsd: 'Double',
    });
    expect(Object.values(SA).map((k) => [k.name, k.type])).toEqual([
      ['AgentSessionId', 'KEYWORD'],
      ['AgentBatchId', 'KEYWORD'],
      ['AgentTaskId', 'KEYWORD'],
      ['AgentStatus', 'KEYWORD'],
      ['AgentCostUsd', 'DOUBLE'],
    ]);
  });
});
