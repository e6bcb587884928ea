import { readFileSync } from 'node:fs';

/**
 * True while process `pid` runs: a zombie (`Z`) or dead (`X`) process counts as gone, as one
 * left for an init that does not reap does. Reads `/proc/<pid>/stat` ("pid (comm) state …"; the
 * comm may hold spaces or parentheses), so Linux only.
 */
export function isProcessAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2).charAt(0);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Polls `cond` every 100 ms until it holds or `ms` have passed; resolves with its last value. */
export async function waitUntil(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return cond();
}
