import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { TranscriptEntry } from '../../../src/common/transcript';
import {
  InvalidTranscriptIdError,
  JsonlTranscriptStore,
  TranscriptChainError,
  TranscriptCycleError,
  transcriptPath,
} from '../../../src/store';

let dataDir: string;
let warnings: string[];
let store: JsonlTranscriptStore;

beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsonl-store-test-'));
  warnings = [];
  store = new JsonlTranscriptStore(dataDir, { onWarning: (m) => warnings.push(m) });
});
afterEach(() => {
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const SESSION = 'session-1';
let clock = 0;

function entry(uuid: string, parentUuid: string | null, extra: Partial<TranscriptEntry> = {}): TranscriptEntry {
  return {
    type: 'user',
    uuid,
    parentUuid,
    sessionId: SESSION,
    timestamp: new Date(Date.UTC(2026, 0, 1) + clock++ * 1000).toISOString(),
    message: { role: 'user', content: `message ${uuid}` },
    ...extra,
  };
}

function fileLines(sessionId = SESSION): string[] {
  return fs.readFileSync(transcriptPath(dataDir, sessionId), 'utf8').split('\n');
}

describe('JsonlTranscriptStore writes', () => {
  test('store: append writes one JSON line with v: 1 under sessions/<id>.jsonl', async () => {
    await expect(store.append(entry('a', null))).resolves.toMatchObject({ written: true, entry: { uuid: 'a' } });
    expect(transcriptPath(dataDir, SESSION)).toBe(path.join(dataDir, 'sessions', `${SESSION}.jsonl`));
    const lines = fileLines();
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe('');
    expect(JSON.parse(lines[0]!)).toMatchObject({ v: 1, uuid: 'a', parentUuid: null });
  });

  const written = (rs: Array<{ written: boolean }>): number => rs.filter((r) => r.written).length;

  test('store: upsert by uuid is idempotent', async () => {
    await expect(store.append(entry('a', null))).resolves.toMatchObject({ written: true });
    await expect(store.append(entry('a', null))).resolves.toMatchObject({ written: false });
    expect(written(await store.appendMany([entry('a', null), entry('b', 'a'), entry('b', 'a')]))).toBe(1);
    expect(written(await store.appendMany([entry('a', null), entry('b', 'a')]))).toBe(0);
    // A fresh instance (another process) sees the same lines and still skips them.
    const other = new JsonlTranscriptStore(dataDir);
    await expect(other.append(entry('b', 'a'))).resolves.toMatchObject({ written: false });
    expect(fileLines().filter(Boolean)).toHaveLength(2);
    expect((await store.load(SESSION)).map((e) => e.uuid)).toEqual(['a', 'b']);
  });

  test('store: appendMany writes several lines in order and returns one result per entry', async () => {
    await expect(store.appendMany([])).resolves.toEqual([]);
    const rs = await store.appendMany([entry('a', null), entry('b', 'a'), entry('c', 'b')]);
    expect(rs.map((r) => [r.entry.uuid, r.written])).toEqual([
      ['a', true],
      ['b', true],
      ['c', true],
    ]);
    expect((await store.load(SESSION)).map((e) => e.uuid)).toEqual(['a', 'b', 'c']);
  });

  test('store: appendMany rejects entries of two sessions', async () => {
    await expect(store.appendMany([entry('a', null), { ...entry('b', null), sessionId: 'other' }])).rejects.toThrow(
      /two sessions|sessions session-1 and other/,
    );
  });

  test('store: an entry failing the schema is rejected before anything is written', async () => {
    const bad = { ...entry('a', null), type: 'nonsense' } as unknown as TranscriptEntry;
    await expect(store.append(bad)).rejects.toThrow(/invalid transcript entry a/);
    expect(fs.existsSync(transcriptPath(dataDir, SESSION))).toBe(false);
  });

  test('store: concurrent appends from many promises keep every line intact', async () => {
    const big = 'x'.repeat(20_000);
    const n = 200;
    const results = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        store.append(
          entry(`u${i}`, i === 0 ? null : `u${i - 1}`, { message: { role: 'user', content: `${i}:${big}` } }),
        ),
      ),
    );
    expect(results.every((r) => r.written)).toBe(true);
    // The same uuids again, concurrently: nothing is duplicated.
    const again = await Promise.all(Array.from({ length: n }, (_, i) => store.append(entry(`u${i}`, null))));
    expect(again.every((r) => !r.written)).toBe(true);
    const lines = fileLines().filter(Boolean);
    expect(lines).toHaveLength(n);
    const uuids = lines.map((l) => (JSON.parse(l) as TranscriptEntry).uuid);
    expect(new Set(uuids).size).toBe(n);
    expect(warnings).toEqual([]);
    const fresh = new JsonlTranscriptStore(dataDir, { onWarning: (m) => warnings.push(m) });
    expect(await fresh.load(SESSION)).toHaveLength(n);
    expect(await fresh.chain(SESSION, `u${n - 1}`)).toHaveLength(n);
  });

  test('store: concurrent appends from two store instances (two processes) keep lines intact', async () => {
    const a = new JsonlTranscriptStore(dataDir, { onWarning: (m) => warnings.push(m) });
    const b = new JsonlTranscriptStore(dataDir, { onWarning: (m) => warnings.push(m) });
    const big = 'y'.repeat(10_000);
    await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        (i % 2 ? a : b).append(entry(`p${i}`, null, { message: { role: 'user', content: big } })),
      ),
    );
    const lines = fileLines().filter(Boolean);
    expect(lines).toHaveLength(100);
    for (const l of lines) expect(() => JSON.parse(l) as unknown).not.toThrow();
    expect(await a.load(SESSION)).toHaveLength(100);
    expect(await b.load(SESSION)).toHaveLength(100);
    // A write in progress elsewhere is not mistaken for a torn line.
    expect(warnings).toEqual([]);
  });

  test('store: first writer wins; every later writer of a uuid gets the stored line back', async () => {
    const first = entry('a', null, { message: { role: 'user', content: 'first' } });
    const second = entry('a', null, { message: { role: 'user', content: 'second' } });
    await expect(store.append(first)).resolves.toMatchObject({
      written: true,
      entry: { message: { content: 'first' } },
    });
    const later = await store.append(second);
    expect(later).toMatchObject({ written: false, entry: { message: { content: 'first' } } });
    // Another process (a stale cache) gets the same answer.
    const other = new JsonlTranscriptStore(dataDir);
    await expect(other.append(second)).resolves.toMatchObject({
      written: false,
      entry: { message: { content: 'first' } },
    });
    const [x, y] = await store.appendMany([entry('b', 'a'), { ...entry('b', 'a'), timestamp: 'other' }]);
    expect(x!.written).toBe(true);
    expect(y).toEqual({ written: false, entry: x!.entry });
  });

  test('store: racing writers of one uuid in two processes all return the line that is first in the file', async () => {
    const a = new JsonlTranscriptStore(dataDir);
    const b = new JsonlTranscriptStore(dataDir);
    for (let i = 0; i < 30; i++) {
      const uuid = `race${i}`;
      const results = await Promise.all([
        a.append(entry(uuid, null, { message: { role: 'user', content: `from a ${i}` } })),
        b.append(entry(uuid, null, { message: { role: 'user', content: `from b ${i}` } })),
      ]);
      const stored = await new JsonlTranscriptStore(dataDir).get(SESSION, uuid);
      expect(results.map((r) => r.entry.message?.content)).toEqual([
        stored?.message?.content,
        stored?.message?.content,
      ]);
      expect(results.filter((r) => r.written)).toHaveLength(1);
    }
  });

  test('store: sessions are independent files', async () => {
    await store.append(entry('a', null));
    await store.append({ ...entry('z', null), sessionId: 'session-2' });
    expect((await store.load(SESSION)).map((e) => e.uuid)).toEqual(['a']);
    expect((await store.load('session-2')).map((e) => e.uuid)).toEqual(['z']);
  });
});

