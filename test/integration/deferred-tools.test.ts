/**
 * Deferred tools (ToolSearch) across continue-as-new and across turns of a session: which tools
 * are loaded is read from the conversation in the store, so a turn that continued as new, or a
 * later turn of the session (as after `--resume`), still sends a loaded tool's definition, and
 * workflow history carries nothing of it.
 */
import { join } from 'node:path';
import type { ParsedRequest, StepSpec } from '../../src/fake-model';
import { storeMcpConfig } from '../../src/client/stored-config';
import { parseMcpConfigValue } from '../../src/config-files/mcp-config';
import { makeRepo, startRunnerEnv } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';

jest.setTimeout(120_000);

const MANY_TOOLS = join(__dirname, '..', 'fixtures', 'mcp', 'many-tools-server.js');

describe('deferred tools', () => {
  let env: RunnerEnv;
  afterEach(async () => env?.close());

  test('deferred tools: a loaded tool stays loaded after continue-as-new and in the next turn of the session', async () => {
    const requests: ParsedRequest[] = [];
    const steps: StepSpec[] = [
      { content: [{ tool_use: { name: 'ToolSearch', input: { query: 'select:mcp__m__m_3' } } }] },
      { content: [{ tool_use: { name: 'mcp__m__m_3', input: { value: 'one' } } }] },
      { content: [{ text: 'first done' }] },
      { content: [{ tool_use: { name: 'mcp__m__m_3', input: { value: 'two' } } }] },
      { content: [{ text: 'second done' }] },
    ];
    env = await startRunnerEnv({
      responder: (req, ctx) => {
        requests.push(req);
        return steps[ctx.step] ?? { content: [{ text: 'Done.' }] };
      },
    });
    const repo = makeRepo({ 'a.txt': 'a\n' });
    const engine = env.engine({ cwd: repo });
    const config = parseMcpConfigValue(
      JSON.stringify({
        mcpServers: { m: { command: process.execPath, args: [MANY_TOOLS, '--tools', '6', '--prefix', 'm'] } },
      }),
      repo,
    );
    const configRef = await storeMcpConfig(env.store, engine.sessionId, config, repo);
    const options = { mcp: { configRef }, allowedTools: ['mcp__m'], maxStepsPerRun: 1 };
    const first = await env.runTurn(engine, 'load a tool', options);
    expect(first.result.subtype).toBe('success');
    const second = await env.runTurn(engine, 'use it again', options);
    expect(second.result.subtype).toBe('success');

    const loaded = (r: ParsedRequest): unknown => r.tools?.find((t) => t['name'] === 'mcp__m__m_3');
    // Not sent before ToolSearch loaded it; sent with defer_loading in every request after (each in a new run).
    expect(loaded(requests[0]!)).toBeUndefined();
    for (const r of requests.slice(1)) expect(loaded(r)).toMatchObject({ name: 'mcp__m__m_3', defer_loading: true });
    expect(requests.length).toBe(5);
    expect(JSON.stringify(requests[4]?.messages)).toContain('m_3: two');
    // Only the tools ToolSearch loaded are sent: the other five stay deferred.
    expect(requests[4]?.tools?.filter((t) => String(t['name']).startsWith('mcp__')).map((t) => t['name'])).toEqual([
      'mcp__m__m_3',
    ]);
  });
});
