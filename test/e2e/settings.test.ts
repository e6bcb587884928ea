/**
 * Claude Code settings files through the CLI: rules of `.claude/settings.json` decide tool calls
 * (Read, Edit and Bash), and bad settings stop the run with exit 2 naming the file and field.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeRepo, startRunnerEnv } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';
import { runCli } from '../helpers/cli';

jest.setTimeout(180_000);

function repoWithSettings(settings: unknown): { repo: string; home: string } {
  const repo = makeRepo({ 'secrets/key': 'TOKEN=1\n', 'src/a.ts': 'a\n' });
  mkdirSync(join(repo, '.claude'), { recursive: true });
  writeFileSync(
    join(repo, '.claude', 'settings.json'),
    typeof settings === 'string' ? settings : JSON.stringify(settings),
  );
  const home = mkdtempSync(join(tmpdir(), 'settings-home-'));
  // As with claude -p, the project's allow rules count once the workspace is trusted.
  writeFileSync(join(home, '.claude.json'), JSON.stringify({ projects: { [repo]: { hasTrustDialogAccepted: true } } }));
  return { repo, home };
}

describe('settings files: bad input is exit 2 naming the file and the field', () => {
  test('settings: malformed settings.json', async () => {
    const { repo, home } = repoWithSettings('{"permissions": ');
    const r = await runCli(['-p', 'hi', '--cwd', repo], { env: { ...process.env, HOME: home } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(repo, '.claude', 'settings.json')}: not valid JSON`);
  });
  test('settings: an unknown permission rule syntax', async () => {
    const { repo, home } = repoWithSettings({ permissions: { allow: ['Bash(git *'] } });
    const r = await runCli(['-p', 'hi', '--cwd', repo], { env: { ...process.env, HOME: home } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/settings\.json: permissions\.allow\[0\]: "Bash\(git \*" is not a permission rule/);
  });
  test('settings: an --add-dir that does not exist, a bad --allowedTools rule, a bad --setting-sources', async () => {
    const { repo, home } = repoWithSettings({});
    const env = { ...process.env, HOME: home };
    let r = await runCli(['-p', 'hi', '--cwd', repo, '--add-dir', join(repo, 'nope')], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--add-dir: ${join(repo, 'nope')} is not a directory`);
    r = await runCli(['-p', 'hi', '--cwd', repo, '--allowedTools', 'Bash(npm:*:x)'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--allowedTools: .*:\* wildcard must be at the end/);
    r = await runCli(['-p', 'hi', '--cwd', repo, '--setting-sources', 'user,policy'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--setting-sources: unknown source "policy"');
  });
});

describe('settings files decide tool calls', () => {
  let env: RunnerEnv;
  const savedKey = process.env['ANTHROPIC_API_KEY'];
  afterEach(async () => {
    await env?.close();
    if (savedKey === undefined) delete process.env['ANTHROPIC_API_KEY'];
    else process.env['ANTHROPIC_API_KEY'] = savedKey;
  });

  test('settings: allow and deny rules for Read, Edit and Bash; env for Bash commands, which never see the API key', async () => {
    const { repo, home } = repoWithSettings({
      permissions: {
        allow: ['Bash(echo *)', 'Edit(src/**)'],
        deny: ['Read(./secrets/**)', 'Bash(touch *)'],
      },
      env: { FROM_SETTINGS: 'settings-value' },
    });
    const tool = (name: string, input: Record<string, unknown>) => ({ tool_use: { name, input } });
    // The worker (in this process) has an API key in its environment; its Bash commands must not see it.
    process.env['ANTHROPIC_API_KEY'] = 'sk-worker-key';
    env = await startRunnerEnv({
      scenario: {
        steps: [
          {
            content: [
              tool('Read', { file_path: join(repo, 'secrets', 'key') }),
              tool('Edit', { file_path: join(repo, 'src', 'a.ts'), old_string: 'a', new_string: 'b' }),
            ],
          },
          { content: [tool('Read', { file_path: join(repo, 'src', 'a.ts') })] },
          { content: [tool('Edit', { file_path: join(repo, 'src', 'a.ts'), old_string: 'a', new_string: 'b' })] },
          { content: [tool('Bash', { command: 'echo "$FROM_SETTINGS ${ANTHROPIC_API_KEY:-no-key}" > src/env.txt' })] },
          { content: [tool('Bash', { command: 'echo ok & touch pwned.txt' })] },
          { content: [{ text: 'done' }] },
        ],
      },
    });
    const r = await runCli(['-p', 'go', '--output-format', 'json', '--cwd', repo], {
      env: { ...env.workerEnv, HOME: home, TEMPORAL_ADDRESS: process.env['TEST_TEMPORAL_ADDRESS'] },
    });
    const result = JSON.parse(r.stdout.trim()) as {
      subtype: string;
      permission_denials: Array<Record<string, unknown>>;
    };
    expect(result.subtype).toBe('success');
    expect(result.permission_denials.map((d) => [d['tool_name'], d['tool_input']])).toEqual([
      ['Read', { file_path: join(repo, 'secrets', 'key') }],
      ['Bash', { command: 'echo ok & touch pwned.txt' }],
    ]);
    expect(readFileSync(join(repo, 'src', 'a.ts'), 'utf8')).toBe('b\n');
    // The settings env reaches the command; the worker's API key does not.
    expect(readFileSync(join(repo, 'src', 'env.txt'), 'utf8')).toBe('settings-value no-key\n');
    expect(existsSync(join(repo, 'pwned.txt'))).toBe(false);
  });
});