describe('JsonlTranscriptStore reads', () => {
  test('store: an unknown session is empty', async () => {
    await expect(store.load('nobody')).resolves.toEqual([]);
    await expect(store.exists('nobody')).resolves.toBe(false);
    await expect(store.get('nobody', 'x')).resolves.toBeUndefined();
  });

  test('store: get and exists', async () => {
    await store.append(entry('a', null));
    await expect(store.exists(SESSION)).resolves.toBe(true);
    await expect(store.get(SESSION, 'a')).resolves.toMatchObject({ uuid: 'a', v: 1 });
    await expect(store.get(SESSION, 'nope')).resolves.toBeUndefined();
  });

  test('store: reading picks up lines appended by another store instance', async () => {
    const other = new JsonlTranscriptStore(dataDir);
    await store.append(entry('a', null));
    expect(await other.load(SESSION)).toHaveLength(1);
    await other.append(entry('b', 'a'));
    await store.append(entry('c', 'b')); // store must see b first (its cache is stale)
    expect((await store.load(SESSION)).map((e) => e.uuid)).toEqual(['a', 'b', 'c']);
    expect((await other.load(SESSION)).map((e) => e.uuid)).toEqual(['a', 'b', 'c']);
    expect((await other.chain(SESSION, 'c')).map((e) => e.uuid)).toEqual(['a', 'b', 'c']);
  });

  test('store: a file replaced or truncated by someone else is read again from the start', async () => {
    await store.appendMany([entry('a', null), entry('b', 'a')]);
    expect(await store.load(SESSION)).toHaveLength(2);
    const file = transcriptPath(dataDir, SESSION);
    // Replaced by a new file (new inode), then shrunk.
    fs.rmSync(file);
    fs.writeFileSync(file, `${JSON.stringify(entry('x', null))}\n${JSON.stringify(entry('y', 'x'))}\n`);
    expect((await store.load(SESSION)).map((e) => e.uuid)).toEqual(['x', 'y']);
    fs.truncateSync(file, fs.readFileSync(file, 'utf8').indexOf('\n') + 1);
    expect((await store.load(SESSION)).map((e) => e.uuid)).toEqual(['x']);
  });

  test('store: a torn last line is skipped with a warning and the next append starts a fresh line', async () => {
    await store.append(entry('a', null));
    const file = transcriptPath(dataDir, SESSION);
    const torn = JSON.stringify(entry('torn', 'a')).slice(0, 40);
    fs.appendFileSync(file, torn);

    const reader = new JsonlTranscriptStore(dataDir, { onWarning: (m) => warnings.push(m) });
    expect((await reader.load(SESSION)).map((e) => e.uuid)).toEqual(['a']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`${file}:2`);
    expect(warnings[0]).toMatch(/unterminated last line/);
    await reader.load(SESSION);
    expect(warnings).toHaveLength(1); // reported once

    await expect(reader.append(entry('b', 'a'))).resolves.toMatchObject({ written: true });
    const lines = fileLines();
    expect(lines).toEqual([expect.any(String), torn, expect.any(String), '']);
    expect(JSON.parse(lines[2]!)).toMatchObject({ uuid: 'b' });
    expect((await reader.load(SESSION)).map((e) => e.uuid)).toEqual(['a', 'b']);
    expect(warnings).toHaveLength(1); // the torn line, now terminated, is not reported again

    // A fresh reader reports the (now terminated) torn line as a bad line 2 and keeps the rest.
    const fresh: string[] = [];
    const again = new JsonlTranscriptStore(dataDir, { onWarning: (m) => fresh.push(m) });
    expect((await again.chain(SESSION, 'b')).map((e) => e.uuid)).toEqual(['a', 'b']);
    expect(fresh).toEqual([expect.stringContaining(`${file}:2: skipped a line that is not JSON`)]);
  });

  test('store: a corrupt line in the middle is skipped with a warning naming the file and line', async () => {
    const file = transcriptPath(dataDir, SESSION);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(
      file,
      [
        JSON.stringify(entry('a', null)),
        '{not json',
        JSON.stringify({ hello: 'not an entry' }),
        '',
        JSON.stringify(entry('b', 'a')),
        '',
      ].join('\n'),
    );
    const entries = await store.load(SESSION);
    expect(entries.map((e) => e.uuid)).toEqual(['a', 'b']);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain(`${file}:2: skipped a line that is not JSON`);
    expect(warnings[1]).toContain(`${file}:3: skipped a line that is not a transcript entry`);
  });

  test('store: lines with unknown fields are kept as they are', async () => {
    await store.append({ ...entry('a', null), cwd: '/work', extra: { nested: true } } as TranscriptEntry);
    const other = new JsonlTranscriptStore(dataDir);
    await expect(other.get(SESSION, 'a')).resolves.toMatchObject({ cwd: '/work', extra: { nested: true } });
  });
});

