import { spawn } from 'node:child_process';
import { isPidAlive } from '../../../src/host/server-state';
import { readFileSync } from 'node:fs';
import { waitUntil } from '../../helpers/processes';

/**
 * A zombie: `sh` backgrounds a short `sleep`, then execs a long one, which never reaps it. The
 * child outlives the exec, so `sh` cannot reap it first (as it could a `true` that exits at once).
 */
async function zombiePid(): Promise<{ pid: number; stop: () => void }> {
  const sh = spawn('sh', ['-c', 'sleep 0.3 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const pid = await new Promise<number>((resolve) =>
    sh.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))),
  );
  return { pid, stop: () => sh.kill('SIGKILL') };
}

describe('isPidAlive', () => {
  test('isPidAlive: a running process is alive, an unused pid is not', () => {
    expect(isPidAlive(process.pid)).toBe(true);
    expect(isPidAlive(2 ** 22 + 7)).toBe(false);
  });

  test('isPidAlive: a zombie (exited, not reaped) is dead, though kill(pid, 0) still succeeds on it', async () => {
    const z = await zombiePid();
    try {
      const zombie = await waitUntil(() => /\) Z /.test(readFileSync(`/proc/${z.pid}/stat`, 'utf8')), 5_000);
      expect(zombie).toBe(true);
      expect(() => process.kill(z.pid, 0)).not.toThrow();
      expect(isPidAlive(z.pid)).toBe(false);
    } finally {
      z.stop();
    }
  });
});
