import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataDirError, ensurePrivateDataDir, resetPrivateDataDirChecks } from '../../../src/store/data-dir';
import { JsonlTranscriptStore } from '../../../src/store/jsonl-store';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'data-dir-'));
  resetPrivateDataDirChecks();
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const mode = (p: string): number => statSync(p).mode & 0o7777;
const NOBODY = 65534;

describe('the data directory is private', () => {
  test('ensurePrivateDataDir: a missing data directory is created 0700', () => {
    const dir = join(root, 'a', 'data');
    expect(ensurePrivateDataDir(dir)).toEqual({ repairedEntries: 0 });
    expect(mode(dir)).toBe(0o700);
  });

  test('ensurePrivateDataDir: an existing 0755 directory is repaired: 0700, and everything in it loses group and other access', () => {
    const dir = join(root, 'data');
    mkdirSync(join(dir, 'sessions'), { recursive: true });
    chmodSync(dir, 0o755);
    chmodSync(join(dir, 'sessions'), 0o755);
    writeFileSync(join(dir, 'sessions', 's.jsonl'), '{}\n', { mode: 0o644 });
    chmodSync(join(dir, 'sessions', 's.jsonl'), 0o644);
    writeFileSync(join(dir, 'tool'), '#!/bin/sh\n');
    chmodSync(join(dir, 'tool'), 0o755);
    symlinkSync('/etc/hostname', join(dir, 'link'));
    const r = ensurePrivateDataDir(dir);
    expect(r).toEqual({ repairedFrom: '0755', repairedEntries: 3 });
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, 'sessions'))).toBe(0o700);
    expect(mode(join(dir, 'sessions', 's.jsonl'))).toBe(0o600);
    expect(mode(join(dir, 'tool'))).toBe(0o700); // the owner's execute bit stays
    expect(mode('/etc/hostname') & 0o044).not.toBe(0); // a link is not followed
  });

  test('ensurePrivateDataDir: a directory that cannot be created is a DataDirError in words, for every caller', () => {
    const parent = mkdtempSync(join(tmpdir(), 'dar-dd-'));
    writeFileSync(join(parent, 'file'), '');
    const bad = join(parent, 'file', 'data');
    let thrown: unknown;
    try {
      ensurePrivateDataDir(bad);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(DataDirError);
    expect((thrown as Error).message).toContain(
      `the data directory ${bad} is not writable (a path component is a file`,
    );
    expect((thrown as Error).message).not.toContain('ENOTDIR');
    rmSync(parent, { recursive: true, force: true });
  });

  test('ensurePrivateDataDir: a file in the way is refused with a clear error', () => {
    const file = join(root, 'data');
    writeFileSync(file, '');
    expect(() => ensurePrivateDataDir(file)).toThrow(DataDirError);
  });

  const asRoot = process.getuid?.() === 0 ? test : test.skip;
  asRoot(
    "ensurePrivateDataDir: another user's data directory is refused (its transcripts would not be private)",
    () => {
      const dir = join(root, 'data');
      mkdirSync(dir, { mode: 0o700 });
      chownSync(dir, NOBODY, NOBODY);
      expect(() => ensurePrivateDataDir(dir)).toThrow(
        new DataDirError(
          `the data directory ${dir} belongs to uid ${NOBODY}, not to this user (uid 0): its transcripts would not be private. ` +
            'Set AGENT_RUNNER_DATA_DIR (or dataDir in temporal.yaml) to a directory of your own.',
        ),
      );
    },
  );
  asRoot('ensurePrivateDataDir: a file of another user planted in an open data directory is refused', () => {
    const dir = join(root, 'data');
    mkdirSync(dir, { mode: 0o777 });
    chmodSync(dir, 0o777);
    writeFileSync(join(dir, 'server.json'), '{}');
    chownSync(join(dir, 'server.json'), NOBODY, NOBODY);
    expect(() => ensurePrivateDataDir(dir)).toThrow(/server.json in it belongs to uid 65534, not to this user/);
  });

  test('JsonlTranscriptStore: transcripts, content blobs and run markers are owner-only in a repaired data directory', async () => {
    const dir = join(root, 'data');
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    const store = new JsonlTranscriptStore(dir);
    try {
      await store.append({
        v: 1,
        type: 'user',
        uuid: '00000000-0000-4000-8000-000000000001',
        parentUuid: null,
        sessionId: 'sess',
        timestamp: new Date().toISOString(),
        message: { role: 'user', content: 'secret prompt' },
      } as never);
      await store.putContent('sess', 'blob', Buffer.from('secret blob'));
      await store.markToolRunStarted('sess', 'toolu_1');
    } finally {
      await store.close();
    }
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, 'sessions'))).toBe(0o700);
    expect(mode(join(dir, 'sessions', 'sess.jsonl'))).toBe(0o600);
    expect(mode(join(dir, 'sessions', 'sess.runs', 'toolu_1'))).toBe(0o600);
  });
});
