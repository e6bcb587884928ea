/**
 * Tool deferral (ToolSearch), in one run: the same session with 3 MCP servers of 20 tools each,
 * once with deferral (`ENABLE_TOOL_SEARCH` unset: the MCP tools are named in the context and
 * loaded on demand) and once without (`ENABLE_TOOL_SEARCH=false`: all 66 tools in every request).
 * Each session makes 10 calls of one MCP tool (the deferred one first loads it with ToolSearch).
 * Measured: the first request's size in bytes and its tools, the input tokens of the whole
 * session and the share the fake model's prefix-cache simulation served from its cache (a tool
 * sent with `defer_loading` is outside the cached prefix, as the API documents).
 */
import { join } from 'node:path';
import type { TurnOutcome } from '../src/common/turn';
import { storeMcpConfig } from '../src/client/stored-config';
import { parseMcpConfigValue } from '../src/config-files/mcp-config';
import type { ParsedRequest, Responder } from '../src/fake-model';
import { benchTurnOptions, makeRepo, progress, PROJECT_ROOT, startRunner } from './env';
import type { Measurement } from './stats';
import { renderTable, round } from './stats';

/** Options of {@link measureDeferredTools}. */
export interface DeferredToolsOptions {
  address: string;
  /** Calls of the MCP tool in each session. @default 10 */
  calls?: number;
}

const MANY_TOOLS = join(PROJECT_ROOT, 'test', 'fixtures', 'mcp', 'many-tools-server.js');
const SERVERS = ['alpha', 'beta', 'gamma'];
const TOOL = 'mcp__beta__beta_7';

interface VariantFigures {
  variant: string;
  firstRequestBytes: number;
  firstRequestTools: number;
  firstRequestToolBytes: number;
  modelCalls: number;
  inputTokens: number;
  cacheReadTokens: number;
  readShare: number;
}

async function runVariant(address: string, variant: 'deferred' | 'all inline', calls: number): Promise<VariantFigures> {
  const requests: ParsedRequest[] = [];
  const deferred = variant === 'deferred';
  const responder: Responder = (req, ctx) => {
    requests.push(req);
    const step = deferred ? ctx.step - 1 : ctx.step;
    if (deferred && ctx.step === 0)
      return { content: [{ tool_use: { name: 'ToolSearch', input: { query: `select:${TOOL}` } } }] };
    if (step < calls)
      return { content: [{ text: `Call ${step}.` }, { tool_use: { name: TOOL, input: { value: `v${step}` } } }] };
    return { content: [{ text: 'All calls done.' }] };
  };
  const runner = await startRunner({ address, fake: { responder } });
  try {
    const repo = makeRepo({ 'README.md': '# Bench\n' });
    const engine = runner.engine(repo);
    const config = parseMcpConfigValue(
      JSON.stringify({
        mcpServers: Object.fromEntries(
          SERVERS.map((p) => [p, { command: process.execPath, args: [MANY_TOOLS, '--tools', '20', '--prefix', p] }]),
        ),
      }),
      repo,
    );
    const configRef = await storeMcpConfig(runner.store, engine.sessionId, config, repo);
    const started = await engine.start(
      'Call the tool ten times.',
      benchTurnOptions({
        mcp: { configRef },
        allowedTools: SERVERS.map((s) => `mcp__${s}`),
        toolSearch: deferred ? 'on' : 'off',
        model: 'claude-sonnet-5-5',
      }),
    );
    const outcome = await runner.client.workflow.getHandle<() => Promise<TurnOutcome>>(started.turnWorkflowId).result();
    await engine.end().catch(() => undefined);
    if (outcome.subtype !== 'success')
      throw new Error(`deferred tools (${variant}): the turn ended with ${outcome.subtype}`);
    const first = requests[0];
    if (!first) throw new Error('no request');
    const stats = runner.fake.cacheStats();
    const total = stats.inputTokens + stats.cacheReadTokens + stats.cacheCreationTokens;
    return {
      variant,
      firstRequestBytes: Buffer.byteLength(JSON.stringify(first)),
      firstRequestTools: first.tools?.length ?? 0,
      firstRequestToolBytes: Buffer.byteLength(JSON.stringify(first.tools ?? [])),
      modelCalls: outcome.numTurns,
      inputTokens: total,
      cacheReadTokens: stats.cacheReadTokens,
      readShare: stats.readShare,
    };
  } finally {
    await runner.close();
  }
}

/** Runs both variants one after the other and compares them. */
export async function measureDeferredTools(opts: DeferredToolsOptions): Promise<Measurement> {
  const calls = opts.calls ?? 10;
  progress(`deferred tools: 3 MCP servers × 20 tools, ${calls} calls of one tool, with and without deferral`);
  const withDeferral = await runVariant(opts.address, 'deferred', calls);
  const without = await runVariant(opts.address, 'all inline', calls);
  const kb = (b: number): string => `${(b / 1024).toFixed(1)} KB`;
  const rows = [withDeferral, without].map((v) => [
    v.variant,
    kb(v.firstRequestBytes),
    String(v.firstRequestTools),
    kb(v.firstRequestToolBytes),
    String(v.modelCalls),
    String(v.inputTokens),
    `${(v.readShare * 100).toFixed(1)} %`,
  ]);
  const table = renderTable(
    `Tool deferral: 3 MCP servers × 20 tools, ${calls} calls of one MCP tool (fake server's prefix-cache simulation, tokens ≈ chars/4)`,
    [
      'variant',
      'first request',
      'tools sent',
      'of it tools',
      'model calls',
      'input tokens (all calls)',
      'read from cache',
    ],
    rows,
  );
  const figures = (v: VariantFigures): Record<string, number> => ({
    firstRequestBytes: v.firstRequestBytes,
    firstRequestTools: v.firstRequestTools,
    firstRequestToolBytes: v.firstRequestToolBytes,
    modelCalls: v.modelCalls,
    inputTokens: v.inputTokens,
    cacheReadTokens: v.cacheReadTokens,
    readShare: round(v.readShare, 4),
  });
  return {
    name: 'deferredTools',
    table,
    json: {
      calls,
      deferred: figures(withDeferral),
      allInline: figures(without),
      firstRequestBytesRatio: round(withDeferral.firstRequestBytes / without.firstRequestBytes, 3),
      inputTokensRatio: round(withDeferral.inputTokens / without.inputTokens, 3),
    },
  };
}
