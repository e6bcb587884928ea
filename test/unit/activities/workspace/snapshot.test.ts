import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { snapshotKey } from '../../../../src/common/workspace';
import {
  SnapshotTooLargeError,
  materialize,
  recordOrigin,
  repoOf,
  storeSnapshot,
} from '../../../../src/activities/workspace/snapshot';
import { mapFormerPaths } from '../../../../src/activities/workspace/prepare';
import { JsonlTranscriptStore } from '../../../../src/store';

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' }).trim();

let dir: string;
let store: JsonlTranscriptStore;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'snap-'));
  store = new JsonlTranscriptStore(fs.mkdtempSync(path.join(os.tmpdir(), 'snap-store-')));
  fs.writeFileSync(path.join(dir, 'kept.txt'), 'kept\n');
  fs.writeFileSync(path.join(dir, 'gone.txt'), 'gone\n');
  fs.writeFileSync(path.join(dir, '.gitignore'), '*.log\n');
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
});

describe('workspace snapshots', () => {
  test('snapshot: records tracked and untracked files, honours .gitignore, and leaves index, HEAD and branches alone', async () => {
    const repo = (await repoOf(dir))!;
    git(dir, 'checkout', '-q', '-b', 'feature');
    fs.writeFileSync(path.join(dir, 'kept.txt'), 'changed\n');
    fs.rmSync(path.join(dir, 'gone.txt'));
    fs.writeFileSync(path.join(dir, 'new.txt'), 'new\n');
    fs.writeFileSync(path.join(dir, 'noise.log'), 'ignored\n');
    git(dir, 'add', 'new.txt'); // the user's own staging stays as it is
    const indexBefore = fs.readFileSync(path.join(dir, '.git', 'index'));
    const refsBefore = git(dir, 'for-each-ref');
    const statusBefore = git(dir, 'status', '--porcelain');

    const snap = await storeSnapshot({
      store,
      sessionId: 's',
      toolUseId: 'toolu_1',
      root: repo.root,
      base: repo.head,
      maxBytes: 1e6,
    });

    expect(fs.readFileSync(path.join(dir, '.git', 'index')).equals(indexBefore)).toBe(true);
    expect(git(dir, 'for-each-ref')).toBe(refsBefore);
    expect(git(dir, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('feature');
    expect(git(dir, 'status', '--porcelain')).toBe(statusBefore);
    expect(git(dir, 'ls-tree', '-r', '--name-only', snap.commit).split('\n')).toEqual([
      '.gitignore',
      'kept.txt',
      'new.txt',
    ]);
    expect(git(dir, 'show', `${snap.commit}:kept.txt`)).toBe('changed');
    expect(git(dir, 'rev-parse', `${snap.commit}^`)).toBe(repo.head);
    expect(snap.bytes).toBe((await store.contentInfo('s', snapshotKey('toolu_1')))!.size);
    expect(snap.bytes).toBeGreaterThan(0);

    // Rebuilt elsewhere from a bundle of the base plus the stored pack: the same files.
    const origin = await recordOrigin(store, 's', dir, repo);
    expect(origin.remoteUrl).toBeNull();
    const copy = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'snap-copy-')), 'tree');
    await materialize({ store, sessionId: 's', origin, snapshot: snap, dir: copy });
    expect(fs.readFileSync(path.join(copy, 'kept.txt'), 'utf8')).toBe('changed\n');
    expect(fs.existsSync(path.join(copy, 'gone.txt'))).toBe(false);
    expect(fs.existsSync(path.join(copy, 'noise.log'))).toBe(false);
    expect(git(copy, 'rev-parse', 'HEAD')).toBe(repo.head);
    const status = git(copy, 'status', '--porcelain').split('\n');
    expect(status.map((l) => l.trim()).sort()).toEqual(['?? new.txt', 'D gone.txt', 'M kept.txt']);
  });

  test('snapshot: a pack over the limit is refused with a clear error and nothing is stored', async () => {
    const repo = (await repoOf(dir))!;
    // Incompressible bytes: the pack cannot be smaller than they are.
    fs.writeFileSync(
      path.join(dir, 'big.bin'),
      Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 7919) % 251)),
    );
    fs.writeFileSync(path.join(dir, 'random.bin'), execFileSync('head', ['-c', '300000', '/dev/urandom']));
    const err = await storeSnapshot({
      store,
      sessionId: 's',
      toolUseId: 'toolu_big',
      root: repo.root,
      base: repo.head,
      maxBytes: 100_000,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SnapshotTooLargeError);
    expect((err as Error).message).toMatch(/larger than workspace\.maxSnapshotBytes \(100000 bytes.*intact/);
    await expect(store.contentInfo('s', snapshotKey('toolu_big'))).resolves.toBeUndefined();
  });

  test('snapshot: paths of a former host are mapped under the new root, in path fields and Bash commands', () => {
    expect(
      mapFormerPaths('Edit', { file_path: '/a/repo/x.txt', old_string: '/a/repo' }, ['/a/repo'], '/b/ws/s1'),
    ).toEqual({
      file_path: '/b/ws/s1/x.txt',
      old_string: '/a/repo',
    });
    expect(mapFormerPaths('Bash', { command: 'cat /a/repo/x && ls /a/repository' }, ['/a/repo'], '/b/r')).toEqual({
      command: 'cat /b/r/x && ls /a/repository',
    });
    expect(mapFormerPaths('Grep', { path: '/elsewhere' }, ['/a/repo'], '/b/r')).toEqual({ path: '/elsewhere' });
  });
});
