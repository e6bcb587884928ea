import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { forkSession, ForkSourceMissingError } from '../../../src/client/fork-session';
import type { TranscriptEntry } from '../../../src/common/transcript';
import { JsonlTranscriptStore } from '../../../src/store';

let dataDir: string;
let store: JsonlTranscriptStore;
beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fork-session-'));
  store = new JsonlTranscriptStore(dataDir);
});
afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const line = (uuid: string, parentUuid: string | null, sessionId = 'old'): TranscriptEntry => ({
  type: 'user',
  uuid,
  parentUuid,
  sessionId,
  timestamp: '2026-01-01T00:00:00.000Z',
  message: { role: 'user', content: uuid },
});

describe('fork session', () => {
  test('forkSession: the new session starts with a copy of the old chain, blobs and run markers; the old one is unchanged', async () => {
    await store.appendMany([line('a', null), line('b', 'a'), line('c', 'b')]);
    await store.putContent('old', 'context/system-prompt/abc', 'Be brief.');
    await store.markToolRunStarted('old', 'toolu_1');
    const before = fs.readFileSync(path.join(dataDir, 'sessions', 'old.jsonl'), 'utf8');

    await expect(forkSession(store, 'old', 'new')).resolves.toBe(3);

    const copied = await store.chain('new', 'c');
    expect(copied.map((e) => [e.uuid, e.parentUuid, e.sessionId])).toEqual([
      ['a', null, 'new'],
      ['b', 'a', 'new'],
      ['c', 'b', 'new'],
    ]);
    expect((await store.getContent('new', 'context/system-prompt/abc'))?.toString()).toBe('Be brief.');
    await expect(store.markToolRunStarted('new', 'toolu_1')).resolves.toBe(true);
    expect(fs.readFileSync(path.join(dataDir, 'sessions', 'old.jsonl'), 'utf8')).toBe(before);
    // The fork goes its own way; the old session does not see it.
    await store.append(line('d', 'c', 'new'));
    expect(await store.get('old', 'd')).toBeUndefined();
  });

  test('forkSession: an unknown session is an error and creates nothing', async () => {
    await expect(forkSession(store, 'missing', 'new')).rejects.toBeInstanceOf(ForkSourceMissingError);
    await expect(store.exists('new')).resolves.toBe(false);
  });
});
