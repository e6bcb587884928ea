/**
 * The GitHub Action (action.yml): its steps' scripts run here with bash and a stand-in
 * `agent-runner` on PATH, and its outputs are the fields scripts/action-outputs.js writes.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';

const ROOT = join(__dirname, '..', '..');
const OUTPUTS_JS = join(ROOT, 'scripts', 'action-outputs.js');

interface Action {
  inputs: Record<string, { default?: string; required?: boolean }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Array<{ id?: string; run?: string; env?: Record<string, string> }> };
}
const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as Action;

/** Parses `name<<DELIM\nvalue\nDELIM` blocks of a $GITHUB_OUTPUT file. */
function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^([\w-]+)<<(\S+)$/.exec(lines[i] ?? '');
    if (m) {
      const [, name, delim] = m as unknown as [string, string, string];
      const value: string[] = [];
      for (i++; lines[i] !== delim; i++) value.push(lines[i] ?? '');
      out[name] = value.join('\n');
    } else if (/^[\w-]+=/.test(lines[i] ?? '')) {
      const [k, ...v] = (lines[i] ?? '').split('=');
      out[k as string] = v.join('=');
    }
  }
  return out;
}

function runOutputs(result: string, code: string): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'dar-action-'));
  const file = join(dir, 'result.json');
  writeFileSync(file, result);
  const ghOut = join(dir, 'out');
  writeFileSync(ghOut, '');
  execFileSync(process.execPath, [OUTPUTS_JS, file, code], { env: { ...process.env, GITHUB_OUTPUT: ghOut } });
  return parseOutputs(readFileSync(ghOut, 'utf8'));
}

describe('GitHub Action', () => {
  test('action: a composite action whose every output is written by action-outputs.js', () => {
    expect(action.runs.using).toBe('composite');
    expect(action.inputs['prompt']?.required).toBe(true);
    const written = Object.keys(runOutputs(JSON.stringify({ type: 'result', subtype: 'success' }), '0'));
    for (const [name, o] of Object.entries(action.outputs)) {
      if (name === 'result-file') continue;
      expect(o.value).toBe(`\${{ steps.outputs.outputs.${name} }}`);
      expect(written).toContain(name);
    }
  });

  test('action: outputs carry the result fields; a multi-line result survives; no result reads as an error', () => {
    const result = {
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: 'line one\nghadelim_x\nline three',
      session_id: 's-1',
      num_turns: 4,
      total_cost_usd: 0.0123,
      duration_ms: 2500,
      permission_denials: [{ tool_name: 'Bash' }],
    };
    expect(runOutputs(JSON.stringify(result), '0')).toEqual({
      'exit-code': '0',
      subtype: 'success',
      'is-error': 'false',
      result: 'line one\nghadelim_x\nline three',
      errors: '',
      'session-id': 's-1',
      'num-turns': '4',
      'total-cost-usd': '0.0123',
      'duration-ms': '2500',
      'permission-denials': '1',
      structured_output: '',
    });
    expect(
      runOutputs(
        JSON.stringify({ type: 'result', subtype: 'success', structured_output: { failed: ['a.test.ts'] } }),
        '0',
      ),
    ).toMatchObject({ structured_output: '{"failed":["a.test.ts"]}' });
    expect(runOutputs('', '2')).toMatchObject({ subtype: 'no_result', 'is-error': 'true', 'exit-code': '2' });
    expect(
      runOutputs(
        JSON.stringify({ type: 'result', subtype: 'error_max_turns', is_error: true, errors: ['a', 'b'] }),
        '1',
      ),
    ).toMatchObject({ subtype: 'error_max_turns', 'is-error': 'true', errors: 'a\nb' });
  });

  test('action: the run step passes the inputs to agent-runner -p as flags and records its exit code', () => {
    const step = action.runs.steps.find((s) => s.id === 'run');
    if (!step?.run) throw new Error('no run step');
    const dir = mkdtempSync(join(tmpdir(), 'dar-action-'));
    const argsFile = join(dir, 'args');
    const stub = join(dir, 'agent-runner');
    writeFileSync(
      stub,
      `#!/bin/bash\nprintf '%s\\n' "$@" > ${argsFile}\necho "key=$ANTHROPIC_API_KEY" >> ${argsFile}\necho "temporal=$TEMPORAL_ADDRESS $TEMPORAL_NAMESPACE $TEMPORAL_API_KEY store=$AGENT_RUNNER_STORE_URL" >> ${argsFile}\necho '{"type":"result","subtype":"success","is_error":false}'\nexit 1\n`,
    );
    chmodSync(stub, 0o755);
    const ghOut = join(dir, 'out');
    writeFileSync(ghOut, '');
    const r = spawnSync('bash', ['-c', step.run], {
      cwd: dir,
      encoding: 'utf8',
      env: {
        PATH: `${dir}:${process.env['PATH'] ?? ''}`,
        RUNNER_TEMP: dir,
        GITHUB_OUTPUT: ghOut,
        PROMPT: 'fix "it" now',
        INPUT_API_KEY: 'sk-test',
        MODEL: '',
        MAX_TURNS: '40',
        MAX_BUDGET_USD: '2.5',
        PERMISSION_MODE: 'acceptEdits',
        ALLOWED_TOOLS: 'Bash(npm *) Edit',
        EXTRA_ARGS: '--verbose',
        PLUGINS: 'plugins/a\nplugins/b',
        SETTINGS: '{"enabledPlugins":{}}',
        JSON_SCHEMA: 'schema.json',
        RESUME: 'sess-1',
        INPUT_TEMPORAL_ADDRESS: 'temporal.example:7233',
        INPUT_TEMPORAL_NAMESPACE: 'ci',
        INPUT_TEMPORAL_API_KEY: 'tk',
        INPUT_STORE_URL: 'postgres://db/x',
        AGENT_RUNNER_DATA_DIR: join(dir, 'data'),
      },
    });
    expect(r.status).toBe(0);
    expect(readFileSync(argsFile, 'utf8').trim().split('\n')).toEqual([
      '-p',
      'fix "it" now',
      '--output-format',
      'json',
      '--permission-mode',
      'acceptEdits',
      '--max-turns',
      '40',
      '--max-budget-usd',
      '2.5',
      '--allowedTools',
      'Bash(npm *) Edit',
      '--settings',
      '{"enabledPlugins":{}}',
      '--json-schema',
      'schema.json',
      '--resume',
      'sess-1',
      '--plugin-dir',
      'plugins/a',
      '--plugin-dir',
      'plugins/b',
      '--verbose',
      'key=sk-test',
      'temporal=temporal.example:7233 ci tk store=postgres://db/x',
    ]);
    expect(readFileSync(ghOut, 'utf8')).toBe('code=1\n');
    expect(JSON.parse(readFileSync(join(dir, 'agent-runner-result.json'), 'utf8'))).toMatchObject({
      subtype: 'success',
    });
  });
});
