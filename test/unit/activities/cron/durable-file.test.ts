import { existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import {
  MALFORMED_SCHEDULED_TASKS,
  SCHEDULED_TASKS_FILE,
  addScheduledTask,
  processStart,
  removeScheduledTask,
  scheduledTasksFileProblem,
} from '../../../../src/activities/cron/durable-file';
import type { ScheduledTaskEntry } from '../../../../src/activities/cron/durable-file';

const entry = (id: string, recurring: boolean): ScheduledTaskEntry => ({
  id,
  cron: '7 9 * * 1-5',
  prompt: 'Morning check.',
  createdAt: 1_764_000_000_000,
  ...(recurring ? { recurring: true as const } : {}),
  createdBySessionId: 's-1',
  createdByPid: 42,
  createdByProcStart: '1764000000000',
  createdInProject: '/repo',
});

describe('.claude/scheduled_tasks.json as 2.1.328 writes it (CronCreate durable: true)', () => {
  test('addScheduledTask: {"tasks":[…]} in 2-space JSON with a final newline, 2.1.328\'s field order; the same id again replaces its entry', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cron-file-'));
    await addScheduledTask(dir, entry('aaaa1111', true));
    await addScheduledTask(dir, entry('bbbb2222', false));
    await addScheduledTask(dir, entry('aaaa1111', true));
    const text = readFileSync(join(dir, SCHEDULED_TASKS_FILE), 'utf8');
    expect(text.endsWith('}\n')).toBe(true);
    expect(text).toBe(`${JSON.stringify({ tasks: [entry('bbbb2222', false), entry('aaaa1111', true)] }, null, 2)}\n`);
    expect(Object.keys((JSON.parse(text) as { tasks: object[] }).tasks[1]!)).toEqual([
      'id',
      'cron',
      'prompt',
      'createdAt',
      'recurring',
      'createdBySessionId',
      'createdByPid',
      'createdByProcStart',
      'createdInProject',
    ]);
  });

  test('removeScheduledTask: the entry leaves the file; an unknown id or no file changes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cron-file-'));
    await removeScheduledTask(dir, 'nope');
    await addScheduledTask(dir, entry('aaaa1111', true));
    await removeScheduledTask(dir, 'nope');
    await removeScheduledTask(dir, 'aaaa1111');
    expect(JSON.parse(readFileSync(join(dir, SCHEDULED_TASKS_FILE), 'utf8'))).toEqual({ tasks: [] });
  });

  test("addScheduledTask: a file that is not 2.1.328's shape is refused and left as it is", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cron-file-'));
    mkdirSync(join(dir, '.claude'));
    writeFileSync(join(dir, SCHEDULED_TASKS_FILE), '{"jobs": 3}');
    await expect(addScheduledTask(dir, entry('aaaa1111', true))).rejects.toThrow(/no "tasks" array/);
    // Not JSON at all: a non-retryable failure naming the file, for add and remove alike.
    const file = join(dir, SCHEDULED_TASKS_FILE);
    writeFileSync(file, '{"tasks": [');
    for (const op of [addScheduledTask(dir, entry('aaaa1111', true)), removeScheduledTask(dir, 'aaaa1111')]) {
      const err = await op.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ApplicationFailure);
      expect(err).toMatchObject({ nonRetryable: true, type: MALFORMED_SCHEDULED_TASKS });
      expect((err as Error).message).toContain(`${file}: it is not valid JSON`);
    }
    expect(readFileSync(file, 'utf8')).toBe('{"tasks": [');
    writeFileSync(file, 'null');
    await expect(addScheduledTask(dir, entry('aaaa1111', true))).rejects.toMatchObject({ nonRetryable: true });
    writeFileSync(file, '{"jobs": 3}');
    expect(readFileSync(join(dir, SCHEDULED_TASKS_FILE), 'utf8')).toBe('{"jobs": 3}');
  });

  test('the file is never reached through a symlink (.claude or the file itself): refused, nothing outside read or written', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'cron-outside-'));
    writeFileSync(join(outside, 'secret.txt'), 'VICTIM CONTENT\n');
    // .claude a link to a directory outside the project: no write lands there.
    const a = mkdtempSync(join(tmpdir(), 'cron-file-'));
    symlinkSync(outside, join(a, '.claude'));
    await expect(addScheduledTask(a, entry('aaaa1111', true))).rejects.toMatchObject({
      nonRetryable: true,
      type: MALFORMED_SCHEDULED_TASKS,
    });
    expect(existsSync(join(outside, 'scheduled_tasks.json'))).toBe(false);
    // The file a link to a file outside: its text is never read into an error.
    const b = mkdtempSync(join(tmpdir(), 'cron-file-'));
    mkdirSync(join(b, '.claude'));
    symlinkSync(join(outside, 'secret.txt'), join(b, SCHEDULED_TASKS_FILE));
    for (const op of [addScheduledTask(b, entry('aaaa1111', true)), removeScheduledTask(b, 'x')]) {
      const err = (await op.then(
        () => undefined,
        (e: unknown) => e,
      )) as Error;
      expect(err.message).toContain('is a symbolic link');
      expect(err.message).not.toContain('VICTIM');
    }
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('VICTIM CONTENT\n');
  });

  test('a malformed file is named without quoting its text (which would reach the model and workflow history)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cron-file-'));
    mkdirSync(join(dir, '.claude'));
    writeFileSync(join(dir, SCHEDULED_TASKS_FILE), 'VICTIM CONTENT\n');
    const problem = await scheduledTasksFileProblem(dir);
    expect(problem).toContain('it is not valid JSON');
    expect(problem).not.toContain('VICTIM');
  });

  test('scheduledTasksFileProblem: null for no file or a good one (a durable job can be kept)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cron-file-'));
    expect(await scheduledTasksFileProblem(dir)).toBeNull();
    await addScheduledTask(dir, entry('aaaa1111', true));
    expect(await scheduledTasksFileProblem(dir)).toBeNull();
  });

  test('processStart: decimal digits (ms since the epoch)', () => {
    expect(processStart()).toMatch(/^\d{13}$/);
  });
});
