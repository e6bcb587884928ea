import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { TranscriptEntry } from '../../src/common/transcript';
import { JsonlTranscriptStore } from '../../src/store';
import { SCHEMA_VERSION } from '../../src/store/postgres/migrations';
import { PostgresTranscriptStore } from '../../src/store/postgres/postgres-store';
import { runCli } from '../helpers/cli';
import { freshSchemaUrl, postgresAdminUrl, sql } from '../helpers/postgres';
import { makeRepo, startRunnerEnv, type RunnerEnv } from '../helpers/runner-env';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';

const schemas: string[] = [];
function fresh(): string {
  const f = freshSchemaUrl('cli');
  schemas.push(f.schema);
  return f.url;
}
afterAll(async () => {
  for (const s of schemas) await sql(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
});

function line(sessionId: string, uuid: string, parentUuid: string | null): TranscriptEntry {
  return {
    type: 'user',
    uuid,
    parentUuid,
    sessionId,
    timestamp: new Date().toISOString(),
    message: { role: 'user', content: `line ${uuid}` },
  };
}

describe('agent-runner store', () => {
  test('store migrate: applies the schema and reports its version; again is a no-op', async () => {
    const url = fresh();
    for (let i = 0; i < 2; i++) {
      const r = await runCli(['store', 'migrate', '--url', url]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`schema version ${SCHEMA_VERSION}`);
      expect(r.stdout).toContain('postgres://postgres:***@');
    }
  });

  test('store migrate: an unreachable database exits 2 with the URL, password masked', async () => {
    const r = await runCli(['store', 'migrate'], {
      env: { ...process.env, AGENT_RUNNER_STORE_URL: 'postgres://agent:hunter2@127.0.0.1:1/runs' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'cannot connect to the PostgreSQL transcript store at postgres://agent:***@127.0.0.1:1/runs',
    );
    expect(r.stderr).not.toContain('hunter2');
  });

  test('store migrate: a schema newer than the code exits 2 and changes nothing', async () => {
    const url = fresh();
    expect((await runCli(['store', 'migrate', '--url', url])).code).toBe(0);
    const schema = new URL(url).searchParams.get('schema');
    await sql(`INSERT INTO ${schema}.schema_migrations (version, name) VALUES (${SCHEMA_VERSION + 5}, 'future')`);
    const r = await runCli(['store', 'migrate', '--url', url]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/schema version \d+, newer than this agent-runner knows/);
    expect(await sql(`SELECT version FROM ${schema}.schema_migrations`)).toHaveLength(SCHEMA_VERSION + 1);
  });

  test('store: a bad store URL in the environment is a config error (exit 2) naming the variable', async () => {
    const r = await runCli(['store', 'migrate'], { env: { ...process.env, AGENT_RUNNER_STORE_URL: 'mysql://x' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/store\.url \(from env AGENT_RUNNER_STORE_URL\): expected a postgres:\/\/ URL/);
  });

  test('store copy: JSONL → PostgreSQL → JSONL keeps lines, markers and blobs; a re-run copies nothing', async () => {
    const src = fs.mkdtempSync(path.join(os.tmpdir(), 'copy-src-'));
    const back = fs.mkdtempSync(path.join(os.tmpdir(), 'copy-back-'));
    const jsonl = new JsonlTranscriptStore(src);
    const blob = Buffer.alloc(3 * 1024 * 1024 + 5, 9);
    for (const sid of ['s-a', 's-b']) {
      await jsonl.appendMany(
        Array.from({ length: 700 }, (_, i) => line(sid, `${sid}-${i}`, i ? `${sid}-${i - 1}` : null)),
      );
      await jsonl.markToolRunStarted(sid, 'toolu_1');
      await jsonl.putContent(sid, 'snapshot/toolu_1', blob);
    }
    const url = fresh();
    const first = await runCli(['store', 'copy', '--from', `jsonl:${src}`, '--to', url]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('copied 2 sessions');
    expect(first.stdout).toContain('1400 lines (0 already there), 2 run markers, 2 blobs');
    const again = await runCli(['store', 'copy', '--from', `jsonl:${src}`, '--to', url]);
    expect(again.stdout).toContain('0 lines (1400 already there), 0 run markers, 0 blobs of 0 bytes (2 already there)');

    const pg = await PostgresTranscriptStore.open(url);
    try {
      expect(await pg.load('s-a')).toEqual(await jsonl.load('s-a'));
      expect((await pg.getContent('s-b', 'snapshot/toolu_1'))!.equals(blob)).toBe(true);
      await expect(pg.markToolRunStarted('s-b', 'toolu_1')).resolves.toBe(true);
    } finally {
      await pg.close();
    }
    const r = await runCli(['store', 'copy', '--from', url, '--to', `jsonl:${back}`, '--session', 's-b']);
    expect(r.code).toBe(0);
    const copy = new JsonlTranscriptStore(back);
    expect(await copy.load('s-b')).toEqual(await jsonl.load('s-b'));
    expect(await copy.exists('s-a')).toBe(false);
    expect(await copy.listToolRuns('s-b')).toEqual(['toolu_1']);
    expect(await copy.contentInfo('s-b', 'snapshot/toolu_1')).toMatchObject({ size: blob.length });

    const unknown = await runCli(['store', 'copy', '--from', url, '--to', `jsonl:${back}`, '--session', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('session nope is not in the source store');
  });
});

describe('a run on the PostgreSQL store', () => {
  let env: RunnerEnv | undefined;
  let worker: WorkerProcess | undefined;
  afterEach(async () => {
    await worker?.stop();
    await env?.close();
  });

  test('store: a worker migrates at start; -p and --resume read and write the shared store, not files', async () => {
    env = await startRunnerEnv({
      worker: false,
      scenario: {
        steps: [{ content: [{ text: 'first' }] }, { expect: { messagesCount: 4 }, content: [{ text: 'second' }] }],
      },
    });
    const url = fresh();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-run-'));
    const cliEnv = {
      ...env.workerEnv,
      AGENT_RUNNER_STORE_URL: url,
      AGENT_RUNNER_DATA_DIR: dataDir,
      TEMPORAL_ADDRESS: process.env['TEST_TEMPORAL_ADDRESS'],
    };
    // Before any worker ran, a client is told to migrate.
    const early = await runCli(['-p', 'x', '--cwd', makeRepo({})], { env: cliEnv });
    expect(early.code).toBe(2);
    expect(early.stderr).toContain('agent-runner store migrate');

    worker = await startWorkerProcess({ ...cliEnv });
    const repo = makeRepo({});
    const one = await runCli(['-p', 'one', '--output-format', 'json', '--cwd', repo], { env: cliEnv });
    expect(one.code).toBe(0);
    const first = JSON.parse(one.stdout) as { session_id: string; result: string };
    expect(first.result).toBe('first');
    const two = await runCli(['-p', 'two', '--resume', first.session_id, '--output-format', 'json', '--cwd', repo], {
      env: cliEnv,
    });
    expect(JSON.parse(two.stdout)).toMatchObject({ subtype: 'success', result: 'second' });

    const schema = new URL(url).searchParams.get('schema');
    const rows = await sql<{ n: string }>(`SELECT count(*) AS n FROM ${schema}.entries WHERE session_id = $1`, [
      first.session_id,
    ]);
    expect(Number(rows[0]!.n)).toBe(5); // the session context, two prompts, two answers
    expect(fs.existsSync(path.join(dataDir, 'sessions'))).toBe(false);
    expect(postgresAdminUrl()).toBeTruthy();
  });

  test('store: --include-partial-messages streams the same stream_event messages on PostgreSQL as on JSONL', async () => {
    env = await startRunnerEnv({
      worker: false,
      scenario: {
        steps: [
          {
            chunk_delay_ms: 5,
            content: [
              { text: 'Let me look at the file first.' },
              { tool_use: { name: 'Read', input: { file_path: '{{cwd}}/a.txt' } } },
            ],
          },
          { chunk_delay_ms: 5, content: [{ text: 'It starts with one.' }] },
        ],
      },
    });
    const args = ['-p', 'read a.txt', '--output-format', 'stream-json', '--verbose', '--include-partial-messages'];
    const base = {
      ...env.workerEnv,
      TEMPORAL_ADDRESS: process.env['TEST_TEMPORAL_ADDRESS'],
    };
    /** The messages of one run as `type/subtype` or `stream_event/<event type>[/<delta type>]`, and the streamed text. */
    const run = async (cliEnv: NodeJS.ProcessEnv): Promise<{ labels: string[]; text: string }> => {
      worker = await startWorkerProcess(cliEnv);
      try {
        const r = await runCli([...args, '--cwd', makeRepo({ 'a.txt': 'one\ntwo\n' })], { env: cliEnv });
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
        const msgs = r.stdout
          .trim()
          .split('\n')
          .map(
            (l) =>
              JSON.parse(l) as {
                type: string;
                subtype?: string;
                event?: { type: string; delta?: { type: string; text?: string } };
              },
          );
        return {
          labels: msgs.map((m) =>
            m.type === 'stream_event'
              ? ['stream_event', m.event?.type, m.event?.delta?.type].filter(Boolean).join('/')
              : `${m.type}/${m.subtype ?? ''}`,
          ),
          text: msgs.map((m) => (m.event?.delta?.type === 'text_delta' ? (m.event.delta.text ?? '') : '')).join(''),
        };
      } finally {
        await worker.stop();
        worker = undefined;
      }
    };
    const jsonl = await run(base);
    const url = fresh();
    const pgDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-run-'));
    const pg = await run({ ...base, AGENT_RUNNER_STORE_URL: url, AGENT_RUNNER_DATA_DIR: pgDataDir });
    expect(jsonl.labels.filter((l) => l.startsWith('stream_event/message_start'))).toHaveLength(2);
    expect(jsonl.text).toBe('Let me look at the file first.It starts with one.');
    expect(pg.labels).toEqual(jsonl.labels);
    expect(pg.text).toBe(jsonl.text);
    // The events went through the database, not through files.
    const schema = new URL(url).searchParams.get('schema');
    const rows = await sql<{ n: string }>(`SELECT count(*) AS n FROM ${schema}.stream_events WHERE done`);
    expect(Number(rows[0]!.n)).toBe(2);
    expect(fs.existsSync(path.join(pgDataDir, 'stream-events'))).toBe(false);
    expect(fs.existsSync(path.join(env.dataDir, 'stream-events'))).toBe(true);
  });
});
