import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gitStatusSnapshot, MAX_GIT_STATUS_CHARS } from '../../../../src/activities/context/git-status';
import { MemoryImportCycleError } from '../../../../src/config-files/memory-files';
import { loadSessionContext, localDate } from '../../../../src/activities/context/session-context';

let dir: string;
const git = (...args: string[]): void => {
  execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=Tester', ...args], { cwd: dir });
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'session-context-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('git status snapshot', () => {
  test('gitStatusSnapshot: branch, main branch, short status and recent commits', async () => {
    git('init', '-q', '-b', 'work');
    writeFileSync(join(dir, 'a.txt'), 'a');
    git('add', 'a.txt');
    git('commit', '-q', '-m', 'first commit');
    writeFileSync(join(dir, 'b.txt'), 'b');
    const text = await gitStatusSnapshot(dir);
    expect(text).toMatch(/^This is the git status at the start of the conversation\./);
    expect(text).toContain('\n\nCurrent branch: work\n\nMain branch (you will usually use this for PRs): main\n\n');
    expect(text).toContain('Status:\n?? b.txt\n\nRecent commits:\n');
    expect(text).toMatch(/Recent commits:\n[0-9a-f]+ first commit$/);
  });

  test('gitStatusSnapshot: a repository without commits, a clean tree, a long status', async () => {
    git('init', '-q', '-b', 'main');
    expect(await gitStatusSnapshot(dir)).toContain('Status:\n(clean)\n\nRecent commits:\n(none yet)');
    for (let i = 0; i < 300; i++) writeFileSync(join(dir, `file-with-a-long-name-${i}.txt`), 'x');
    const text = (await gitStatusSnapshot(dir)) ?? '';
    const status = text.slice(text.indexOf('Status:\n') + 8, text.indexOf('\n\nRecent commits'));
    expect(status.length).toBeLessThan(MAX_GIT_STATUS_CHARS + 100);
    expect(status).toMatch(/cut at 2000 characters/);
  });

  test('gitStatusSnapshot: null outside a git work tree', async () => {
    await expect(gitStatusSnapshot(dir)).resolves.toBeNull();
  });
});

describe('session context', () => {
  test('loadSessionContext: instructions (user then project), git status, environment, in this order', async () => {
    git('init', '-q', '-b', 'main');
    writeFileSync(join(dir, 'CLAUDE.md'), 'project rules');
    const userFile = { path: '/home/u/.claude/CLAUDE.md', type: 'User' as const, content: 'mine' };
    const ctx = await loadSessionContext({
      cwd: dir,
      model: 'claude-x',
      userMemory: [userFile],
      now: new Date(2026, 4, 7, 12),
    });
    expect(ctx.attachments.map((a) => a.type)).toEqual(['instructions', 'session_context', 'environment']);
    const [instructions, , environment] = ctx.attachments;
    expect(instructions).toEqual({
      type: 'instructions',
      files: [userFile, { path: join(dir, 'CLAUDE.md'), type: 'Project', content: 'project rules' }],
    });
    expect(environment).toMatchObject({
      type: 'environment',
      environment: {
        workingDirectory: dir,
        isGitRepo: true,
        platform: process.platform,
        model: 'claude-x',
        date: '2026-05-07',
      },
    });
  });

  test('loadSessionContext: setting sources leave out the user memory; no git status when asked or outside git', async () => {
    writeFileSync(join(dir, 'CLAUDE.md'), 'project rules');
    const userFile = { path: '/u/CLAUDE.md', type: 'User' as const, content: 'mine' };
    const ctx = await loadSessionContext({ cwd: dir, model: 'm', userMemory: [userFile], sources: ['project'] });
    expect(ctx.attachments.map((a) => a.type)).toEqual(['instructions', 'environment']);
    expect(ctx.attachments[0]).toMatchObject({ files: [{ type: 'Project' }] });
    git('init', '-q');
    const noGit = await loadSessionContext({ cwd: dir, model: 'm', sources: [], gitStatus: false });
    expect(noGit.attachments.map((a) => a.type)).toEqual(['environment']);
  });

  test('loadSessionContext: an import cycle in project memory is an error', async () => {
    mkdirSync(join(dir, '.git'));
    writeFileSync(join(dir, 'CLAUDE.md'), '@CLAUDE.md');
    await expect(loadSessionContext({ cwd: dir, model: 'm' })).rejects.toBeInstanceOf(MemoryImportCycleError);
  });

  test('localDate: YYYY-MM-DD of the local clock', () => {
    expect(localDate(new Date(2026, 0, 9, 23, 59))).toBe('2026-01-09');
  });
});
