import { execFileSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gitStream } from '../../../../src/activities/workspace/git';

/** A repository holding one 4 MB incompressible blob; its id. */
function repoWithBlob(): { dir: string; blob: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'git-stream-'));
  execFileSync('git', ['init', '-q', dir]);
  fs.writeFileSync(path.join(dir, 'big.bin'), crypto.randomBytes(4 << 20));
  const blob = execFileSync('git', ['hash-object', '-w', 'big.bin'], { cwd: dir }).toString().trim();
  return { dir, blob };
}

describe('gitStream', () => {
  test('gitStream: a command killed while its output is unread settles (a reader that stopped never hangs the caller)', async () => {
    const { dir, blob } = repoWithBlob();
    const s = gitStream(['cat-file', 'blob', blob], { cwd: dir });
    // Read one chunk, then stop reading, as a store does once a pack is over its limit.
    await new Promise<void>((resolve) => s.stdout.once('data', () => resolve()));
    s.stdout.pause();
    await new Promise((r) => setTimeout(r, 200));
    s.kill();
    const settled = await Promise.race([
      s.done.then(
        () => 'resolved',
        () => 'rejected',
      ),
      new Promise((r) => setTimeout(() => r('hung'), 5000)),
    ]);
    expect(settled).not.toBe('hung');
  });

  test('gitStream: read to the end, it resolves with the whole output', async () => {
    const { dir, blob } = repoWithBlob();
    const s = gitStream(['cat-file', 'blob', blob], { cwd: dir });
    let bytes = 0;
    s.stdout.on('data', (d: Buffer) => (bytes += d.length));
    await s.done;
    expect(bytes).toBe(4 << 20);
  });
});
