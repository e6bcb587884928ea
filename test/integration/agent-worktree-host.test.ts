/**
 * An agent's worktree when its host is lost (docs/agents.md, "Worktrees"): two `agent-runner
 * worker` processes share PostgreSQL, Temporal and a bare remote; host A holds the session's tree
 * and the agent's worktree and is killed (SIGKILL, its root deleted) while the agent runs. The
 * worktree is not rebuilt on B: the agent stops (`agent_worktree_host_lost`), its parent gets the
 * hand-back and its own tree moves to B as before, without the agent's file.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { QueryEngine } from '../../src/client/query-engine';
import type { SDKMessage } from '../../src/common/sdk-messages';
import { routeByMarker, startFakeModelServer, type FakeModelServer } from '../../src/fake-model';
import { PostgresTranscriptStore } from '../../src/store/postgres/postgres-store';
import { freshSchemaUrl, sql } from '../helpers/postgres';
import { temporalAddress, testTurnOptions } from '../helpers/runner-env';
import { toolResultText } from '../helpers/tool-results';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';

jest.setTimeout(150_000);

const tmp = (p: string): string => fs.mkdtempSync(path.join(os.tmpdir(), `dar-wt-${p}-`));
const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' }).trim();

describe('agent worktree, host lost', () => {
  let fake: FakeModelServer;
  let storeUrl: string;
  let schema: string;
  let store: PostgresTranscriptStore;
  let connection: Connection;
  const workers: WorkerProcess[] = [];
  let kill: (() => Promise<void>) | null = null;

  beforeAll(async () => {
    ({ url: storeUrl, schema } = freshSchemaUrl('wthost'));
    const agent = {
      content: [
        {
          tool_use: {
            name: 'Agent',
            input: {
              description: 'x',
              prompt: '[as:writer] Add b.txt.',
              isolation: 'worktree',
              run_in_background: false,
            },
          },
        },
      ],
    };
    const routed = routeByMarker([
      { marker: '[as:main]', steps: [agent, { content: [{ text: 'Done.' }] }] },
      {
        marker: '[as:writer]',
        steps: [
          { content: [{ tool_use: { name: 'Bash', input: { command: 'echo bee > b.txt' } } }] },
          { content: [{ tool_use: { name: 'Bash', input: { command: 'echo more >> b.txt' } } }] },
          { content: [{ text: 'Added b.txt.' }] },
        ],
      },
    ] as never);
    fake = await startFakeModelServer({
      responder: async (req, ctx) => {
        const step = await routed(req, ctx);
        // The writer's second model call: host A dies, this attempt fails (529), a retry answers.
        const text = JSON.stringify(req.messages);
        if (kill && text.includes('[as:writer]') && text.includes('tool_result')) {
          const k = kill;
          kill = null;
          await k();
          return { ...step, errors: [{ status: 529 }] };
        }
        return step;
      },
    });
    store = await PostgresTranscriptStore.open(storeUrl, { schema: 'migrate' });
    connection = await Connection.connect({ address: temporalAddress() });
  });
  afterAll(async () => {
    for (const w of workers) await w.stop().catch(() => undefined);
    await store?.close();
    await connection?.close();
    await fake?.close();
    await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });

  test('the agent stops with agent_worktree_host_lost; the parent goes on on host B without the agent file', async () => {
    const configFile = path.join(tmp('config'), 'temporal.yaml');
    fs.writeFileSync(configFile, 'worker:\n  stickyQueueTimeoutMs: 1000\nworkspace:\n  hostTimeoutMs: 3000\n');
    const remote = path.join(tmp('remote'), 'repo.git');
    const seed = tmp('seed');
    fs.writeFileSync(path.join(seed, 'a.txt'), 'one\n');
    git(seed, 'init', '-q', '-b', 'main');
    git(seed, 'add', '-A');
    git(seed, 'commit', '-q', '-m', 'base');
    git(seed, 'init', '-q', '--bare', remote);
    git(seed, 'push', '-q', remote, 'main');
    git(remote, 'symbolic-ref', 'HEAD', 'refs/heads/main');
    const taskQueue = `wt-host-${randomUUID()}`;
    const envOf = (name: string): { env: NodeJS.ProcessEnv; root: string } => {
      const root = tmp(`${name}-root`);
      return {
        root,
        env: {
          ...process.env,
          AGENT_RUNNER_CONFIG: configFile,
          AGENT_RUNNER_STORE_URL: storeUrl,
          AGENT_RUNNER_WORKSPACE_ROOT: root,
          AGENT_RUNNER_DATA_DIR: tmp(`${name}-data`),
          AGENT_RUNNER_TASK_QUEUE: taskQueue,
          TEMPORAL_ADDRESS: temporalAddress(),
          ANTHROPIC_BASE_URL: fake.baseUrl,
          ANTHROPIC_API_KEY: 'test-key',
        },
      };
    };
    const a = envOf('a');
    const b = envOf('b');
    const workerA = await startWorkerProcess(a.env);
    workers.push(workerA);
    const cwd = path.join(a.root, 'checkout');
    git(a.root, 'clone', '-q', remote, cwd);
    const bStarted = startWorkerProcess(b.env);
    let worktreeSeen = false;
    kill = async () => {
      workers.push(await bStarted);
      worktreeSeen = fs.readdirSync(path.join(cwd, '.claude/worktrees')).length === 1;
      await workerA.kill9();
      fs.rmSync(a.root, { recursive: true, force: true });
    };
    const engine = new QueryEngine({
      client: new Client({ connection }),
      store,
      taskQueue,
      cwd,
      defaults: testTurnOptions({
        subagents: {},
        limits: { maxTurns: 20 },
        timeouts: { modelHeartbeatMs: 3000, toolHeartbeatMs: 3000, modelMaxAttempts: 6 },
      }),
      idleTimeoutMs: 60_000,
    });
    const messages: SDKMessage[] = [];
    for await (const m of engine.submitMessage('[as:main] Do the task.')) messages.push(m);
    await engine.end().catch(() => undefined);
    expect(kill).toBeNull();
    expect(worktreeSeen).toBe(true);
    const result = messages.at(-1);
    expect(result).toMatchObject({ type: 'result', subtype: 'success', result: 'Done.' });
    const handback = toolResultText(messages, 'toolu_as_main_0_0');
    // The parent is told why: the report is the agent's stop reason.
    expect(handback).toMatch(
      /\n {2}the host \S+ of this agent's worktree \S+ is gone: an agent's worktree does not move/,
    );
    expect(handback).not.toContain('worktreePath');
    // The session's tree moved to host B; the agent's file is in neither tree.
    const ws = (result as { workspace?: { host: string; path: string } }).workspace;
    expect(ws?.path.startsWith(b.root)).toBe(true);
    expect(fs.existsSync(path.join(ws!.path, 'b.txt'))).toBe(false);
    expect(fs.existsSync(path.join(ws!.path, '.claude'))).toBe(false);
  });
});
