import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConfigError, loadConfig } from '../../../src/config';
import { versioningOptions } from '../../../src/worker/worker';
import { withVersioningFlags } from '../../../src/cli/commands/worker';
import { buildProgram } from '../../../src/cli/main';

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'versioning-test-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** The config of these variables only (no file, no host variables). */
const configOf = (env: NodeJS.ProcessEnv) => loadConfig({ cwd: tmp, env: { HOME: '/home/tester', ...env } });

describe('worker versioning options', () => {
  test('versioning: off by default; the worker reports its build id only', () => {
    const c = configOf({});
    expect(c.worker).toMatchObject({ deploymentName: null, buildId: null, defaultVersioningBehavior: 'PINNED' });
    expect(versioningOptions(c, 'agent-runner@1+abc')).toEqual({ buildId: 'agent-runner@1+abc' });
  });

  test('versioning: a deployment name turns it on, pinned, with the bundle build id unless one is given', () => {
    expect(versioningOptions(configOf({ AGENT_RUNNER_DEPLOYMENT_NAME: 'agents' }), 'agent-runner@1+abc')).toEqual({
      workerDeploymentOptions: {
        version: { deploymentName: 'agents', buildId: 'agent-runner@1+abc' },
        useWorkerVersioning: true,
        defaultVersioningBehavior: 'PINNED',
      },
    });
    const c = configOf({
      AGENT_RUNNER_DEPLOYMENT_NAME: 'agents',
      AGENT_RUNNER_BUILD_ID: 'release-42',
      AGENT_RUNNER_VERSIONING_BEHAVIOR: 'AUTO_UPGRADE',
    });
    expect(versioningOptions(c, 'agent-runner@1+abc').workerDeploymentOptions).toEqual({
      version: { deploymentName: 'agents', buildId: 'release-42' },
      useWorkerVersioning: true,
      defaultVersioningBehavior: 'AUTO_UPGRADE',
    });
  });

  test('versioning: a file sets them; a build id alone leaves the worker unversioned', () => {
    const file = path.join(tmp, 'temporal.yaml');
    fs.writeFileSync(file, 'worker:\n  buildId: release-42\n');
    const c = loadConfig({ path: file, cwd: tmp, env: { HOME: '/home/tester' } });
    expect(versioningOptions(c, 'agent-runner@1+abc')).toEqual({ buildId: 'agent-runner@1+abc' });
  });

  test('versioning: an unknown behaviour names the variable and the choices', () => {
    let err: unknown;
    try {
      configOf({ AGENT_RUNNER_VERSIONING_BEHAVIOR: 'pinned' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain(
      'worker.defaultVersioningBehavior (from env AGENT_RUNNER_VERSIONING_BEHAVIOR)',
    );
    expect((err as Error).message).toContain('expected one of PINNED, AUTO_UPGRADE');
  });

  test('versioning: the worker command flags override the environment; a bad behaviour is refused', () => {
    const c = withVersioningFlags(configOf({ AGENT_RUNNER_DEPLOYMENT_NAME: 'env', AGENT_RUNNER_BUILD_ID: 'env-id' }), {
      buildId: 'flag-id',
      versioningBehavior: 'AUTO_UPGRADE',
    });
    expect(c.worker).toMatchObject({
      deploymentName: 'env',
      buildId: 'flag-id',
      defaultVersioningBehavior: 'AUTO_UPGRADE',
    });
    const program = buildProgram(() => undefined).exitOverride();
    const worker = program.commands.find((cmd) => cmd.name() === 'worker')!;
    worker.exitOverride().configureOutput({ writeErr: () => undefined });
    expect(() => program.parse(['worker', '--versioning-behavior', 'pinned'], { from: 'user' })).toThrow(
      /Allowed choices are PINNED, AUTO_UPGRADE/,
    );
  });
});
