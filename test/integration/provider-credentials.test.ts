import { makeRepo, startRunnerEnv, testTurnOptions } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';

/**
 * Credentials stay in the worker's environment (DESIGN.md rule 6): a turn through Bedrock with
 * AWS keys (SigV4, verified by the fake model) and a Bedrock API key in the environment leaves no
 * secret in any workflow history, nor in the transcript store.
 */
const AWS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };

describe('provider credentials: never in workflow history', () => {
  let env: RunnerEnv;
  afterEach(async () => env?.close());

  test('history: a Bedrock turn (SigV4) with effort and a WebSearch carries no credential in any history or line', async () => {
    env = await startRunnerEnv({
      providerAuth: { aws: AWS },
      extraEnv: {
        ANTHROPIC_API_KEY: undefined,
        CLAUDE_CODE_USE_BEDROCK: '1',
        ANTHROPIC_BEDROCK_BASE_URL: '{{base}}',
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: AWS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: AWS.secretAccessKey,
        ANTHROPIC_AUTH_TOKEN: 'secret-gateway-token-value',
      },
      responder: (req, ctx) => {
        if ((req.tools ?? []).some((t) => String(t['type'] ?? '').startsWith('web_search'))) {
          return {
            content: [
              { server_tool_use: { name: 'web_search', input: { query: 'q' } } },
              {
                block: {
                  type: 'web_search_tool_result',
                  tool_use_id: 'srvtoolu_x',
                  content: [
                    { type: 'web_search_result', title: 'T', url: 'https://example.com/', encrypted_content: 'E' },
                  ],
                },
              },
              { text: 'Found it.' },
            ],
            usage: { server_tool_use: { web_search_requests: 1 } },
          };
        }
        return ctx.step === 0
          ? {
              content: [
                { thinking: 'Search.' },
                { tool_use: { name: 'WebSearch', input: { query: 'durable agents' } } },
              ],
            }
          : { content: [{ text: 'Done.' }] };
      },
    });
    const repo = makeRepo({});
    const engine = env.engine({
      cwd: repo,
      defaults: testTurnOptions({
        model: 'us.anthropic.claude-sonnet-5-5',
        tools: ['Read', 'WebSearch'],
        thinking: { effort: 'low' },
      }),
    });
    const { result } = await env.runTurn(engine, 'search the web');
    expect(result).toMatchObject({ subtype: 'success', result: 'Done.' });
    // The search call's tokens and its search are billed to the turn (USD 10 per 1,000 searches).
    expect(result.modelUsage['us.anthropic.claude-sonnet-5-5']?.webSearchRequests).toBe(1);
    expect(result.total_cost_usd).toBeGreaterThan(0.01);
    // The requests were signed (the fake model refused any that did not verify).
    expect(env.fake.requests().filter((r) => r.outcome === 'completed')).toHaveLength(3);

    await engine.end();
    const state = await engine.state();
    const histories = await Promise.all(
      [engine.workflowId, state.lastTurnWorkflowId ?? ''].map((id) => env.client.workflow.getHandle(id).fetchHistory()),
    );
    // Payload bytes print as base64: every one is decoded too.
    const raw = JSON.stringify(histories, (_k, v: unknown) =>
      v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v,
    );
    const decoded = [...raw.matchAll(/"data":"([A-Za-z0-9+/=]+)"/g)].map((m) =>
      Buffer.from(m[1] ?? '', 'base64').toString('utf8'),
    );
    const text = [raw, ...decoded].join('\n');
    expect(text).toContain('us.anthropic.claude-sonnet-5-5');
    for (const secret of [AWS.secretAccessKey, 'secret-gateway-token-value']) {
      expect(text).not.toContain(secret);
    }
    const lines = JSON.stringify(await env.store.load(engine.sessionId));
    for (const secret of [AWS.secretAccessKey, 'secret-gateway-token-value']) expect(lines).not.toContain(secret);
  }, 120_000);
});
