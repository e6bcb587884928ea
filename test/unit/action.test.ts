/**
 * The GitHub Action (action.yml): its steps' scripts run here with bash and a stand-in
 * `agent-runner` on PATH, and its outputs are the fields scripts/action-outputs.js writes.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';

const ROOT = join(__dirname, '..', '..');
const OUTPUTS_JS = join(ROOT, 'scripts', 'action-outputs.js');
/** bash by its path: a step may run with a PATH that lacks it. */
const BASH = execFileSync('bash', ['-c', 'command -v bash'], { encoding: 'utf8' }).trim();

interface Action {
  inputs: Record<string, { default?: string; required?: boolean }>;
  outputs: Record<string, { value: string }>;
  runs: {
    using: string;
    steps: Array<{ id?: string; run?: string; uses?: string; if?: string; env?: Record<string, string> }>;
  };
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

/**
 * Runs one step's script as GitHub runs a `shell: bash` step: written to a file and run with
 * `bash --noprofile --norc -eo pipefail {0}` (errexit on). A stand-in `agent-runner` on PATH
 * writes its arguments to `args` and exits with `exitCode`.
 */
function runStep(
  id: string,
  env: Record<string, string>,
  opts: { exitCode?: number; path?: string } = {},
): {
  status: number | null;
  stdout: string;
  dir: string;
  args: () => string[];
  outputs: () => string;
  provider: () => string;
  temporal: () => string;
} {
  const step = action.runs.steps.find((s) => s.id === id);
  if (!step?.run) throw new Error(`no step ${id}`);
  const dir = mkdtempSync(join(tmpdir(), 'dar-action-'));
  const argsFile = join(dir, 'args');
  const stub = join(dir, 'agent-runner');
  writeFileSync(
    stub,
    `#!/bin/bash\nprintf '%s\\n' "$@" > ${argsFile}\necho "key=\${ANTHROPIC_API_KEY:-}" >> ${argsFile}\necho "bedrock=\${CLAUDE_CODE_USE_BEDROCK:-} vertex=\${CLAUDE_CODE_USE_VERTEX:-}" > ${join(dir, 'provider')}\necho "temporal=\${TEMPORAL_ADDRESS:-} \${TEMPORAL_NAMESPACE:-} \${TEMPORAL_API_KEY:-} store=\${AGENT_RUNNER_STORE_URL:-}" > ${join(dir, 'temporal')}\necho '{"type":"result","subtype":"success","is_error":false}'\nexit ${opts.exitCode ?? 0}\n`,
  );
  chmodSync(stub, 0o755);
  const script = join(dir, 'step.sh');
  writeFileSync(script, step.run);
  const ghOut = join(dir, 'out');
  writeFileSync(ghOut, '');
  const r = spawnSync(BASH, ['--noprofile', '--norc', '-eo', 'pipefail', script], {
    cwd: dir,
    encoding: 'utf8',
    env: { PATH: opts.path ?? `${dir}:${process.env['PATH'] ?? ''}`, RUNNER_TEMP: dir, GITHUB_OUTPUT: ghOut, ...env },
  });
  return {
    status: r.status,
    stdout: r.stdout,
    dir,
    args: () => readFileSync(argsFile, 'utf8').trim().split('\n'),
    outputs: () => readFileSync(ghOut, 'utf8'),
    provider: () => readFileSync(join(dir, 'provider'), 'utf8').trim(),
    temporal: () => readFileSync(join(dir, 'temporal'), 'utf8').trim(),
  };
}

const RUN_ENV = {
  PROMPT: 'fix "it" now',
  INPUT_API_KEY: 'sk-test',
  MODEL: '',
  EFFORT: '',
  USE_BEDROCK: 'false',
  USE_VERTEX: 'false',
  USE_FOUNDRY: 'false',
  MAX_TURNS: '40',
  MAX_BUDGET_USD: '2.5',
  PERMISSION_MODE: 'acceptEdits',
  ALLOWED_TOOLS: 'Bash(npm *) Edit',
  EXTRA_ARGS: '--verbose',
  PLUGINS: '',
  SETTINGS: '',
  JSON_SCHEMA: '',
  RESUME: '',
  INPUT_TEMPORAL_ADDRESS: '',
  INPUT_TEMPORAL_NAMESPACE: '',
  INPUT_TEMPORAL_API_KEY: '',
  INPUT_STORE_URL: '',
  AGENT_RUNNER_DATA_DIR: '/tmp/unused',
};

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

