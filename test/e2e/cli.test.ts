import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeRepo, startRunnerEnv } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';
import { runCli } from '../helpers/cli';

describe('agent-runner CLI', () => {
  test('cli: --help explains every print option and the exit codes', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    for (const flag of [
      '--print',
      '--output-format',
      '--max-turns',
      '--model',
      '--cwd',
      '--session-id',
      '--resume',
      '--continue',
      '--verbose',
      'Exit codes',
    ]) {
      expect(r.stdout).toContain(flag);
    }
  });

  test('cli: a bad flag value is a usage error (exit 2) that names the flag', async () => {
    const r = await runCli(['-p', 'hi', '--max-turns', 'abc']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--max-turns must be a positive integer');
  });

  test('cli: --json-schema that is not a usable JSON Schema, or a missing schema file, exits 2 naming the problem', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dar-schema-'));
    const cases: Array<[string, string]> = [
      ['{"type":"object","properties":{"a":{"type":"nope"}}}', '--json-schema is not a valid JSON Schema'],
      ['{"type":"string"}', 'the root schema must declare "type": "object"'],
      ['{"type":', '--json-schema is not valid JSON'],
      ['missing.schema.json', `--json-schema: no schema file ${join(dir, 'missing.schema.json')}`],
    ];
    for (const [schema, message] of cases) {
      const r = await runCli(['-p', 'hi', '--json-schema', schema], { cwd: dir });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(message);
    }
  });

  test('cli: --fallback-model equal to the model exits 2', async () => {
    const r = await runCli(['-p', 'hi', '--model', 'claude-sonnet-5-5', '--fallback-model', 'claude-sonnet-5-5']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--fallback-model must differ from the model (both are "claude-sonnet-5-5")');
  });

  test('cli: an unknown output format is rejected with exit 2', async () => {
    const r = await runCli(['-p', 'hi', '--output-format', 'xml']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('xml');
  });

  test('cli: a broken config file is a config error (exit 2) naming the field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dar-cfg-'));
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'worker:\n  maxCachedWorkflows: -1\n');
    const r = await runCli(['-p', 'hi', '--config', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('worker.maxCachedWorkflows');
  });

  test('cli: -p without a prompt and with stdin closed fails fast with exit 2', async () => {
    const started = Date.now();
    const r = await runCli(['-p']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no prompt');
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  describe('against a configured server', () => {
    let env: RunnerEnv;
    afterEach(async () => env?.close());

    function cliEnv(): NodeJS.ProcessEnv {
      return { ...env.workerEnv, TEMPORAL_ADDRESS: process.env['TEST_TEMPORAL_ADDRESS'] };
    }

    test('cli: --output-format json prints one result object and exits 0 on success', async () => {
      env = await startRunnerEnv({ scenario: { steps: [{ content: [{ text: 'the answer' }] }] } });
      const r = await runCli(['-p', 'question', '--output-format', 'json', '--cwd', makeRepo({})], { env: cliEnv() });
      expect(r.code).toBe(0);
      const result = JSON.parse(r.stdout.trim());
      expect(result).toMatchObject({ type: 'result', subtype: 'success', result: 'the answer', is_error: false });
    });

    test('cli: the prompt can come from stdin; text output prints the answer', async () => {
      // The only script matches the stdin prompt: any other prompt gets an error from the model server.
      env = await startRunnerEnv({
        scenario: {
          scripts: [
            {
              name: 'stdin',
              match: { promptContains: 'prompt from stdin' },
              steps: [{ content: [{ text: 'got it' }] }],
            },
          ],
        },
      });
      const r = await runCli(['-p', '--cwd', makeRepo({})], { env: cliEnv(), input: 'prompt from stdin\n' });
      expect(r.stdout.trim()).toBe('got it');
      expect(r.code).toBe(0);
    });

    test('cli: an error result exits 1, and stream-json ends with the result line', async () => {
      const loop = { content: [{ tool_use: { name: 'Glob', input: { pattern: '*' } } }] };
      env = await startRunnerEnv({ scenario: { steps: [loop, loop, loop] } });
      const r = await runCli(
        ['-p', 'loop', '--max-turns', '1', '--output-format', 'stream-json', '--cwd', makeRepo({})],
        { env: cliEnv() },
      );
      expect(r.code).toBe(1);
      const lines = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines[0]).toMatchObject({ type: 'system', subtype: 'init' });
      expect(lines.at(-1)).toMatchObject({ type: 'result', subtype: 'error_max_turns', is_error: true });
    });

    test('cli: --resume continues a session; an unknown id is a usage error', async () => {
      env = await startRunnerEnv({
        scenario: {
          steps: [{ content: [{ text: 'first' }] }, { expect: { messagesCount: 4 }, content: [{ text: 'second' }] }],
        },
      });
      const repo = makeRepo({});
      const first = JSON.parse(
        (await runCli(['-p', 'one', '--output-format', 'json', '--cwd', repo], { env: cliEnv() })).stdout,
      );
      const second = await runCli(
        ['-p', 'two', '--resume', first.session_id, '--output-format', 'json', '--cwd', repo],
        { env: cliEnv() },
      );
      expect(JSON.parse(second.stdout)).toMatchObject({
        subtype: 'success',
        result: 'second',
        session_id: first.session_id,
      });
      const bad = await runCli(['-p', 'x', '--resume', '00000000-0000-4000-8000-000000000000', '--cwd', repo], {
        env: cliEnv(),
      });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('no conversation found');
    });
  });
});
