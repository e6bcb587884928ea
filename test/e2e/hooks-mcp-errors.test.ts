/**
 * Bad hook and MCP input through the CLI: exit 2, naming the file and the field (and, for an MCP
 * server that does not start, with the server's own stderr).
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModelServer } from '../../src/fake-model';
import type { FakeModelServer } from '../../src/fake-model';
import { runCli } from '../helpers/cli';
import { makeRepo } from '../helpers/runner-env';

jest.setTimeout(180_000);

const SERVER = join(__dirname, '..', 'fixtures', 'mcp', 'fixture-server.js');

let fake: FakeModelServer;
beforeAll(async () => {
  fake = await startFakeModelServer({
    scenario: {
      steps: [
        { content: [{ tool_use: { name: 'Bash', input: { command: 'echo hi > made.txt', description: 'x' } } }] },
        { content: [{ text: 'Done.' }] },
      ],
    },
  });
});
afterAll(async () => fake?.close());

/** A repository with `.claude/settings.json`, and the env of a run against the fake model. */
function setup(settings?: unknown): { repo: string; env: NodeJS.ProcessEnv } {
  const repo = makeRepo({ 'a.txt': 'a\n' });
  if (settings !== undefined) {
    mkdirSync(join(repo, '.claude'), { recursive: true });
    writeFileSync(join(repo, '.claude', 'settings.json'), JSON.stringify(settings));
  }
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: mkdtempSync(join(tmpdir(), 'hm-home-')),
    ANTHROPIC_BASE_URL: fake.baseUrl,
    ANTHROPIC_API_KEY: 'test',
    AGENT_RUNNER_DATA_DIR: mkdtempSync(join(tmpdir(), 'hm-data-')),
  };
  delete env['TEMPORAL_ADDRESS'];
  return { repo, env };
}

const hook = (event: string, command: string, matcher?: string) => ({
  hooks: { [event]: [{ ...(matcher ? { matcher } : {}), hooks: [{ type: 'command', command }] }] },
});

describe('bad hook and MCP input: exit 2 naming the file and field', () => {
  test('--mcp-config: a malformed config names the file and the field; nothing runs', async () => {
    const { repo, env } = setup();
    const file = join(repo, 'mcp.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { db: { args: ['x'] } } }));
    const r = await runCli(['-p', 'hi', '--cwd', repo, '--mcp-config', file], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--mcp-config ${file}: mcpServers.db.command: expected a non-empty string`);
    expect(fake.requests()).toHaveLength(0);
  });

  test('--mcp-config: a server that does not start ends the run with exit 2 and its own stderr', async () => {
    const { repo, env } = setup();
    const config = JSON.stringify({ mcpServers: { broken: { command: 'node', args: [SERVER, '--fail-start'] } } });
    const before = fake.requests().length;
    const r = await runCli(['-p', 'hi', '--cwd', repo, '--mcp-config', config], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--mcp-config (inline JSON): mcpServers.broken: MCP server "broken" failed to start');
    expect(r.stderr).toContain('cannot open database /nonexistent/db.sqlite (ENOENT)');
    expect(fake.requests().length).toBe(before); // no model call
  });

  test('hooks: a command that does not exist names the settings file and field; nothing runs', async () => {
    const { repo, env } = setup(hook('PreToolUse', './hooks/missing.sh', 'Bash'));
    const r = await runCli(['-p', 'hi', '--cwd', repo], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${join(repo, '.claude', 'settings.json')}: hooks.PreToolUse[0].hooks[0].command: command not found: ./hooks/missing.sh`,
    );
  });

  test('hooks: a hook that prints invalid JSON stops the turn (the tool does not run) and exits 2', async () => {
    const { repo, env } = setup(hook('PreToolUse', 'echo \'{"decision": \'', 'Bash'));
    const r = await runCli(
      ['-p', 'make the file', '--cwd', repo, '--allowedTools', 'Bash', '--output-format', 'json'],
      { env },
    );
    expect(r.code).toBe(2);
    const result = JSON.parse(r.stdout) as { errors: string[]; terminal_reason: string };
    expect(result.terminal_reason).toBe('hook_stopped');
    expect(result.errors[0]).toContain(
      `Hook configuration error: ${join(repo, '.claude', 'settings.json')}: hooks.PreToolUse[0].hooks[0]: the hook printed invalid JSON`,
    );
    expect(() => readFileSync(join(repo, 'made.txt'))).toThrow();
  });
});