describe('JsonlTranscriptStore chain', () => {
  test('store: chain follows parentUuid oldest first, not file order', async () => {
    await store.appendMany([entry('a', null), entry('side', 'a'), entry('b', 'a'), entry('c', 'b')]);
    expect((await store.chain(SESSION, 'c')).map((e) => e.uuid)).toEqual(['a', 'b', 'c']);
    expect((await store.chain(SESSION, 'side')).map((e) => e.uuid)).toEqual(['a', 'side']);
    expect((await store.chain(SESSION, 'a')).map((e) => e.uuid)).toEqual(['a']);
  });

  test('store: chain stops at the most recent compact boundary, which is excluded', async () => {
    const boundary = (uuid: string, parent: string): TranscriptEntry => ({
      ...entry(uuid, parent),
      type: 'system',
      subtype: 'compact_boundary',
      compactMetadata: { trigger: 'auto', pre_tokens: 150_000 },
    });
    delete (boundary as unknown as { message?: unknown }).message;
    await store.appendMany([
      entry('a', null),
      entry('b', 'a'),
      boundary('cb1', 'b'),
      entry('summary1', 'cb1'),
      entry('c', 'summary1'),
      boundary('cb2', 'c'),
      entry('summary2', 'cb2'),
      entry('d', 'summary2'),
    ]);
    expect((await store.chain(SESSION, 'd')).map((e) => e.uuid)).toEqual(['summary2', 'd']);
    expect((await store.chain(SESSION, 'c')).map((e) => e.uuid)).toEqual(['summary1', 'c']);
    expect(await store.chain(SESSION, 'cb2')).toEqual([]);
    // A system line of another subtype is part of the chain.
    await store.append({ ...entry('note', 'd'), type: 'system', subtype: 'informational' });
    expect((await store.chain(SESSION, 'note')).map((e) => e.uuid)).toEqual(['summary2', 'd', 'note']);
  });

  test('store: a missing parent throws TranscriptChainError', async () => {
    await store.appendMany([entry('b', 'gone'), entry('c', 'b')]);
    const err = await store.chain(SESSION, 'c').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TranscriptChainError);
    expect(err).toMatchObject({ sessionId: SESSION, missingUuid: 'gone' });
    await expect(store.chain(SESSION, 'nope')).rejects.toBeInstanceOf(TranscriptChainError);
    await expect(store.chain('unknown-session', 'x')).rejects.toBeInstanceOf(TranscriptChainError);
  });

  test('store: a parentUuid cycle throws instead of looping', async () => {
    await store.appendMany([entry('a', 'c'), entry('b', 'a'), entry('c', 'b')]);
    await expect(store.chain(SESSION, 'c')).rejects.toBeInstanceOf(TranscriptCycleError);
  });
});

