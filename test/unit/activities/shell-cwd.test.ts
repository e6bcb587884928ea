import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { persistedShellCwd, shellCwdOfChain } from '../../../src/activities/shell-cwd';
import type { TranscriptEntry } from '../../../src/common/transcript';
import { JsonlTranscriptStore } from '../../../src/store/jsonl-store';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'shell-cwd-test-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const line = (uuid: string, parentUuid: string | null, extra: Record<string, unknown> = {}): TranscriptEntry => ({
  v: 1,
  type: 'user',
  uuid,
  parentUuid,
  sessionId: 's',
  timestamp: '2026-01-01T00:00:00.000Z',
  message: { role: 'user', content: uuid },
  ...extra,
});
const bash = (uuid: string, parent: string, shellCwd: string): TranscriptEntry =>
  line(uuid, parent, { toolRun: { tool: 'Bash', outcome: 'ok', shellCwd } });

describe('shell working directory from the transcript', () => {
  test('shellCwdOfChain: the latest Bash result on the chain wins; other branches do not count', async () => {
    const store = new JsonlTranscriptStore(dir);
    await store.appendMany([
      line('p', null),
      bash('b1', 'p', 'sub'),
      line('r', 'b1', { toolRun: { tool: 'Read', outcome: 'ok' } }),
      bash('b2', 'r', 'sub/deeper'),
      bash('fork', 'r', 'other'),
    ]);
    expect(await shellCwdOfChain(store, 's', 'p')).toBeUndefined();
    expect(await shellCwdOfChain(store, 's', 'r')).toBe('sub');
    expect(await shellCwdOfChain(store, 's', 'b2')).toBe('sub/deeper');
    expect(await shellCwdOfChain(store, 's', 'fork')).toBe('other');
    expect(await persistedShellCwd(store, 's', 'b2', '/elsewhere/checkout')).toBe('/elsewhere/checkout/sub/deeper');
  });

  test('shellCwdOfChain: after a compaction the boundary carries the directory', async () => {
    const store = new JsonlTranscriptStore(dir);
    await store.appendMany([
      line('p', null),
      bash('b1', 'p', 'sub'),
      line('boundary', 'b1', { type: 'system', subtype: 'compact_boundary', message: undefined, shellCwd: 'sub' }),
      line('summary', 'boundary'),
    ]);
    expect(await shellCwdOfChain(store, 's', 'summary')).toBe('sub');
  });

  test('persistedShellCwd: a recorded path that would leave the working directory is ignored', async () => {
    const store = new JsonlTranscriptStore(dir);
    await store.appendMany([line('p', null), bash('b1', 'p', '../out'), bash('b2', 'b1', '')]);
    expect(await persistedShellCwd(store, 's', 'b1', '/w')).toBeUndefined();
    expect(await persistedShellCwd(store, 's', 'b2', '/w')).toBeUndefined();
  });
});
