/**
 * Every recorded variant of Claude Code 2.1.328's effort and thinking matrices, run through the
 * runner's own path from the command line to the request: the `-p` flags (commander), the
 * environment and `--settings`, turn options, model names per provider, and the model call's
 * parameters. Each must give the `max_tokens`, `thinking`, `context_management` and
 * `output_config` Claude Code sent, and betas it also sent.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildProgram } from '../../../../src/cli/main';
import type { PrintFlags } from '../../../../src/cli/commands/print';
import { applySettings } from '../../../../src/cli/settings-options';
import { modelNaming, turnOptionsFrom } from '../../../../src/cli/turn-options';
import { loadConfig } from '../../../../src/config';
import { modelProviderOf } from '../../../../src/config/provider';
import { thinkingParams } from '../../../../src/activities/model/thinking-params';
import { MODEL_SCENARIOS } from '../../../conformance/recorder/scenarios-model';

const RECORDINGS = join(__dirname, '..', '..', '..', 'conformance', 'recordings', 'claude-2.1.328');

interface RecordedRequest {
  url: string;
  model?: string;
  max_tokens: number;
  thinking?: unknown;
  context_management?: unknown;
  output_config?: unknown;
  'anthropic-beta'?: string;
  anthropic_beta?: string[];
}
interface RecordedVariant {
  args?: string[];
  cliArgv?: string[];
  requests: RecordedRequest[];
}

function recorded(name: string): Record<string, RecordedVariant> {
  return JSON.parse(readFileSync(join(RECORDINGS, name, 'params.json'), 'utf8')) as Record<string, RecordedVariant>;
}

/** The flags commander gives `-p` for these arguments. */
function parseFlags(args: readonly string[]): PrintFlags {
  let flags: PrintFlags | undefined;
  const program = buildProgram(() => undefined).exitOverride();
  program.action((_prompt: string | undefined, f: PrintFlags) => {
    flags = f;
  });
  program.parse(['-p', 'Say done.', ...args], { from: 'user' });
  if (!flags) throw new Error('no flags parsed');
  return flags;
}

/** The model a request names: in the body, else in a Bedrock or Vertex path. */
function modelOf(r: RecordedRequest): string {
  if (r.model) return r.model;
  const m = /\/model\/([^/]+)\/invoke|\/models\/([^/:]+):/.exec(r.url);
  return decodeURIComponent(m?.[1] ?? m?.[2] ?? '');
}

const home = mkdtempSync(join(tmpdir(), 'thinking-params-home-'));
const cwd = mkdtempSync(join(tmpdir(), 'thinking-params-repo-'));

/** What the runner sends for one variant: the model and its parameters. */
function ours(args: readonly string[], env: Record<string, string>, defaultModel: string) {
  const fullEnv = { HOME: home, ...env };
  const config = { ...loadConfig({ env: {} }) };
  config.model = { ...config.model, name: defaultModel };
  const flags = parseFlags(args);
  const warnings: string[] = [];
  const base = turnOptionsFrom(config, flags, { env: fullEnv, warn: (l) => warnings.push(l) });
  const options = applySettings(base, flags, {
    cwd,
    dataDir: home,
    env: fullEnv,
    naming: modelNaming(config, fullEnv),
    warn: (l) => warnings.push(l),
  });
  const provider = modelProviderOf(config.model, fullEnv);
  const { betas, ...params } = thinkingParams(options.model, provider, options.thinking, options.maxTokens);
  return { model: options.model, params, betas, warnings };
}

function expectMatches(id: string, got: ReturnType<typeof ours>, want: RecordedRequest): void {
  expect({ id, model: got.model, ...got.params }).toEqual({
    id,
    model: modelOf(want),
    max_tokens: want.max_tokens,
    ...(want.thinking ? { thinking: want.thinking } : {}),
    ...(want.context_management ? { context_management: want.context_management } : {}),
    ...(want.output_config ? { output_config: want.output_config } : {}),
  });
  const sent = new Set([...(want['anthropic-beta']?.split(',') ?? []), ...(want.anthropic_beta ?? [])]);
  expect({ id, betasClaudeCodeDidNotSend: got.betas.filter((b) => !sent.has(b)) }).toEqual({
    id,
    betasClaudeCodeDidNotSend: [],
  });
}

const scenario = (name: string) => {
  const s = MODEL_SCENARIOS.find((x) => x.name === name);
  if (!s?.variants) throw new Error(`no variants in ${name}`);
  return s;
};

describe('thinking and effort parameters: every recorded Claude Code variant', () => {
  test('effort-thinking-matrix: models × --effort, --max-thinking-tokens, --thinking, variables and settings', () => {
    const rec = recorded('effort-thinking-matrix');
    const s = scenario('effort-thinking-matrix');
    for (const v of s.variants ?? []) {
      const want = rec[v.id]?.requests[0];
      if (!want) throw new Error(`no recording of ${v.id}`);
      // Claude Code's default model is Opus 5.5 (ours: config model.name).
      const got = ours(v.args ?? [], v.env ?? {}, 'claude-opus-5-5');
      expectMatches(v.id, got, want);
      if (v.id.includes('--effort bogus')) {
        expect(got.warnings).toEqual([
          "Warning: Unknown --effort value 'bogus' — ignoring it and using the default effort. Valid values: low, medium, high, xhigh, max.",
        ]);
      } else expect(got.warnings).toEqual([]);
    }
  });

  test('sdk-thinking-options: the Agent SDK options, as the CLI arguments the SDK passed', () => {
    const rec = recorded('sdk-thinking-options');
    for (const [id, v] of Object.entries(rec)) {
      const want = v.requests[0];
      if (!want || !v.cliArgv) throw new Error(`no recording of ${id}`);
      expectMatches(id, ours(v.cliArgv, {}, 'claude-opus-5-5'), want);
    }
  });

  test('provider-model-ids: model names and parameters on Anthropic, Bedrock, Vertex and Foundry', () => {
    const rec = recorded('provider-model-ids');
    const s = scenario('provider-model-ids');
    let checked = 0;
    for (const v of s.variants ?? []) {
      const requests = rec[v.id]?.requests ?? [];
      // The conversation's call (Bedrock and Vertex also probe models with max_tokens 1 first).
      const want = requests.find((r) => r.max_tokens > 1);
      if (!want) throw new Error(`no recording of ${v.id}`);
      const env = Object.fromEntries(
        Object.entries(v.env ?? {}).map(([k, val]) => [k, val.replace('{{base}}', 'http://127.0.0.1:1')]),
      );
      // Claude Code's default is Opus 5.5, on Foundry Sonnet 4.5; ours is config model.name
      // (`sonnet`, which is Sonnet 4.5 on Foundry too).
      const defaultModel = v.id === 'foundry: no --model' ? 'sonnet' : 'claude-opus-5-5';
      expectMatches(v.id, ours(v.args ?? [], env, defaultModel), want);
      checked++;
    }
    expect(checked).toBeGreaterThan(30);
  });
});
