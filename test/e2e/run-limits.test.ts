/**
 * `-p`'s --max-turns and --max-budget-usd bound the whole run: the turns its background tasks'
 * notifications start count too (outsider finding F3: a chatty Monitor drove 43 paid calls under
 * --max-turns 3, every result `success`).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModelServer } from '../../src/fake-model';
import type { FakeModelServer, StepSpec } from '../../src/fake-model';
import { makeRepo } from '../helpers/runner-env';
import { runCli } from '../helpers/cli';

jest.setTimeout(180_000);

describe('-p run limits over notification turns', () => {
  let fake: FakeModelServer;
  afterEach(async () => fake?.close());

  async function setup(steps: StepSpec[]): Promise<NodeJS.ProcessEnv> {
    fake = await startFakeModelServer({ scenario: { steps } });
    const env: NodeJS.ProcessEnv = { ...process.env, ANTHROPIC_BASE_URL: fake.baseUrl, ANTHROPIC_API_KEY: 'test' };
    delete env['TEMPORAL_ADDRESS'];
    env['AGENT_RUNNER_DATA_DIR'] = mkdtempSync(join(tmpdir(), 'dar-runlim-'));
    env['AGENT_RUNNER_NO_DAEMON'] = '1';
    return env;
  }

  const monitor: StepSpec = {
    content: [
      {
        tool_use: {
          name: 'Monitor',
          input: {
            description: 'ticks',
            timeout_ms: 60_000,
            command: 'for i in $(seq 1 40); do echo line$i; sleep 0.4; done',
          },
        },
      },
    ],
  };
  const texts = (n: number, outputTokens = 10): StepSpec[] =>
    Array.from({ length: n }, (_, i) => ({
      content: [{ text: `noted ${i}` }],
      usage: { output_tokens: outputTokens },
    }));

  for (const [flag, value, subtype, outputTokens] of [
    ['--max-turns', '3', 'error_max_turns', 10],
    ['--max-budget-usd', '0.1', 'error_max_budget_usd', 4000],
  ] as const) {
    test(`${flag} ${value}: a monitor's notification turns stop at the run's limit; the background task is stopped; the last result is ${subtype}, exit 1`, async () => {
      const env = await setup([monitor, ...texts(60, outputTokens)]);
      const repo = makeRepo({});
      const r = await runCli(
        [
          '-p',
          'watch it',
          '--cwd',
          repo,
          '--output-format',
          'stream-json',
          '--verbose',
          '--tools',
          'Read,Bash,Monitor',
          '--allowedTools',
          'Bash,Monitor',
          flag,
          value,
        ],
        { env },
      );
      const lines = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const results = lines.filter((l) => l['type'] === 'result');
      expect(r.code).toBe(1);
      expect(results.at(-1)).toMatchObject({ subtype, is_error: true, terminal_reason: 'run_limit' });
      expect(r.stderr).toContain('stopping the session');
      // Far fewer calls than the 40 events would have started (at most a couple past the limit).
      expect(fake.requests().length).toBeLessThanOrEqual(flag === '--max-turns' ? 5 : 12);
      expect(results.length).toBeLessThan(10);
    });
  }
});
