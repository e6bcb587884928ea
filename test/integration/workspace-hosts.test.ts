/**
 * The workspace follows the turn to another host (issue 11): two `agent-runner worker` processes
 * with their own workspace roots and data directories share only PostgreSQL, the Temporal server
 * and a bare git repository (the remote). After step 4 of a 10-step turn, host A's worker is
 * killed with SIGKILL and its workspace root deleted; host B finishes the turn.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { QueryEngine } from '../../src/client/query-engine';
import type { SDKResultMessage } from '../../src/common/sdk-messages';
import type { TranscriptEntry } from '../../src/common/transcript';
import { repeatedCompletedCalls, startFakeModelServer, type FakeModelServer } from '../../src/fake-model';
import type { StepSpec } from '../../src/fake-model/scenario';
import { PostgresTranscriptStore } from '../../src/store/postgres/postgres-store';
import { runCli } from '../helpers/cli';
import { freshSchemaUrl, sql } from '../helpers/postgres';
import { temporalAddress, testTurnOptions } from '../helpers/runner-env';
import { turnProgressQuery } from '../../src/workflows/messages';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';
import { clientInterceptors } from '../../src/connection/closed-channel';

const tmp = (p: string): string => fs.mkdtempSync(path.join(os.tmpdir(), `dar-ws-${p}-`));

function gitIn(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' }).trim();
}

/** The base repository: tracked files, a .gitignore, and a commit. */
function seedRepo(dir: string): void {
  fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'a.txt'), 'alpha\nbeta\n');
  fs.writeFileSync(path.join(dir, 'b.txt'), 'to be removed\n');
  fs.writeFileSync(path.join(dir, 'src', 'lib.js'), 'module.exports = 1;\n');
  fs.writeFileSync(path.join(dir, '.gitignore'), '*.log\n');
  gitIn(dir, 'init', '-q', '-b', 'main');
  gitIn(dir, 'add', '-A');
  gitIn(dir, 'commit', '-q', '-m', 'base');
}

/** Files git would carry (tracked and untracked, .gitignore honoured) → [mode, sha256 of content]. */
function treeOf(dir: string): Record<string, string> {
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: dir, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f && fs.existsSync(path.join(dir, f)));
  const out: Record<string, string> = {};
  for (const f of files.sort()) {
    const st = fs.statSync(path.join(dir, f));
    out[f] = `${(st.mode & 0o111) !== 0 ? 'x' : '-'} ${fs.readFileSync(path.join(dir, f), 'utf8')}`;
  }
  return out;
}

/** Ten tool steps that edit files and run Bash, then an answer. Paths are relative or `{{cwd}}`-based. */
const STEPS: StepSpec[] = [
  { content: [{ tool_use: { name: 'Write', input: { file_path: '{{cwd}}/notes.txt', content: 'one\n' } } }] },
  { content: [{ tool_use: { name: 'Read', input: { file_path: '{{cwd}}/a.txt' } } }] },
  {
    content: [
      { tool_use: { name: 'Edit', input: { file_path: '{{cwd}}/a.txt', old_string: 'alpha', new_string: 'ALPHA' } } },
    ],
  },
  { content: [{ tool_use: { name: 'Bash', input: { command: 'echo two >> notes.txt' } } }] },
  {
    content: [
      {
        tool_use: { name: 'Bash', input: { command: 'mkdir -p gen && seq 1 50 > gen/nums.txt && echo x > debug.log' } },
      },
    ],
  },
  // ---- host A is killed when the model is asked for this step ----
  {
    content: [
      { tool_use: { name: 'Write', input: { file_path: '{{cwd}}/gen/run.sh', content: '#!/bin/sh\necho run\n' } } },
    ],
  },
  { content: [{ tool_use: { name: 'Bash', input: { command: 'chmod +x gen/run.sh && rm b.txt' } } }] },
  {
    content: [{ tool_use: { name: 'Read', input: { file_path: '{{cwd}}/notes.txt' } } }],
  },
  {
    content: [
      { tool_use: { name: 'Edit', input: { file_path: '{{cwd}}/notes.txt', old_string: 'two', new_string: 'TWO' } } },
    ],
  },
  {
    content: [{ tool_use: { name: 'Bash', input: { command: 'cp a.txt src/a-copy.txt && ./gen/run.sh > ran.txt' } } }],
  },
  { content: [{ text: 'All ten steps done.' }] },
];
/** Model request index (tool results before it: 5) at which host A dies. */
const KILL_AT_STEP = 5;

