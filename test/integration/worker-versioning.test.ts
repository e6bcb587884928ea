/**
 * Worker Versioning (docs/deploy.md, "Releasing a new build"): two builds of one Worker Deployment
 * side by side on one task queue. A session started on build v1 stays on v1 after v2 becomes the
 * deployment's current version (its running turn and its next turn too, every workflow task and
 * activity on a v1 worker), and a session started after that runs on v2; v1 is `draining` while
 * its session is open and `drained` once it closed. The versions are made current and watched
 * with the `temporal` CLI commands the rollout documents.
 *
 * Its own dev server: the shared one reports a version drained 3 minutes after its last workflow
 * closed (Temporal's defaults); this one rechecks every second.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { temporal } from '@temporalio/proto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { findTemporalCli, startDevServer, type DevServer } from '../../src/host/dev-server';
import { SEARCH_ATTRIBUTES } from '../../src/common/search-attributes';
import { sessionWorkflowId, turnWorkflowId } from '../../src/common/ids';
import type { Config } from '../../src/config';
import type { Client } from '@temporalio/client';
import type { SDKMessage } from '../../src/common/sdk-messages';
import { makeRepo, startRunnerEnv, temporalAddress } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';
import { closeBudgetPool, ensureBudgetPool, setBudgetPoolLimit } from '../../src/client/budget-pool';

jest.setTimeout(180_000);

const run = promisify(execFile);
const DEPLOYMENT = `dar-test-${randomUUID().slice(0, 8)}`;

/** The temporal CLI against the test server (a rollout step of docs/deploy.md). */
async function temporalCli(...args: string[]): Promise<string> {
  const { stdout } = await run(findTemporalCli(), [...args, '--address', temporalAddress()]);
  return stdout;
}

/** temporal.api.enums.v1.RoutingConfigUpdateState.ROUTING_CONFIG_UPDATE_STATE_COMPLETED */
const ROUTING_COMPLETED = 2;

