/**
 * The MCP activities against a real MCP server (test/fixtures/mcp/fixture-server.js) over stdio
 * and streamable HTTP: tools are listed and stored, calls run in the session's directory, a
 * server that dies fails its call cleanly and is restarted, a server that does not start is
 * reported with its own stderr.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createConnectMcpServers, createMcpToolExecutor } from '../../../../src/activities/mcp/activities';
import type { McpConfig } from '../../../../src/config-files/mcp-config';
import { McpClientPool } from '../../../../src/activities/mcp/pool';
import { loadMcpTools } from '../../../../src/store/mcp-sidecar';
import { storeMcpConfig } from '../../../../src/client/stored-config';
import { JsonlTranscriptStore } from '../../../../src/store/jsonl-store';
import type { ToolContext } from '../../../../src/activities/tools/types';

jest.setTimeout(60_000);

const SERVER = join(__dirname, '..', '..', '..', 'fixtures', 'mcp', 'fixture-server.js');
const SESSION = '11111111-1111-4111-8111-111111111111';

function config(servers: McpConfig['servers']): McpConfig {
  return { servers, sources: Object.fromEntries(Object.keys(servers).map((n) => [n, `test: mcpServers.${n}`])) };
}

function ctx(cwd: string): ToolContext {
  return { cwd, signal: new AbortController().signal, readState: () => undefined, heartbeat: () => undefined };
}

let pool: McpClientPool;
let store: JsonlTranscriptStore;
let cwd: string;

beforeEach(() => {
  const root = mkdtempSync(join(tmpdir(), 'mcp-act-'));
  store = new JsonlTranscriptStore(join(root, 'data'));
  cwd = mkdtempSync(join(tmpdir(), 'mcp-cwd-'));
  pool = new McpClientPool({ env: { ...process.env, FIXTURE_ENV: 'from-worker' }, connectTimeoutMs: 10_000 });
});

afterEach(async () => {
  await pool.close();
});

async function connect(servers: McpConfig['servers']) {
  const configRef = await storeMcpConfig(store, SESSION, config(servers), cwd);
  const summary = await createConnectMcpServers({ store, pool })({ sessionId: SESSION, cwd, configRef });
  return { configRef, summary };
}

describe('connectMcpServers', () => {
  it("a plugin's server (plugin:<plugin>:<server>) is reported with source plugin, as system/init of 2.1.328 says", async () => {
    const { summary } = await connect({
      'plugin:demo:fixture': { type: 'stdio', command: process.execPath, args: [SERVER] },
      gone: { type: 'http', url: 'http://127.0.0.1:9/mcp' },
    });
    expect(summary.servers).toEqual([
      { name: 'plugin:demo:fixture', status: 'connected', source: 'plugin' },
      { name: 'gone', status: 'failed', source: 'dynamic' },
    ]);
  });

  it('lists the tools of a stdio server as mcp__<server>__<tool>, with schemas, in the store', async () => {
    const { summary } = await connect({ fixture: { type: 'stdio', command: process.execPath, args: [SERVER] } });
    expect(summary.servers).toEqual([{ name: 'fixture', status: 'connected', source: 'dynamic' }]);
    expect(summary.failures).toEqual([]);
    expect(summary.toolCount).toBe(6);
    const list = await loadMcpTools(store, SESSION, summary.toolsRef);
    expect(list.tools.map((t) => t.name)).toEqual([
      'mcp__fixture__add',
      'mcp__fixture__append_line',
      'mcp__fixture__crash',
      'mcp__fixture__fail',
      'mcp__fixture__hang',
      'mcp__fixture__whereami',
    ]);
    const add = list.tools.find((t) => t.tool === 'add');
    expect(add?.input_schema).toMatchObject({ type: 'object', properties: { a: { type: 'number' } } });
    // The summary (what workflow history sees) carries no schema.
    expect(JSON.stringify(summary)).not.toContain('properties');
  });

  it('the same config and tools give the same ref (a retried activity writes nothing new)', async () => {
    const servers = { fixture: { type: 'stdio' as const, command: process.execPath, args: [SERVER] } };
    const a = await connect(servers);
    const b = await connect(servers);
    expect(b.summary.toolsRef).toBe(a.summary.toolsRef);
    expect(pool.starts).toBe(1);
  });

  it('reports a server that does not start as failed, with its own stderr, and keeps the others', async () => {
    const { summary } = await connect({
      fixture: { type: 'stdio', command: process.execPath, args: [SERVER] },
      broken: { type: 'stdio', command: process.execPath, args: [SERVER, '--fail-start'] },
      missing: { type: 'stdio', command: '/nonexistent/mcp-server' },
    });
    expect(summary.servers.map((s) => `${s.name}:${s.status}`)).toEqual([
      'fixture:connected',
      'broken:failed',
      'missing:failed',
    ]);
    const broken = summary.failures.find((f) => f.name === 'broken');
    expect(broken?.error).toContain('test: mcpServers.broken: MCP server "broken" failed to start');
    expect(broken?.error).toContain('cannot open database /nonexistent/db.sqlite (ENOENT)');
    expect(summary.failures.find((f) => f.name === 'missing')?.error).toMatch(/mcpServers\.missing: .*failed to start/);
  });
});

describe('MCP tool calls', () => {
  it('run in the session directory with the worker env plus the server env', async () => {
    const { summary } = await connect({ fixture: { type: 'stdio', command: process.execPath, args: [SERVER] } });
    const exec = createMcpToolExecutor({ store, pool });
    const add = await exec.execute(SESSION, summary.toolsRef, 'mcp__fixture__add', { a: 2, b: 3 }, ctx(cwd));
    expect(add).toEqual({
      content: [{ type: 'text', text: '5' }],
      isError: false,
      structured: [{ type: 'text', text: '5' }],
      outcome: 'ok',
    });
    const where = await exec.execute(SESSION, summary.toolsRef, 'mcp__fixture__whereami', {}, ctx(cwd));
    const info = JSON.parse((where.content as unknown as Array<{ text: string }>)[0]!.text) as {
      cwd: string;
      env: string;
    };
    expect(info).toMatchObject({ cwd, env: 'from-worker' });
  });

  it('turn errors into is_error results: tool errors, protocol errors, unknown tools, bad input', async () => {
    const { summary } = await connect({ fixture: { type: 'stdio', command: process.execPath, args: [SERVER] } });
    const exec = createMcpToolExecutor({ store, pool });
    const run = (name: string, input: unknown) => exec.execute(SESSION, summary.toolsRef, name, input, ctx(cwd));
    expect(await run('mcp__fixture__fail', { message: 'it failed' })).toEqual({
      content: 'it failed',
      isError: true,
      structured: 'Error: it failed',
      outcome: 'error',
    });
    const invalid = await run('mcp__fixture__add', { a: 'x' });
    expect(invalid.isError).toBe(true);
    expect(invalid.content).toMatch(/^MCP error -32602: /);
    expect(await run('mcp__fixture__nope', {})).toMatchObject({
      content: '<tool_use_error>Error: No such tool available: mcp__fixture__nope</tool_use_error>',
      outcome: 'invalid',
    });
    expect(await run('mcp__fixture__add', [1, 2])).toMatchObject({ isError: true, outcome: 'invalid' });
  });

  it('a server that dies fails its pending call with is_error and is restarted for the next call', async () => {
    const { summary } = await connect({ fixture: { type: 'stdio', command: process.execPath, args: [SERVER] } });
    const exec = createMcpToolExecutor({ store, pool });
    const crashed = await exec.execute(SESSION, summary.toolsRef, 'mcp__fixture__crash', {}, ctx(cwd));
    expect(crashed.isError).toBe(true);
    expect(crashed.content).toContain('MCP server "fixture" stopped while the tool was running');
    const after = await exec.execute(SESSION, summary.toolsRef, 'mcp__fixture__add', { a: 1, b: 1 }, ctx(cwd));
    expect(after.content).toEqual([{ type: 'text', text: '2' }]);
    expect(pool.starts).toBe(2);
  });

  it("MCP_TOOL_TIMEOUT (the run's, with the config) bounds a hung call, in Claude Code's words; the server still answers", async () => {
    const servers: McpConfig['servers'] = { fixture: { type: 'stdio', command: process.execPath, args: [SERVER] } };
    const configRef = await storeMcpConfig(store, SESSION, { ...config(servers), timeouts: { toolMs: 1200 } }, cwd);
    const summary = await createConnectMcpServers({ store, pool })({ sessionId: SESSION, cwd, configRef });
    const exec = createMcpToolExecutor({ store, pool });
    const started = Date.now();
    const hung = await exec.execute(SESSION, summary.toolsRef, 'mcp__fixture__hang', {}, ctx(cwd));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(hung).toMatchObject({ isError: true, content: 'MCP server "fixture" tool "hang" timed out after 1s' });
    const after = await exec.execute(SESSION, summary.toolsRef, 'mcp__fixture__add', { a: 2, b: 2 }, ctx(cwd));
    expect(after.content).toEqual([{ type: 'text', text: '4' }]);
  });

  it("a server's own timeout wins over MCP_TOOL_TIMEOUT (from 1000 ms, as in Claude Code)", async () => {
    const servers: McpConfig['servers'] = {
      fixture: { type: 'stdio', command: process.execPath, args: [SERVER], timeout: 1000 },
    };
    const configRef = await storeMcpConfig(store, SESSION, { ...config(servers), timeouts: { toolMs: 600_000 } }, cwd);
    const summary = await createConnectMcpServers({ store, pool })({ sessionId: SESSION, cwd, configRef });
    const hung = await createMcpToolExecutor({ store, pool }).execute(
      SESSION,
      summary.toolsRef,
      'mcp__fixture__hang',
      {},
      ctx(cwd),
    );
    expect(hung.content).toBe('MCP server "fixture" tool "hang" timed out after 1s');
  });

  it('MCP_TIMEOUT bounds the start of a server that is too slow: it is a failed server, saying so', async () => {
    const servers: McpConfig['servers'] = {
      slow: { type: 'stdio', command: process.execPath, args: [SERVER, '--slow-start', '5000'] },
    };
    const configRef = await storeMcpConfig(store, SESSION, { ...config(servers), timeouts: { connectMs: 800 } }, cwd);
    const started = Date.now();
    const summary = await createConnectMcpServers({ store, pool })({ sessionId: SESSION, cwd, configRef });
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(summary.servers).toEqual([{ name: 'slow', status: 'failed', source: 'dynamic' }]);
    expect(summary.failures[0]?.error).toContain('it did not answer initialize within 800 ms (MCP_TIMEOUT)');
  });

  it('a non-idempotent tool runs once per call', async () => {
    const { summary } = await connect({ fixture: { type: 'stdio', command: process.execPath, args: [SERVER] } });
    const exec = createMcpToolExecutor({ store, pool });
    await exec.execute(SESSION, summary.toolsRef, 'mcp__fixture__append_line', { text: 'one' }, ctx(cwd));
    await exec.execute(SESSION, summary.toolsRef, 'mcp__fixture__append_line', { text: 'two' }, ctx(cwd));
    expect(readFileSync(join(cwd, 'mcp-log.txt'), 'utf8')).toBe('one\ntwo\n');
  });
});

describe('streamable HTTP servers', () => {
  let http: ChildProcess;
  let url: string;
  beforeAll(async () => {
    http = spawn(process.execPath, [SERVER, '--http'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve) => {
      createInterface({ input: http.stdout! }).once('line', resolve);
    });
    url = line.replace('listening ', '');
  });
  afterAll(() => {
    http.kill();
  });

  it('are listed and called like stdio servers; ${VAR} in headers is expanded on the worker', async () => {
    const { summary } = await connect({
      remote: { type: 'http', url, headers: { 'X-Token': '${FIXTURE_ENV}' } },
    });
    expect(summary.servers).toEqual([{ name: 'remote', status: 'connected', source: 'dynamic' }]);
    const exec = createMcpToolExecutor({ store, pool });
    const add = await exec.execute(SESSION, summary.toolsRef, 'mcp__remote__add', { a: 20, b: 22 }, ctx(cwd));
    expect(add.content).toEqual([{ type: 'text', text: '42' }]);
  });

  it('an unreachable URL is a failed server', async () => {
    const { summary } = await connect({ gone: { type: 'http', url: 'http://127.0.0.1:9/mcp' } });
    expect(summary.servers).toEqual([{ name: 'gone', status: 'failed', source: 'dynamic' }]);
    expect(summary.failures[0]?.error).toContain('MCP server "gone" failed to start');
  });
});
