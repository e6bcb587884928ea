import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  configHash,
  McpConfigError,
  mcpTimeoutsFromEnv,
  mcpToolTimeoutMs,
  parseMcpConfigValue,
  parseMcpConfigValues,
} from '../../../src/config-files/mcp-config';
import type { McpConfig } from '../../../src/config-files/mcp-config';
import { toolActivityBoundFor } from '../../../src/cli/mcp-options';
import { expandServerConfig, expandVars, McpEnvError, mcpServerEnv } from '../../../src/activities/mcp/env';

const dir = mkdtempSync(join(tmpdir(), 'mcp-config-'));

function file(name: string, content: string): string {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
}

describe('parseMcpConfigValue', () => {
  it('reads a file: stdio (type defaults to stdio), http and sse servers', () => {
    const p = file(
      'ok.json',
      JSON.stringify({
        mcpServers: {
          local: { command: 'node', args: ['server.js'], env: { A: '1' } },
          remote: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } },
          old: { type: 'sse', url: 'http://127.0.0.1:9/sse' },
        },
      }),
    );
    const c = parseMcpConfigValue(p, '/');
    expect(c.servers['local']).toEqual({ type: 'stdio', command: 'node', args: ['server.js'], env: { A: '1' } });
    expect(c.servers['remote']?.type).toBe('http');
    expect(c.servers['old']?.type).toBe('sse');
    expect(c.sources['local']).toBe(`--mcp-config ${p}: mcpServers.local`);
  });

  it('reads inline JSON and resolves relative paths against cwd', () => {
    file('rel.json', '{"mcpServers":{"a":{"command":"x"}}}');
    expect(Object.keys(parseMcpConfigValue('rel.json', dir).servers)).toEqual(['a']);
    const inline = parseMcpConfigValue('{"mcpServers":{"b":{"command":"y"}}}', '/');
    expect(inline.sources['b']).toBe('--mcp-config (inline JSON): mcpServers.b');
  });

  it.each([
    ['{"mcpServers":{"a":{"args":[]}}}', 'mcpServers.a.command: expected a non-empty string'],
    ['{"mcpServers":{"a":{"command":"x","args":"oops"}}}', 'mcpServers.a.args: expected an array of strings'],
    ['{"mcpServers":{"a":{"type":"http"}}}', 'mcpServers.a.url: expected an http(s) URL'],
    ['{"mcpServers":{"a":{"type":"ftp","url":"x"}}}', 'mcpServers.a'],
    ['{"servers":{}}', 'mcpServers: expected an object of servers by name'],
    ['{"mcpServers":{"a":{"command":"x","env":{"K":1}}}}', 'mcpServers.a.env.K: expected a string'],
  ])('names the file and the field of a malformed config: %s', (json, field) => {
    const p = file('bad.json', json);
    expect(() => parseMcpConfigValue(p, '/')).toThrow(McpConfigError);
    expect(() => parseMcpConfigValue(p, '/')).toThrow(`--mcp-config ${p}: ${field}`);
  });

  it('reports unreadable files and invalid JSON', () => {
    expect(() => parseMcpConfigValue(join(dir, 'none.json'), '/')).toThrow(
      /none\.json: cannot read the file \(ENOENT\)/,
    );
    expect(() => parseMcpConfigValue(file('junk.json', '{nope'), '/')).toThrow(/junk\.json: not valid JSON/);
    expect(() => parseMcpConfigValue('{nope', '/')).toThrow(/--mcp-config \(inline JSON\): not valid JSON/);
  });

  it('merges several values, a later server replacing an earlier one of the same name', () => {
    const c = parseMcpConfigValues(
      ['{"mcpServers":{"a":{"command":"one"},"b":{"command":"b"}}}', '{"mcpServers":{"a":{"command":"two"}}}'],
      '/',
    );
    expect(c.servers['a']).toMatchObject({ command: 'two' });
    expect(Object.keys(c.servers).sort()).toEqual(['a', 'b']);
  });
});

describe('configHash', () => {
  it('ignores key order', () => {
    expect(configHash({ a: 1, b: { c: 2, d: 3 } })).toBe(configHash({ b: { d: 3, c: 2 }, a: 1 }));
    expect(configHash({ a: 1 })).not.toBe(configHash({ a: 2 }));
  });
});