interface Host {
  name: string;
  root: string;
  dataDir: string;
  worker?: WorkerProcess;
}

describe('workspace follows the turn to another host', () => {
  let fake: FakeModelServer;
  let storeUrl: string;
  let schema: string;
  let store: PostgresTranscriptStore;
  let connection: Connection;
  let client: Client;
  let configFile: string;
  let onKillStep: (() => Promise<void>) | null = null;
  const hosts: Host[] = [];

  beforeAll(async () => {
    ({ url: storeUrl, schema } = freshSchemaUrl('hosts'));
    fake = await startFakeModelServer({
      ...(process.env['DEBUG_WS']
        ? {
            onRequest: (e) =>
              process.stderr.write(
                `[fake] ${e.conversationKey} step ${e.step} attempt ${e.attempt} ${e.outcome} ${e.status}\n`,
              ),
          }
        : {}),
      responder: async (req, ctx) => {
        const step = STEPS[ctx.step] ?? { content: [{ text: 'done' }] };
        const moving = JSON.stringify(req.messages[0]?.content ?? '').includes('moving run');
        if (moving && ctx.step === KILL_AT_STEP && ctx.attempt === 1 && onKillStep) {
          const kill = onKillStep;
          onKillStep = null;
          await kill();
          // Whichever worker asked, this attempt fails (529): a retry makes the call, once.
          return { ...step, errors: [{ status: 529 }] };
        }
        return step;
      },
    });
    configFile = path.join(tmp('config'), 'temporal.yaml');
    fs.writeFileSync(configFile, 'worker:\n  stickyQueueTimeoutMs: 1000\nworkspace:\n  hostTimeoutMs: 3000\n');
    store = await PostgresTranscriptStore.open(storeUrl, { schema: 'migrate' });
    connection = await Connection.connect({ address: temporalAddress(), interceptors: clientInterceptors() });
    client = new Client({ connection });
  });
  afterAll(async () => {
    for (const h of hosts) await h.worker?.stop().catch(() => undefined);
    await store?.close();
    await connection?.close();
    await fake?.close();
    await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });

  function newHost(name: string): Host {
    const h = { name, root: tmp(`${name}-root`), dataDir: tmp(`${name}-data`) };
    hosts.push(h);
    return h;
  }

  function hostEnv(h: Host, taskQueue: string): NodeJS.ProcessEnv {
    return {
      ...process.env,
      AGENT_RUNNER_CONFIG: configFile,
      AGENT_RUNNER_STORE_URL: storeUrl,
      AGENT_RUNNER_WORKSPACE_ROOT: h.root,
      AGENT_RUNNER_DATA_DIR: h.dataDir,
      AGENT_RUNNER_TASK_QUEUE: taskQueue,
      TEMPORAL_ADDRESS: temporalAddress(),
      ANTHROPIC_BASE_URL: fake.baseUrl,
      ANTHROPIC_API_KEY: 'test-key',
    };
  }

  async function runTurn(
    taskQueue: string,
    cwd: string,
    prompt: string,
    stallNotice?: (line: string) => void,
  ): Promise<{ result: SDKResultMessage; sessionId: string }> {
    const engine = new QueryEngine({
      client,
      store,
      taskQueue,
      cwd,
      ...(stallNotice ? { stallNotice } : {}),
      defaults: testTurnOptions({
        limits: { maxTurns: 20 },
        timeouts: { modelHeartbeatMs: 3000, toolHeartbeatMs: 3000, modelMaxAttempts: 6 },
      }),
      idleTimeoutMs: 60_000,
    });
    let result: SDKResultMessage | undefined;
    for await (const m of engine.submitMessage(prompt)) if (m.type === 'result') result = m;
    await engine.end().catch(() => undefined);
    if (!result) throw new Error('no result');
    return { result, sessionId: engine.sessionId };
  }

  /** The chain holds each step once: 11 model answers, one result per tool call, no uuid twice. */
  async function expectChainOnce(sessionId: string, leaf: string): Promise<void> {
    const chain = await store.chain(sessionId, leaf);
    const uuids = chain.map((e) => e.uuid);
    expect(new Set(uuids).size).toBe(uuids.length);
    const assistants = chain.filter((e) => e.type === 'assistant');
    expect(assistants).toHaveLength(STEPS.length);
    const toolUseIds = assistants.flatMap((a) =>
      (a.message?.content as Array<{ type: string; id?: string }>)
        .filter((b) => b.type === 'tool_use')
        .map((b) => b.id),
    );
    const results = chain.flatMap((e: TranscriptEntry) =>
      Array.isArray(e.message?.content)
        ? (e.message.content as Array<{ type: string; tool_use_id?: string; is_error?: boolean }>).filter(
            (b) => b.type === 'tool_result',
          )
        : [],
    );
    expect(results.map((r) => r.tool_use_id)).toEqual(toolUseIds);
    expect(results.filter((r) => r.is_error)).toEqual([]);
    expect(await store.load(sessionId)).toHaveLength(chain.length);
  }

  /** One reference turn on one host, never interrupted: its final tree is what every run must end with. */
  let reference: Record<string, string> | null = null;
  async function referenceTree(remote: string): Promise<Record<string, string>> {
    if (reference) return reference;
    const taskQueue = `ws-ref-${randomUUID()}`;
    const h = newHost('ref');
    h.worker = await startWorkerProcess(hostEnv(h, taskQueue));
    const checkout = path.join(h.root, 'checkout');
    gitIn(h.root, 'clone', '-q', remote, checkout);
    const { result } = await runTurn(taskQueue, checkout, 'reference run');
    expect(result.subtype).toBe('success');
    await h.worker.stop();
    reference = treeOf(checkout);
    expect(Object.keys(reference)).toEqual([
      '.gitignore',
      'a.txt',
      'gen/nums.txt',
      'gen/run.sh',
      'notes.txt',
      'ran.txt',
      'src/a-copy.txt',
      'src/lib.js',
    ]);
    expect(reference['notes.txt']).toBe('- one\nTWO\n');
    expect(reference['gen/run.sh']).toBe('x #!/bin/sh\necho run\n');
    return reference;
  }

  async function movingRun(
    label: string,
    origin: (hostARoot: string) => string,
    opts: { remoteAwayDuringMove?: boolean } = {},
  ): Promise<void> {
    const remote = path.join(tmp('remote'), 'repo.git');
    const seed = tmp('seed');
    seedRepo(seed);
    gitIn(seed, 'init', '-q', '--bare', remote);
    gitIn(seed, 'push', '-q', remote, 'main');
    gitIn(remote, 'symbolic-ref', 'HEAD', 'refs/heads/main');
    const want = await referenceTree(remote);

    const taskQueue = `ws-move-${randomUUID()}`;
    const a = newHost('a');
    const b = newHost('b');
    a.worker = await startWorkerProcess(hostEnv(a, taskQueue));
    const cwd = origin(a.root);
    if (!fs.existsSync(cwd)) gitIn(a.root, 'clone', '-q', remote, cwd);
    const bStarted = startWorkerProcess(hostEnv(b, taskQueue)); // B joins while A works
    // What the turn says it does while its host is gone (the `status` and Web UI label), and what
    // the client says on stderr while the move waits for the remote.
    const labels = new Set<string>();
    const notices: string[] = [];
    let watching = true;
    let remoteBack: Promise<void> = Promise.resolve();
    onKillStep = async () => {
      b.worker = await bStarted;
      if (opts.remoteAwayDuringMove) fs.renameSync(remote, `${remote}.away`);
      await a.worker!.kill9();
      fs.rmSync(a.root, { recursive: true, force: true });
      // The remote comes back once the client has said that the move is being retried.
      if (opts.remoteAwayDuringMove) {
        remoteBack = (async () => {
          const deadline = Date.now() + 120_000;
          while (!notices.some((n) => /preparing the workspace .* is being retried/.test(n)) && Date.now() < deadline) {
            await new Promise((r) => setTimeout(r, 200));
          }
          fs.renameSync(`${remote}.away`, remote);
        })();
      }
      void (async () => {
        const q = `WorkflowType = 'turnWorkflow' AND ExecutionStatus = 'Running' AND TaskQueue = '${taskQueue}'`;
        while (watching) {
          for await (const w of client.workflow.list({ query: q })) {
            const p = await client.workflow
              .getHandle(w.workflowId)
              .query(turnProgressQuery)
              .catch(() => null);
            if (p?.activityLabel) labels.add(p.activityLabel);
          }
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
    };
    const dump = process.env['DEBUG_WS']
      ? setInterval(
          () => process.stderr.write(`[B stderr]\n${b.worker?.stderr().slice(-3000) ?? '(not started)'}\n`),
          25_000,
        )
      : null;
    const { result, sessionId } = await runTurn(taskQueue, cwd, `moving run (${label})`, (l) =>
      notices.push(l),
    ).finally(() => {
      if (dump) clearInterval(dump);
    });
    b.worker ??= await bStarted;
    watching = false;
    await remoteBack;

    if (process.env['DEBUG_WS']) {
      process.stderr.write(`[B final stderr]\n${b.worker.stderr()}\n`);
      for (const l of await store.load(sessionId)) {
        const tr = (l as Record<string, unknown>)['toolRun'];
        process.stderr.write(
          `[line] ${l.type} ${l.uuid} ${JSON.stringify(tr ?? null)} ${String(JSON.stringify(l.message?.content)).slice(0, 300)}\n`,
        );
      }
      process.stderr.write(`[result] ${JSON.stringify(result.workspace)}\n`);
    }
    expect(result.subtype).toBe('success');
    expect(onKillStep).toBeNull(); // host A was killed
    expect(fs.existsSync(a.root)).toBe(false);
    // The tree lives on B now, under B's own root; it is byte-identical to the reference run's.
    const ws = result.workspace!;
    expect(ws.moves).toBe(1);
    expect(ws.path.startsWith(b.root)).toBe(true);
    expect(treeOf(ws.path)).toEqual(want);
    expect(gitIn(ws.path, 'rev-parse', 'HEAD')).toBe(ws.base_commit);
    // `workspace export` rebuilds the same tree anywhere from the store.
    const exported = path.join(tmp('export'), 'tree');
    const ex = await runCli(['workspace', 'export', sessionId, '--to', exported], { env: hostEnv(b, taskQueue) });
    expect(ex.stderr).toBe('');
    expect(ex.code).toBe(0);
    expect(treeOf(exported)).toEqual(want);

    // `status` says where the workspace is: host, path, last snapshot.
    const st = await runCli(['status', sessionId], { env: hostEnv(b, taskQueue) });
    expect(st.code).toBe(0);
    expect(st.stdout).toContain(`workspace`);
    expect(st.stdout).toContain(`${ws.host}:${ws.path} (moved 1x)`);
    expect(st.stdout).toContain(ws.last_snapshot!.commit.slice(0, 12));

    await expectChainOnce(sessionId, await leafOf(sessionId));
    expect(repeatedCompletedCalls(fake.requests())).toEqual([]);
    // Files read on host A were checked where they are on B: no file the tree still has was
    // reported to the model as deleted (every reminder of the run is on a line of the session).
    const deletedNotes = (await store.load(sessionId)).flatMap((l) =>
      (
        ((l as Record<string, unknown>)['fileReminder'] as { files?: Array<{ path: string; state: unknown }> })
          ?.files ?? []
      )
        .filter((f) => f.state === null)
        .map((f) => f.path),
    );
    expect(deletedNotes).toEqual([]);
    if (opts.remoteAwayDuringMove) {
      // While the tree waited to move, the turn said so (not that host A's tool call was
      // running), and the client said why on stderr.
      expect([...labels].some((l) => /^move the workspace to a live worker \(the host of .+ is gone\)$/.test(l))).toBe(
        true,
      );
      const retry = notices.find((n) => /preparing the workspace/.test(n));
      expect(retry).toMatch(
        /^agent-runner: waiting: preparing the workspace .* is being retried \(attempt \d+ of 20.*\): cannot rebuild the workspace/,
      );
      expect(notices.at(-1)).toBe('agent-runner: the turn goes on');
    }
    await b.worker.stop();
  }

  async function leafOf(sessionId: string): Promise<string> {
    const lines = await store.load(sessionId);
    const parents = new Set(lines.map((l) => l.parentUuid));
    return lines.filter((l) => !parents.has(l.uuid)).at(-1)!.uuid;
  }

  test('workspace: host A dies after step 4; host B re-materializes from the remote and finishes the turn', async () => {
    await movingRun('remote', (rootA) => path.join(rootA, 'checkout'));
  });

  test('workspace: host B cannot reach the remote at first: the move is retried, the client says so, the turn says it moves, and it finishes once the remote is back', async () => {
    await movingRun('remote away', (rootA) => path.join(rootA, 'checkout'), { remoteAwayDuringMove: true });
  });

  test('workspace: the same with a repository that has no remote (the base travels as a bundle in the store)', async () => {
    await movingRun('bundle', (rootA) => {
      const dir = path.join(rootA, 'local-only');
      seedRepo(dir); // same files, own history, no remote
      return dir;
    });
  });
});