describe('JsonlTranscriptStore sessions and markers', () => {
  test('store: listSessions is newest first with cwd from the first line', async () => {
    await store.append({ ...entry('a', null), sessionId: 'old', cwd: '/repo/old' } as TranscriptEntry);
    await store.append({ ...entry('b', null), sessionId: 'new' });
    const t = Date.now() / 1000;
    fs.utimesSync(transcriptPath(dataDir, 'old'), t - 100, t - 100);
    fs.utimesSync(transcriptPath(dataDir, 'new'), t, t);
    await store.markToolRunStarted('new', 'toolu_1'); // the .runs directory is not a session
    const list = await store.listSessions();
    expect(list.map((s) => s.sessionId)).toEqual(['new', 'old']);
    expect(list[1]).toEqual({ sessionId: 'old', modifiedMs: expect.any(Number), cwd: '/repo/old' });
    expect(list[0]).not.toHaveProperty('cwd');
    expect(list[0]!.modifiedMs).toBeGreaterThan(list[1]!.modifiedMs);
  });

  test('store: listSessions of a fresh data dir is empty', async () => {
    await expect(store.listSessions()).resolves.toEqual([]);
  });

  test('store: run markers report a previous start', async () => {
    await expect(store.markToolRunStarted(SESSION, 'toolu_1')).resolves.toBe(false);
    await expect(store.markToolRunStarted(SESSION, 'toolu_1')).resolves.toBe(true);
    await expect(new JsonlTranscriptStore(dataDir).markToolRunStarted(SESSION, 'toolu_1')).resolves.toBe(true);
    await expect(store.markToolRunStarted(SESSION, 'toolu_2')).resolves.toBe(false);
    const marker = path.join(dataDir, 'sessions', `${SESSION}.runs`, 'toolu_1');
    expect(JSON.parse(fs.readFileSync(marker, 'utf8'))).toMatchObject({ pid: process.pid });
    // Concurrent first starts: exactly one sees false.
    const results = await Promise.all(Array.from({ length: 10 }, () => store.markToolRunStarted(SESSION, 'toolu_3')));
    expect(results.filter((r) => !r)).toHaveLength(1);
  });

  test('store: model-attempt usage records are kept per call, attempt and phase', async () => {
    const usage = (n: number) => ({
      input_tokens: n,
      output_tokens: 1,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    });
    const rec = (callUuid: string, attempt: number, phase: 'start' | 'end', n: number) => ({
      callUuid,
      attempt,
      phase,
      requestId: null,
      messageId: `msg_${attempt}`,
      model: 'm',
      usage: usage(n),
    });
    await expect(store.modelAttemptUsage(SESSION, 'c1')).resolves.toEqual([]);
    await store.putModelAttemptUsage(SESSION, rec('c1', 2, 'end', 5));
    await store.putModelAttemptUsage(SESSION, rec('c1', 1, 'start', 10));
    await store.putModelAttemptUsage(SESSION, rec('c1', 2, 'start', 10));
    await store.putModelAttemptUsage(SESSION, rec('c2', 1, 'start', 7));
    await store.putModelAttemptUsage(SESSION, rec('c1', 2, 'end', 6)); // replaces
    const c1 = await new JsonlTranscriptStore(dataDir).modelAttemptUsage(SESSION, 'c1');
    expect(c1.map((r) => [r.attempt, r.phase, r.usage.input_tokens])).toEqual([
      [1, 'start', 10],
      [2, 'start', 10],
      [2, 'end', 6],
    ]);
    expect((await store.modelAttemptUsage(SESSION)).map((r) => r.callUuid)).toEqual(['c1', 'c1', 'c1', 'c2']);
    // A record that is not valid is skipped with a warning; the directory holds no temporary files.
    const dir = path.join(dataDir, 'sessions', `${SESSION}.attempts`, 'c2');
    fs.writeFileSync(path.join(dir, '3-start.json'), '{"callUuid": "c2"');
    expect(await store.modelAttemptUsage(SESSION, 'c2')).toHaveLength(1);
    expect(warnings.join('\n')).toMatch(/3-start.json: skipped/);
    expect(fs.readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    await expect(store.putModelAttemptUsage(SESSION, rec('../x', 1, 'start', 1))).rejects.toThrow(
      InvalidTranscriptIdError,
    );
  });

  test('store: model-attempt usage read again lists new and removed records, and a record this store replaced', async () => {
    const rec = (attempt: number, phase: 'start' | 'end', n: number) => ({
      callUuid: 'c1',
      attempt,
      phase,
      requestId: null,
      messageId: `msg_${attempt}`,
      model: 'm',
      usage: { input_tokens: n, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
    const listed = async (): Promise<string[]> =>
      (await store.modelAttemptUsage(SESSION, 'c1')).map((r) => `${r.attempt}-${r.phase}:${r.usage.input_tokens}`);
    await store.putModelAttemptUsage(SESSION, rec(1, 'start', 10));
    expect(await listed()).toEqual(['1-start:10']);
    // Another process's record appears; a replaced one is read anew.
    await new JsonlTranscriptStore(dataDir).putModelAttemptUsage(SESSION, rec(2, 'start', 20));
    await store.putModelAttemptUsage(SESSION, rec(1, 'start', 11));
    expect(await listed()).toEqual(['1-start:11', '2-start:20']);
    fs.rmSync(path.join(dataDir, 'sessions', `${SESSION}.attempts`, 'c1', '1-start.json'));
    expect(await listed()).toEqual(['2-start:20']);
  });

  test('store: session and tool-use ids that could escape the directory are rejected', async () => {
    for (const bad of ['../evil', 'a/b', 'a\\b', '..', '', 'x\0y']) {
      expect(() => transcriptPath(dataDir, bad)).toThrow(InvalidTranscriptIdError);
      await expect(store.load(bad)).rejects.toBeInstanceOf(InvalidTranscriptIdError);
      await expect(store.append({ ...entry('a', null), sessionId: bad })).rejects.toThrow();
    }
    await expect(store.markToolRunStarted(SESSION, '../x')).rejects.toBeInstanceOf(InvalidTranscriptIdError);
    expect(fs.existsSync(path.join(dataDir, 'evil.jsonl'))).toBe(false);
  });
});
