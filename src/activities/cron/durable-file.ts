/**
 * `.claude/scheduled_tasks.json`, where Claude Code 2.1.328 writes `CronCreate` jobs with
 * `durable: true` (recording `cron-durable`: `{"tasks":[…]}`, 2-space JSON, a final newline; a
 * later `claude` in the project resumes them). The runner's session keeps every job either way;
 * the file is written so that the project holds what 2.1.328 would have written there.
 */
import { lstat, mkdir, realpath, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { MAX_CONFIG_JSON_BYTES, readConfigFile } from '../../config-files/safe-read';

/** The file, relative to the project. */
export const SCHEDULED_TASKS_FILE = join('.claude', 'scheduled_tasks.json');

/** One entry, in 2.1.328's field order. */
export interface ScheduledTaskEntry {
  id: string;
  cron: string;
  prompt: string;
  /** Epoch ms. */
  createdAt: number;
  /** Present (true) for recurring jobs only, as 2.1.328 writes it. */
  recurring?: true;
  createdBySessionId: string;
  createdByPid: number;
  /** The writing process's start time, ms since the epoch, as a decimal string. */
  createdByProcStart: string;
  createdInProject: string;
}

/**
 * The file of a project, when it may be read and written: neither it nor `.claude` is a symlink
 * (one would let a repository's content read or write a file outside it, whose text would then
 * reach the model and workflow history in an error). Stricter than the rule for reading project
 * config (src/config-files/safe-read.ts: a link inside the project is fine) because it is written.
 * @throws ApplicationFailure (non-retryable, type {@link MALFORMED_SCHEDULED_TASKS}) otherwise
 */
async function tasksFile(projectDir: string): Promise<string> {
  const file = join(projectDir, SCHEDULED_TASKS_FILE);
  for (const p of [dirname(file), file]) {
    const st = await lstat(p).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return null;
      throw e;
    });
    if (st?.isSymbolicLink()) throw malformed(file, `${p} is a symbolic link, which the runner does not follow`);
    if (st && p === file && !st.isFile()) throw malformed(file, 'it is not a regular file');
  }
  const root = await realpath(projectDir);
  const dir = await realpath(dirname(file)).catch(() => null);
  if (dir !== null && dir !== join(root, '.claude')) throw malformed(file, 'it is not inside the project');
  return file;
}

/** The file's jobs, read as every project config file is (src/config-files/safe-read.ts). */
function readTasks(file: string, projectDir: string): ScheduledTaskEntry[] {
  const read = readConfigFile(file, { roots: [projectDir], maxBytes: MAX_CONFIG_JSON_BYTES });
  if (read.status === 'refused') throw malformed(file, read.reason);
  const text = read.status === 'read' ? read.text : '';
  if (text.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not the parser's message: it quotes the file's text.
    throw malformed(file, 'it is not valid JSON');
  }
  const tasks = parsed !== null && typeof parsed === 'object' ? (parsed as { tasks?: unknown }).tasks : undefined;
  if (!Array.isArray(tasks)) throw malformed(file, 'it has no "tasks" array');
  return tasks as ScheduledTaskEntry[];
}

/** Failure type of a malformed {@link SCHEDULED_TASKS_FILE}. */
export const MALFORMED_SCHEDULED_TASKS = 'MalformedScheduledTasksFile';

/** A malformed file fails at once, naming it: reading it again would not fix it. */
function malformed(file: string, why: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(
    `${file}: ${why}; fix or remove the file (it was left as it is)`,
    MALFORMED_SCHEDULED_TASKS,
  );
}

async function writeTasks(file: string, tasks: ScheduledTaskEntry[]): Promise<void> {
  await mkdir(join(file, '..'), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify({ tasks }, null, 2)}\n`, { mode: 0o644 });
  await rename(tmp, file);
}

/**
 * Adds (or replaces, by id: a retried activity writes it once) a job in the project's file.
 * @throws ApplicationFailure (non-retryable, type {@link MALFORMED_SCHEDULED_TASKS}, naming the
 *   file) when the file exists but is not JSON of 2.1.328's shape (it is left as it is)
 */
export async function addScheduledTask(projectDir: string, entry: ScheduledTaskEntry): Promise<void> {
  const file = await tasksFile(projectDir);
  const tasks = readTasks(file, projectDir).filter((t) => t.id !== entry.id);
  await writeTasks(file, [...tasks, entry]);
}

/**
 * Removes a job from the project's file (nothing to do when it is not there).
 * @throws ApplicationFailure (non-retryable) for a malformed file, as {@link addScheduledTask}
 */
export async function removeScheduledTask(projectDir: string, id: string): Promise<void> {
  const file = await tasksFile(projectDir);
  const tasks = readTasks(file, projectDir);
  const left = tasks.filter((t) => t.id !== id);
  if (left.length !== tasks.length) await writeTasks(file, left);
}

/**
 * Why the project's file cannot take a job now (malformed, a symlink, outside the project), or
 * null when it can: checked before a durable job is created, so that a call that cannot write
 * the file creates no job and gets an error result.
 */
export async function scheduledTasksFileProblem(projectDir: string): Promise<string | null> {
  try {
    readTasks(await tasksFile(projectDir), projectDir);
    return null;
  } catch (e) {
    if (e instanceof ApplicationFailure && e.type === MALFORMED_SCHEDULED_TASKS) return e.message;
    throw e;
  }
}

/** This process's start time as 2.1.328 records it (`createdByProcStart`). */
export function processStart(): string {
  return String(Math.round(performance.timeOrigin));
}
