import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { makeRepo, startRunnerEnv } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';

/**
 * The turn's own guard: a USD limit that reaches a turn although a call's cost cannot be known
 * (the library API, a limit set on a running turn, a model switched mid-session, an API that
 * answers with a model the table lacks) stops the turn after that call; its tools do not run.
 */
describe('limits: a USD budget whose spend cannot be known', () => {
  let env: RunnerEnv;
  afterEach(async () => env?.close());

  test('maxBudgetUsd: a call answered by a model without a price stops the turn with error_max_budget_usd; its tools do not run', async () => {
    env = await startRunnerEnv({
      scenario: {
        steps: [
          {
            model: 'claude-mystery-9',
            content: [{ tool_use: { name: 'Bash', input: { command: 'touch ran.txt' } } }],
          },
          { content: [{ text: 'done' }] },
        ],
      },
    });
    const repo = makeRepo({});
    const engine = env.engine({ cwd: repo });
    const { result } = await env.runTurn(engine, 'touch a file', { limits: { maxBudgetUsd: 5 } });
    expect(result).toMatchObject({ subtype: 'error_max_budget_usd', num_turns: 1, total_cost_usd_known: false });
    expect(result.errors?.[0]).toContain('"claude-mystery-9" has no price');
    expect(existsSync(join(repo, 'ran.txt'))).toBe(false);
    expect(env.fake.requests()).toHaveLength(1);
  });
});