/** Makes `buildId` the deployment's current version once its worker has registered it by polling. */
async function setCurrent(client: Client, buildId: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await temporalCli(
        'worker',
        'deployment',
        'set-current-version',
        '--deployment-name',
        DEPLOYMENT,
        '--build-id',
        buildId,
        '--yes',
      );
      break;
    } catch (e) {
      // Not registered yet: the worker's first poll creates the version.
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  // The new routing reaches the task queues' partitions a little later: until it has, a task may still
  // go to the previous current version's workers.
  for (;;) {
    const { workerDeploymentInfo: d } = await client.workflowService.describeWorkerDeployment({
      namespace: client.options.namespace,
      deploymentName: DEPLOYMENT,
    });
    if (
      d?.routingConfig?.currentDeploymentVersion?.buildId === buildId &&
      d.routingConfigUpdateState === ROUTING_COMPLETED
    )
      return;
    if (Date.now() > deadline) throw new Error(`routing to ${buildId} not propagated: ${d?.routingConfigUpdateState}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A worker config of `buildId` in the test deployment. */
const build =
  (buildId: string) =>
  (c: Config): Config => ({ ...c, worker: { ...c.worker, deploymentName: DEPLOYMENT, buildId } });

type Event = temporal.api.history.v1.IHistoryEvent;

/** What ran a workflow: its versioning info and the build ids and identities in its history. */
async function ranOn(env: RunnerEnv, workflowId: string) {
  const handle = env.client.workflow.getHandle(workflowId);
  const info = (await handle.describe()).raw.workflowExecutionInfo?.versioningInfo;
  const events: Event[] = (await handle.fetchHistory()).events ?? [];
  const completed = events.flatMap((e) =>
    e.workflowTaskCompletedEventAttributes ? [e.workflowTaskCompletedEventAttributes] : [],
  );
  const activityIdentities = events.flatMap((e) =>
    e.activityTaskStartedEventAttributes ? [e.activityTaskStartedEventAttributes.identity ?? ''] : [],
  );
  return {
    behavior: info?.behavior,
    deploymentName: info?.deploymentVersion?.deploymentName,
    buildId: info?.deploymentVersion?.buildId,
    taskBuildIds: [...new Set(completed.map((a) => a.deploymentVersion?.buildId ?? 'none'))],
    taskIdentities: [...new Set(completed.map((a) => a.identity ?? ''))],
    activityIdentities: [...new Set(activityIdentities)],
  };
}

// temporal.api.enums.v1.VersioningBehavior
const PINNED = 1;
const AUTO_UPGRADE = 2;

async function collect(gen: AsyncGenerator<SDKMessage>): Promise<SDKMessage[]> {
  const out: SDKMessage[] = [];
  for await (const m of gen) out.push(m);
  return out;
}

/** Dynamic config of this file's server: drainage rechecked every second (Temporal's defaults are 3 minutes). */
const FAST_DRAINAGE = {
  'matching.wv.VersionDrainageStatusVisibilityGracePeriod': '1s',
  'matching.wv.VersionDrainageStatusRefreshInterval': '1s',
};

/** The drainage status of a version (`temporal worker deployment describe`): draining, drained or unspecified. */
async function drainage(buildId: string): Promise<string | undefined> {
  const d = JSON.parse(
    await temporalCli('worker', 'deployment', 'describe', '--name', DEPLOYMENT, '--output', 'json'),
  ) as {
    versionSummaries?: Array<{ BuildID?: string; drainageStatus?: string }>;
  };
  return d.versionSummaries?.find((v) => v.BuildID === buildId)?.drainageStatus;
}

describe('worker versioning', () => {
  let env: RunnerEnv;
  let server: DevServer;
  const dataDir = mkdtempSync(join(tmpdir(), 'dar-versioning-'));
  beforeAll(async () => {
    server = await startDevServer({
      cliPath: findTemporalCli(),
      dataDir,
      dbFilename: null,
      searchAttributes: { ...SEARCH_ATTRIBUTES },
      dynamicConfig: FAST_DRAINAGE,
      logLevel: 'error',
    });
    // This file's environment only (jest gives each test file its own process.env).
    process.env['TEST_TEMPORAL_ADDRESS'] = server.address;
  });
  afterAll(async () => {
    await env?.close();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('worker versioning: a session started on v1 finishes on v1 after v2 is current; a new session starts on v2', async () => {
    env = await startRunnerEnv({
      worker: false,
      scenario: {
        scripts: [
          { name: 'second', match: { promptContains: 'second session' }, steps: [{ content: [{ text: 'On v2.' }] }] },
          {
            name: 'first',
            steps: [
              // The first turn waits for the file `go`, which the test writes once v2 is current.
              {
                content: [
                  {
                    tool_use: {
                      name: 'Bash',
                      input: { command: 'while [ ! -f go ]; do sleep 0.1; done; echo released' },
                    },
                  },
                ],
              },
              { expect: { lastToolResultContains: 'released' }, content: [{ text: 'Released.' }] },
              { content: [{ text: 'Second turn.' }] },
            ],
          },
        ],
      },
    });
    await env.startWorker({ config: build('v1'), identity: 'worker-v1' });
    await setCurrent(env.client, 'v1');
    // A budget pool (AUTO_UPGRADE) on v1: it moves to v2 at its first workflow task after v2 is current.
    const pool = await ensureBudgetPool(env.client, {
      taskQueue: env.taskQueue,
      poolId: `pool-${DEPLOYMENT}`,
      limitUsd: 5,
    });
    await setBudgetPoolLimit(env.client, pool.poolId, 6);

    const repo = makeRepo({});
    const first = env.engine({ cwd: repo });
    const turn1 = collect(first.submitMessage('wait for go'));
    // The turn is on v1 (its Bash call waits) when v2 starts and becomes current.
    const turn1Id = turnWorkflowId(first.sessionId, 1);
    const deadline = Date.now() + 60_000;
    while (!env.fake.requests().some((r) => r.step === 0 && r.outcome === 'completed')) {
      if (Date.now() > deadline) throw new Error('timed out waiting for the first model call');
      await new Promise((r) => setTimeout(r, 50));
    }
    await env.startWorker({ config: build('v2'), identity: 'worker-v2' });
    await setCurrent(env.client, 'v2');
    writeFileSync(join(repo, 'go'), '');
    await setBudgetPoolLimit(env.client, pool.poolId, 7);
    expect((await closeBudgetPool(env.client, pool.poolId)).limitUsd).toBe(7);
    const r1 = (await turn1).at(-1);
    expect(r1).toMatchObject({ type: 'result', subtype: 'success', result: 'Released.' });
    // A later turn of the v1 session, with v2 current: still v1.
    const r2 = (await collect(first.submitMessage('and again'))).at(-1);
    expect(r2).toMatchObject({ type: 'result', subtype: 'success', result: 'Second turn.' });
    expect(await drainage('v1')).toBe('draining');
    // The rollout's list of what still runs on v1 (docs/deploy.md, step 4); visibility lags a little.
    const onV1Query = `TemporalWorkerDeploymentVersion = '${DEPLOYMENT}:v1' AND ExecutionStatus = 'Running'`;
    const listDeadline = Date.now() + 30_000;
    let listed: string[] = [];
    while (!listed.includes(sessionWorkflowId(first.sessionId))) {
      if (Date.now() > listDeadline) throw new Error(`the v1 session is not listed: ${listed.join(', ')}`);
      await new Promise((r) => setTimeout(r, 500));
      const out = await temporalCli('workflow', 'list', '--query', onV1Query, '--output', 'json');
      listed = (JSON.parse(out || '[]') as Array<{ execution?: { workflowId?: string } }>).map(
        (w) => w.execution?.workflowId ?? '',
      );
    }
    expect(await first.endAndWait(30_000)).toBe(true);

    const second = env.engine({ cwd: makeRepo({}) });
    const r3 = (await collect(second.submitMessage('the second session'))).at(-1);
    expect(r3).toMatchObject({ type: 'result', subtype: 'success', result: 'On v2.' });
    expect(await second.endAndWait(30_000)).toBe(true);

    const onV1 = {
      behavior: PINNED,
      deploymentName: DEPLOYMENT,
      buildId: 'v1',
      taskBuildIds: ['v1'],
      taskIdentities: ['worker-v1'],
    };
    expect(await ranOn(env, sessionWorkflowId(first.sessionId))).toMatchObject(onV1);
    for (const id of [turn1Id, turnWorkflowId(first.sessionId, 2)]) {
      const ran = await ranOn(env, id);
      expect(ran).toMatchObject(onV1);
      // The shared queue's worker and its host queue's (`<identity>/host`, where tool calls go).
      expect(ran.activityIdentities.length).toBeGreaterThan(0);
      for (const who of ran.activityIdentities) expect(who).toMatch(/^worker-v1(\/host)?$/);
    }
    const onV2 = {
      behavior: PINNED,
      deploymentName: DEPLOYMENT,
      buildId: 'v2',
      taskBuildIds: ['v2'],
      taskIdentities: ['worker-v2'],
    };
    expect(await ranOn(env, sessionWorkflowId(second.sessionId))).toMatchObject(onV2);
    const ran = await ranOn(env, turnWorkflowId(second.sessionId, 1));
    expect(ran).toMatchObject(onV2);
    expect(ran.activityIdentities.length).toBeGreaterThan(0);
    for (const who of ran.activityIdentities) expect(who).toMatch(/^worker-v2(\/host)?$/);
    expect(await ranOn(env, pool.workflowId)).toMatchObject({
      behavior: AUTO_UPGRADE,
      buildId: 'v2',
      taskBuildIds: ['v1', 'v2'],
      taskIdentities: ['worker-v1', 'worker-v2'],
    });
    // v2 is current; v1, its last session closed, drains: its workers may stop.
    const described = JSON.parse(
      await temporalCli('worker', 'deployment', 'describe', '--name', DEPLOYMENT, '--output', 'json'),
    ) as { routingConfig?: { currentVersionBuildID?: string } };
    expect(described.routingConfig?.currentVersionBuildID).toBe('v2');
    const drainDeadline = Date.now() + 60_000;
    while ((await drainage('v1')) !== 'drained') {
      if (Date.now() > drainDeadline) throw new Error(`v1 still ${await drainage('v1')} after 60 s`);
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(await drainage('v2')).not.toBe('drained');
  });
});
