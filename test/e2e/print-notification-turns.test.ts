/**
 * `-p` over the turns its background tasks' notifications start: --max-turns and
 * --max-budget-usd bound the whole run (outsider finding F3: a chatty Monitor drove 43 paid calls
 * under --max-turns 3, every result `success`), and --json-schema holds the user's turn only
 * (F6: a notification turn's schema retries replaced the answer).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModelServer } from '../../src/fake-model';
import type { FakeModelServer, ParsedRequest, StepSpec } from '../../src/fake-model';
import { makeRepo } from '../helpers/runner-env';
import { runCli } from '../helpers/cli';

jest.setTimeout(180_000);

describe('-p over notification turns', () => {
  let fake: FakeModelServer;
  afterEach(async () => fake?.close());

  async function setup(steps: StepSpec[], seen?: ParsedRequest[]): Promise<NodeJS.ProcessEnv> {
    // Step = the request's assistant messages (a notification turn continues the conversation).
    fake = await startFakeModelServer({
      responder: (req) => {
        seen?.push(req);
        return steps[req.messages.filter((m) => m.role === 'assistant').length] ?? { content: [{ text: 'Done.' }] };
      },
    });
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

  test('--max-turns 5 with four chatty monitors at once: the events already queued start no turn after the stop', async () => {
    const monitors: StepSpec = {
      content: [1, 2, 3, 4].map((i) => ({
        tool_use: {
          name: 'Monitor',
          input: {
            description: `ticks ${i}`,
            timeout_ms: 60_000,
            command: `for i in $(seq 1 40); do echo m${i}-$i; sleep 0.2; done`,
          },
        },
      })),
    };
    const env = await setup([monitors, ...texts(200)]);
    const r = await runCli(
      [
        '-p',
        'watch them',
        '--cwd',
        makeRepo({}),
        '--output-format',
        'json',
        '--tools',
        'Read,Bash,Monitor',
        '--allowedTools',
        'Bash,Monitor',
        '--max-turns',
        '5',
      ],
      { env },
    );
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout.trim())).toMatchObject({ subtype: 'error_max_turns', terminal_reason: 'run_limit' });
    // 160 events would start 160 turns; the run stops at its 5th call (one more may be in flight).
    expect(fake.requests().length).toBeLessThanOrEqual(7);
  });

  test("--json-schema: the answer stays the run's after a background command's notification turn, which is not held to the schema; exit 0", async () => {
    const seen: ParsedRequest[] = [];
    const env = await setup(
      [
        {
          content: [{ tool_use: { name: 'Bash', input: { command: 'sleep 1; echo built', run_in_background: true } } }],
        },
        { content: [{ tool_use: { name: 'StructuredOutput', input: { ok: true, who: 'main' } } }] },
        { content: [{ text: 'The build finished.' }] },
      ],
      seen,
    );
    const repo = makeRepo({});
    const schema = JSON.stringify({
      type: 'object',
      properties: { ok: { type: 'boolean' }, who: { type: 'string' } },
      required: ['ok'],
    });
    const r = await runCli(
      ['-p', 'build it', '--cwd', repo, '--output-format', 'json', '--allowedTools', 'Bash', '--json-schema', schema],
      { env },
    );
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout.trim()) as Record<string, unknown>;
    expect(out).toMatchObject({ subtype: 'success', is_error: false, structured_output: { ok: true, who: 'main' } });
    // The answer ends its turn (as Claude Code's); then the notification turn's one call.
    expect(seen).toHaveLength(3);
    const toolsOf = (i: number): string[] => (seen[i]?.tools ?? []).map((t) => String((t as { name?: string }).name));
    expect(toolsOf(0)).toContain('StructuredOutput');
    // The notification turn's call: no schema, no StructuredOutput, no retries.
    expect(toolsOf(2)).not.toContain('StructuredOutput');
  });

  test('--max-budget-usd 0.5: four background agents started at once share the budget; their live spend stops them; the last result is error_max_budget_usd, exit 1', async () => {
    const read: StepSpec = {
      delay_ms: 400,
      content: [{ tool_use: { name: 'Read', input: { file_path: '{{cwd}}/a.txt' } } }],
      usage: { output_tokens: 10_000 },
    };
    const agent = (i: number): NonNullable<StepSpec['content']>[number] => ({
      tool_use: { name: 'Agent', input: { description: `part ${i}`, prompt: `BSUB part ${i}: read a.txt five times` } },
    });
    let agentCalls = 0;
    fake = await startFakeModelServer({
      responder: (req) => {
        const step = req.messages.filter((m) => m.role === 'assistant').length;
        if (JSON.stringify(req.messages[0]?.content ?? '').includes('BSUB')) {
          agentCalls++;
          return step < 5 ? read : { content: [{ text: 'read it' }] };
        }
        if (step === 0) return { content: [agent(1), agent(2), agent(3), agent(4)] };
        return { content: [{ text: 'waiting' }] };
      },
    });
    const env: NodeJS.ProcessEnv = { ...process.env, ANTHROPIC_BASE_URL: fake.baseUrl, ANTHROPIC_API_KEY: 'test' };
    delete env['TEMPORAL_ADDRESS'];
    env['AGENT_RUNNER_DATA_DIR'] = mkdtempSync(join(tmpdir(), 'dar-runlim-'));
    env['AGENT_RUNNER_NO_DAEMON'] = '1';
    const r = await runCli(
      ['-p', 'split it', '--cwd', makeRepo({ 'a.txt': 'a\n' }), '--output-format', 'json', '--max-budget-usd', '0.5'],
      { env },
    );
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout.trim()) as Record<string, unknown>;
    expect(out).toMatchObject({ subtype: 'error_max_budget_usd', is_error: true, terminal_reason: 'run_limit' });
    // Unbounded, the four agents make 24 calls of ~$0.15 (~$3.6, 7x the budget).
    expect(agentCalls).toBeLessThan(16);
    // The result's total is the session's, the stopped agents' spend included.
    expect(out['total_cost_usd'] as number).toBeGreaterThanOrEqual(0.5);
    expect(out['total_cost_usd'] as number).toBeLessThan(0.5 * 2.5);
  });
});