describe('expandVars', () => {
  it('expands ${VAR} and ${VAR:-default}', () => {
    expect(expandVars('a ${X} ${Y:-dflt} ${X:-unused}', { X: 'x' }, 'f')).toBe('a x dflt x');
  });
  it('names the field and the variable when one is missing', () => {
    expect(() => expandVars('${NOPE}', {}, 'mcpServers.a.url')).toThrow(McpEnvError);
    expect(() => expandVars('${NOPE}', {}, 'mcpServers.a.url')).toThrow(
      'mcpServers.a.url: environment variable NOPE is not set on the worker and has no default',
    );
  });
  it('expands every string field of a server config', () => {
    const env = { T: 'tok', D: '/d' };
    expect(
      expandServerConfig('s', { type: 'stdio', command: '${D}/bin', args: ['--x=${T}'], env: { K: '${T}' } }, env),
    ).toEqual({ type: 'stdio', command: '/d/bin', args: ['--x=tok'], env: { K: 'tok' } });
    expect(
      expandServerConfig('h', { type: 'http', url: 'http://h/${T}', headers: { Authorization: 'Bearer ${T}' } }, env),
    ).toEqual({ type: 'http', url: 'http://h/tok', headers: { Authorization: 'Bearer tok' } });
  });
});

describe('mcpServerEnv', () => {
  it('is the worker environment minus the runner secrets, plus the server env, which wins', () => {
    expect(
      mcpServerEnv({ A: 'server' }, { A: 'worker', B: 'b', C: undefined, ANTHROPIC_API_KEY: 'sk-secret' }),
    ).toEqual({ A: 'server', B: 'b' });
    expect(mcpServerEnv({ ANTHROPIC_API_KEY: 'given' }, { ANTHROPIC_API_KEY: 'sk-secret' })).toEqual({
      ANTHROPIC_API_KEY: 'given',
    });
  });
});

describe('MCP timeouts', () => {
  it('mcpTimeoutsFromEnv: MCP_TOOL_TIMEOUT and MCP_TIMEOUT in ms; unset or empty is none', () => {
    expect(mcpTimeoutsFromEnv({})).toEqual({});
    expect(mcpTimeoutsFromEnv({ MCP_TOOL_TIMEOUT: '5000', MCP_TIMEOUT: ' 60000 ', X: '1' })).toEqual({
      toolMs: 5000,
      connectMs: 60000,
    });
    expect(mcpTimeoutsFromEnv({ MCP_TOOL_TIMEOUT: '' })).toEqual({});
  });
  it('mcpTimeoutsFromEnv: anything but a positive whole number is an error naming the variable', () => {
    expect(() => mcpTimeoutsFromEnv({ MCP_TOOL_TIMEOUT: '5s' })).toThrow(McpConfigError);
    expect(() => mcpTimeoutsFromEnv({ MCP_TIMEOUT: '0' })).toThrow(/^MCP_TIMEOUT must be a positive whole number/);
  });
  it("mcpToolTimeoutMs: the server's timeout (from 1000 ms), else the run's MCP_TOOL_TIMEOUT, else the worker's 15 minutes", () => {
    const stdio = { type: 'stdio' as const, command: 'x' };
    expect(mcpToolTimeoutMs(stdio, undefined)).toBe(900_000);
    expect(mcpToolTimeoutMs(stdio, 5000)).toBe(5000);
    expect(mcpToolTimeoutMs({ ...stdio, timeout: 2000 }, 5000)).toBe(2000);
    expect(mcpToolTimeoutMs({ ...stdio, timeout: 999 }, 5000)).toBe(5000);
    expect(mcpToolTimeoutMs(stdio, 10)).toBe(1000);
    expect(mcpToolTimeoutMs(stdio, undefined, 42_000)).toBe(42_000);
  });
  it('a server timeout that is not a whole number of ms is refused, naming the field', () => {
    expect(() =>
      parseMcpConfigValue(JSON.stringify({ mcpServers: { a: { command: 'x', timeout: 'long' } } }), '/'),
    ).toThrow(/mcpServers\.a\.timeout: expected a whole number of milliseconds/);
  });
});

describe('tool activity bound of MCP calls', () => {
  const cfg = (servers: McpConfig['servers'], toolMs?: number): McpConfig => ({
    servers,
    sources: {},
    ...(toolMs !== undefined ? { timeouts: { toolMs } } : {}),
  });
  const stdio = { type: 'stdio' as const, command: 'x' };
  it('toolActivityBoundFor: the longest MCP tool timeout plus a minute, when the current bound is shorter', () => {
    // The 15-minute default outlives the 11-minute tool activity: it is raised.
    expect(toolActivityBoundFor(cfg({ a: stdio }), 660_000)).toBe(960_000);
    expect(toolActivityBoundFor(cfg({ a: stdio }, 5000), 660_000)).toBeUndefined();
    expect(toolActivityBoundFor(cfg({ a: stdio, b: { ...stdio, timeout: 3_600_000 } }, 5000), 660_000)).toBe(3_660_000);
  });
});
