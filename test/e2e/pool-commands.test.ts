/** `agent-runner pool list` and `pool close` against a configured server with a worker. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { POOL_QUERY_MS, ensureBudgetPool } from '../../src/client/budget-pool';
import { budgetPoolWorkflowId } from '../../src/common/ids';
import { CONTROL_QUERY_MS } from '../../src/client/query-deadline';
import { installRuntimeLogging } from '../../src/worker/logging';
import { runCli } from '../helpers/cli';
import { makeRepo, startRunnerEnv, testTurnOptions, type RunnerEnv } from '../helpers/runner-env';
import { waitUntil } from '../helpers/processes';

installRuntimeLogging('ERROR');
jest.setTimeout(300_000);

describe('pool list and pool close', () => {
  let env: RunnerEnv;
  afterAll(async () => env?.close());

  test('pool: list shows open pools with limit and spend; close ends one (refused while a turn is in it, unless --force)', async () => {
    env = await startRunnerEnv({
      responder: () => ({ content: [{ tool_use: { name: 'Bash', input: { command: 'touch started && sleep 20' } } }] }),
    });
    const cliEnv = { ...env.workerEnv, TEMPORAL_ADDRESS: process.env['TEST_TEMPORAL_ADDRESS'] };
    // Each step's time goes to stderr, so that a slow step is named in a CI log.
    const t0 = Date.now();
    const step = (what: string): void => void process.stderr.write(`pool-commands: ${what} at ${Date.now() - t0} ms\n`);
    const cli = async (args: string[]) => {
      const r = await runCli(args, { env: cliEnv });
      step(`agent-runner ${args.join(' ')} → exit ${r.code}`);
      return r;
    };
    const a = `a-${Date.now()}`;
    const b = `b-${Date.now()}`;
    // A pool whose task queue has no worker (as a finished batch's pool on a shared server): its
    // state query would wait for the server's query timeout; the listing does not.
    const orphan = `orphan-${Date.now()}`;
    await ensureBudgetPool(env.client, { taskQueue: `${env.taskQueue}-gone`, poolId: orphan, limitUsd: 1 });
    expect((await cli(['pool', 'create', a, '--max-budget-usd', '2'])).code).toBe(0);
    expect((await cli(['pool', 'create', b, '--max-budget-usd', '3'])).code).toBe(0);

    const listed = Date.now();
    const list = await cli(['pool', 'list', '--json']);
    expect(list.code).toBe(0);
    expect(Date.now() - listed).toBeLessThan(POOL_QUERY_MS + 10_000);
    const rows = list.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.find((r) => r['pool_id'] === a)).toMatchObject({
      status: 'open',
      limit_usd: 2,
      spent_usd: 0,
      members: 0,
    });
    expect(rows.find((r) => r['pool_id'] === b)).toMatchObject({ status: 'open', limit_usd: 3 });
    expect(rows.find((r) => r['pool_id'] === orphan)).toMatchObject({ status: 'unknown', limit_usd: null });
    // Asked about by name, it is a clear error after a bounded wait, not the server's query timeout.
    const shown = Date.now();
    const orphanShow = await cli(['pool', 'show', orphan]);
    expect(Date.now() - shown).toBeLessThan(CONTROL_QUERY_MS + 10_000);
    expect(orphanShow.code).toBe(1);
    expect(orphanShow.stderr).toContain(`no worker answered for ${budgetPoolWorkflowId(orphan)}`);
    const table = await cli(['pool', 'list']);
    expect(table.stdout).toMatch(new RegExp(`^${a}\\s+open\\s+\\$2\\.0000\\s+\\$0\\.0000\\s+0\\s`, 'm'));

    const closed = await cli(['pool', 'close', a]);
    expect({ code: closed.code, out: closed.stdout }).toMatchObject({ code: 0 });
    expect(closed.stdout).toContain(`budget pool "${a}" closed: spent $0.0000 of $2.0000`);
    const after = await cli(['pool', 'list', '--json']);
    const rowsAfter = after.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rowsAfter.find((r) => r['pool_id'] === a)).toMatchObject({
      status: 'completed',
      limit_usd: 2,
      spent_usd: 0,
    });
    const again = await cli(['pool', 'close', a]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`no budget pool "${a}"`);

    // A turn in pool b: close is refused, --force closes it.
    await ensureBudgetPool(env.client, { taskQueue: env.taskQueue, poolId: b, limitUsd: 3 });
    step('ensureBudgetPool');
    const repo = makeRepo({});
    const engine = env.engine({ cwd: repo });
    await engine.start('work', testTurnOptions({ budgetPoolId: budgetPoolWorkflowId(b) }));
    step('engine.start');
    expect(await waitUntil(() => existsSync(join(repo, 'started')), 60_000)).toBe(true);
    step('the command started');
    const busy = await cli(['pool', 'close', b]);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain('1 running turn(s) are in the pool');
    const forced = await cli(['pool', 'close', b, '--force']);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('1 running turn(s) go on without it');
    await engine.interrupt('test over');
    step('interrupted');
  });
});
