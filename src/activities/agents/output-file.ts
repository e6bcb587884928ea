/**
 * A task's output file, where Claude Code 2.1.328 puts it
 * (`$CLAUDE_CODE_TMPDIR` or the temp directory, then `claude-<uid>/<project>/<session>/tasks/<id>.output`,
 * `<project>` being the working directory with every non-alphanumeric character replaced by `-`),
 * so that scripts that read it find it. For an agent the runner writes the run's sidechain
 * transcript there (JSON lines, as the store holds them) when the run ends, on the worker that
 * ends it; the store keeps the lines whatever happens to the file.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { TranscriptEntry } from '../../common/transcript';

/** The output file of task `taskId` of a session started in `cwd`. */
export function agentOutputFile(sessionId: string, cwd: string, taskId: string, env = process.env): string {
  const base = env['CLAUDE_CODE_TMPDIR'] || tmpdir();
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  const project = cwd.replace(/[^A-Za-z0-9]/g, '-');
  return join(base, `claude-${uid}`, project, sessionId, 'tasks', `${taskId}.output`);
}

/** Writes a run's lines to its output file (private to the user; a failure is the caller's to log). */
export async function writeOutputFile(path: string, lines: readonly TranscriptEntry[]): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, lines.map((l) => `${JSON.stringify(l)}\n`).join(''), { mode: 0o600 });
}