  test("action: the run step passes the inputs to agent-runner -p as flags and records a failed turn's exit code under GitHub's bash -eo pipefail", () => {
    const r = runStep(
      'run',
      {
        ...RUN_ENV,
        EFFORT: 'low',
        USE_BEDROCK: 'true',
        USE_VERTEX: 'false',
        USE_FOUNDRY: 'false',
        PLUGINS: 'plugins/a\nplugins/b',
        SETTINGS: '{"enabledPlugins":{}}',
        JSON_SCHEMA: 'schema.json',
        RESUME: 'sess-1',
        INPUT_TEMPORAL_ADDRESS: 'temporal.example:7233',
        INPUT_TEMPORAL_NAMESPACE: 'ci',
        INPUT_TEMPORAL_API_KEY: 'tk',
        INPUT_STORE_URL: 'postgres://db/x',
      },
      { exitCode: 1 },
    );
    expect(r.status).toBe(0);
    expect(r.args()).toEqual([
      '-p',
      'fix "it" now',
      '--output-format',
      'json',
      '--permission-mode',
      'acceptEdits',
      '--effort',
      'low',
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
    ]);
    expect(r.provider()).toBe('bedrock=1 vertex=');
    expect(r.temporal()).toBe('temporal=temporal.example:7233 ci tk store=postgres://db/x');
    // The outputs step gets the code: the turn's failure does not stop the step before it.
    expect(r.outputs()).toBe('code=1\n');
    expect(JSON.parse(readFileSync(join(r.dir, 'agent-runner-result.json'), 'utf8'))).toMatchObject({
      subtype: 'success',
    });
  });

  test('action: the run step is tested with every variable GitHub sets for it (set -u refuses a missing one)', () => {
    const step = action.runs.steps.find((s) => s.id === 'run');
    expect(Object.keys(RUN_ENV).sort()).toEqual(Object.keys(step?.env ?? {}).sort());
  });

  test.each([0, 2])('action: exit code %d is recorded as it is', (code) => {
    expect(runStep('run', RUN_ENV, { exitCode: code }).outputs()).toBe(`code=${code}\n`);
  });

  test('action: extra-args are split as a shell splits words (quotes, backslashes), with nothing expanded', () => {
    const r = runStep('run', {
      ...RUN_ENV,
      ALLOWED_TOOLS: '',
      MAX_BUDGET_USD: '',
      EXTRA_ARGS: `--append-system-prompt "Be brief, please." --fallback-model 'a b' it\\'s $HOME $(touch pwned) ''`,
    });
    expect(r.status).toBe(0);
    expect(r.args().slice(8)).toEqual([
      '--append-system-prompt',
      'Be brief, please.',
      '--fallback-model',
      'a b',
      "it's",
      '$HOME',
      '$(touch',
      'pwned)',
      '',
      'key=sk-test',
    ]);
    expect(existsSync(join(r.dir, 'pwned'))).toBe(false);
  });

  test('action: blank extra-args add no argument; an unmatched quote records exit 2 with a clear error and runs nothing', () => {
    expect(
      runStep('run', { ...RUN_ENV, EXTRA_ARGS: '   ' })
        .args()
        .at(-2),
    ).toBe('Bash(npm *) Edit');
    const bad = runStep('run', { ...RUN_ENV, EXTRA_ARGS: `--append-system-prompt "unclosed` });
    expect(bad.status).toBe(0);
    expect(bad.outputs()).toBe('code=2\n');
    expect(bad.stdout).toContain('::error::agent-runner: extra-args could not be split');
    expect(existsSync(join(bad.dir, 'args'))).toBe(false);
  });

  test("action: the runner's node is kept when it is recent enough (>= 20); setup-node runs only otherwise", () => {
    const setup = action.runs.steps.find((s) => s.uses?.startsWith('actions/setup-node'));
    expect(setup?.if).toBe("steps.node.outputs.recent != 'true'");
    expect(runStep('node', {}).outputs()).toBe('recent=true\n');
    const old = mkdtempSync(join(tmpdir(), 'dar-action-node-'));
    writeFileSync(join(old, 'node'), '#!/bin/bash\necho 18\n');
    chmodSync(join(old, 'node'), 0o755);
    expect(runStep('node', {}, { path: `${old}:/usr/bin:/bin` }).outputs()).toBe('recent=false\n');
    expect(runStep('node', {}, { path: '/nonexistent' }).outputs()).toBe('recent=false\n');
  });
});
