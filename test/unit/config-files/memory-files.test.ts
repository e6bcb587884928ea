import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  directoriesBetween,
  loadNestedMemory,
  loadProjectMemory,
  loadUserMemory,
  MemoryImportCycleError,
  repositoryRoot,
} from '../../../src/config-files/memory-files';

let root: string;
let repo: string;
let home: string;

function w(rel: string, content: string): string {
  const p = join(root, rel);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, content);
  return p;
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'memory-files-'));
  repo = join(root, 'repo');
  home = join(root, 'home');
  mkdirSync(join(repo, '.git'), { recursive: true });
  mkdirSync(home, { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const all = { project: true, local: true };
const summary = (files: Array<{ path: string; type: string }>): string[] =>
  files.map((f) => `${f.type} ${f.path.slice(root.length + 1)}`);

describe('project memory', () => {
  test('loadProjectMemory: root down to cwd; CLAUDE.md, its imports, .claude/CLAUDE.md, CLAUDE.local.md in each', async () => {
    w('CLAUDE.md', 'above the repository: not read');
    w('repo/CLAUDE.md', 'root rules\n@docs/extra.md\n');
    w('repo/docs/extra.md', 'extra');
    w('repo/.claude/CLAUDE.md', 'dot claude');
    w('repo/CLAUDE.local.md', 'local');
    w('repo/sub/CLAUDE.md', 'sub rules');
    w('repo/sub/CLAUDE.local.md', 'sub local');
    w('repo/sub/deep/CLAUDE.md', 'below cwd: nested memory, not read here');
    const load = await loadProjectMemory({ cwd: join(repo, 'sub'), root: repo, sources: all, home });
    expect(summary(load.files)).toEqual([
      'Project repo/CLAUDE.md',
      'Project repo/docs/extra.md',
      'Project repo/.claude/CLAUDE.md',
      'Local repo/CLAUDE.local.md',
      'Project repo/sub/CLAUDE.md',
      'Local repo/sub/CLAUDE.local.md',
    ]);
    expect(load.files[0]?.content).toBe('root rules\n@docs/extra.md\n');
    expect(load.warnings).toEqual([]);
  });

  test('loadProjectMemory: sources select project files and local files', async () => {
    w('repo/CLAUDE.md', 'p');
    w('repo/CLAUDE.local.md', 'l');
    const onlyLocal = await loadProjectMemory({ cwd: repo, root: repo, sources: { project: false, local: true } });
    expect(summary(onlyLocal.files)).toEqual(['Local repo/CLAUDE.local.md']);
    const onlyProject = await loadProjectMemory({ cwd: repo, root: repo, sources: { project: true, local: false } });
    expect(summary(onlyProject.files)).toEqual(['Project repo/CLAUDE.md']);
  });

  test('loadProjectMemory: imports nest at most 5 files deep; a file imported twice is sent once', async () => {
    w('repo/CLAUDE.md', '@a.md\n@b.md');
    w('repo/a.md', '@b.md');
    w('repo/b.md', '@c.md');
    w('repo/c.md', '@d.md');
    w('repo/d.md', '@e.md');
    w('repo/e.md', 'too deep');
    const load = await loadProjectMemory({ cwd: repo, root: repo, sources: all });
    expect(summary(load.files)).toEqual([
      'Project repo/CLAUDE.md',
      'Project repo/a.md',
      'Project repo/b.md',
      'Project repo/c.md',
      'Project repo/d.md',
    ]);
    expect(load.warnings.join('\n')).toMatch(/d\.md: import @e\.md not followed: imports nest at most 5 files deep/);
  });

  test('loadProjectMemory: an import cycle is an error naming the files of the cycle', async () => {
    w('repo/CLAUDE.md', 'start @a.md');
    w('repo/a.md', '@b.md');
    const b = w('repo/b.md', 'back to @a.md');
    const err = await loadProjectMemory({ cwd: repo, root: repo, sources: all }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MemoryImportCycleError);
    const cycle = err as MemoryImportCycleError;
    expect(cycle.file).toBe(b);
    expect(cycle.chain).toEqual([join(repo, 'a.md'), b, join(repo, 'a.md')]);
    expect(cycle.message).toContain(`memory import cycle in ${b}`);
  });

  test('loadProjectMemory: a file importing itself, also through a symlink, is a cycle', async () => {
    w('repo/CLAUDE.md', '@self.md');
    w('repo/self.md', '@link.md');
    symlinkSync(join(repo, 'self.md'), join(repo, 'link.md'));
    await expect(loadProjectMemory({ cwd: repo, root: repo, sources: all })).rejects.toBeInstanceOf(
      MemoryImportCycleError,
    );
  });

  test('loadProjectMemory: imports outside the repository are not followed; missing ones are skipped', async () => {
    w('outside.md', 'secret');
    w('home/notes.md', 'home notes');
    w('repo/CLAUDE.md', '@../outside.md @~/notes.md @/etc/passwd @missing.md');
    const load = await loadProjectMemory({ cwd: repo, root: repo, sources: all, home });
    expect(summary(load.files)).toEqual(['Project repo/CLAUDE.md']);
    expect(load.warnings).toHaveLength(3);
    expect(load.warnings.every((l) => l.includes('not followed') && l.includes(`outside ${repo}`))).toBe(true);
  });

  test('loadProjectMemory: an import through a link (file or directory) inside the repository that leads outside it is not followed', async () => {
    w('outside.md', 'secret');
    mkdirSync(join(root, 'elsewhere'));
    w('elsewhere/notes.md', 'far notes');
    symlinkSync(join(root, 'outside.md'), join(repo, 'inner.md'));
    symlinkSync(join(root, 'elsewhere'), join(repo, 'docs'));
    w('repo/inside.md', 'inside');
    symlinkSync(join(repo, 'inside.md'), join(repo, 'alias.md'));
    w('repo/CLAUDE.md', '@inner.md @docs/notes.md @alias.md');
    const load = await loadProjectMemory({ cwd: repo, root: repo, sources: all });
    expect(summary(load.files)).toEqual(['Project repo/CLAUDE.md', 'Project repo/alias.md']);
    expect(load.files.map((f) => f.content).join('\n')).not.toMatch(/secret|far notes/);
    expect(load.warnings).toEqual([
      expect.stringContaining(
        `import @inner.md not followed: ${join(repo, 'inner.md')} is a link to ${join(root, 'outside.md')}`,
      ),
      expect.stringContaining(`import @docs/notes.md not followed`),
    ]);
  });

  test('loadProjectMemory: a memory file that is itself a link to /proc/self/environ or out of the repository, or a FIFO, is not sent; a link inside it is', async () => {
    w('outside.md', 'TOPSECRET');
    w('repo/docs/local.md', 'local rules inside the repository');
    symlinkSync('/proc/self/environ', join(repo, 'CLAUDE.md'));
    mkdirSync(join(repo, '.claude'));
    symlinkSync(join(root, 'outside.md'), join(repo, '.claude', 'CLAUDE.md'));
    symlinkSync(join(repo, 'docs', 'local.md'), join(repo, 'CLAUDE.local.md'));
    mkdirSync(join(repo, 'sub'));
    execFileSync('mkfifo', [join(repo, 'sub', 'CLAUDE.md')]);
    const load = await loadProjectMemory({ cwd: join(repo, 'sub'), root: repo, sources: all });
    expect(summary(load.files)).toEqual(['Local repo/CLAUDE.local.md']);
    expect(load.files[0]?.content).toBe('local rules inside the repository');
    expect(JSON.stringify(load.files)).not.toMatch(/TOPSECRET|PATH=/);
    expect(load.warnings).toEqual([
      `memory file ${join(repo, 'CLAUDE.md')} not sent: it is a link to /proc/${process.pid}/environ, which is on a kernel file system (such as /proc) that the runner does not read`,
      `memory file ${join(repo, '.claude', 'CLAUDE.md')} not sent: it is a link to ${join(root, 'outside.md')}, which is outside ${repo}`,
      `memory file ${join(repo, 'sub', 'CLAUDE.md')} not sent: it is not a regular file`,
    ]);
  });

  test("loadUserMemory: the user's CLAUDE.md may link inside the home directory, not out of it", async () => {
    w('outside.md', 'TOPSECRET');
    w('home/dotfiles/CLAUDE.md', 'my rules');
    mkdirSync(join(home, '.claude'));
    symlinkSync(join(home, 'dotfiles', 'CLAUDE.md'), join(home, '.claude', 'CLAUDE.md'));
    const inside = await loadUserMemory({ configDir: join(home, '.claude'), home });
    expect(inside.files.map((f) => f.content)).toEqual(['my rules']);
    rmSync(join(home, '.claude', 'CLAUDE.md'));
    symlinkSync(join(root, 'outside.md'), join(home, '.claude', 'CLAUDE.md'));
    const out = await loadUserMemory({ configDir: join(home, '.claude'), home });
    expect(out.files).toEqual([]);
    expect(out.warnings).toEqual([
      `memory file ${join(home, '.claude', 'CLAUDE.md')} not sent: it is a link to ${join(root, 'outside.md')}, which is outside ${home} and ${join(home, '.claude')}`,
    ]);
  });

  test('loadProjectMemory: a 10 MB CLAUDE.md is cut to the limit with a note and a warning, never read whole', async () => {
    const big = w('repo/CLAUDE.md', `BEGIN\n${'memory line\n'.repeat(1_000_000)}END\n`);
    const load = await loadProjectMemory({ cwd: repo, root: repo, sources: all });
    const file = load.files[0];
    expect(file?.truncatedFromBytes).toBe(6 + 12_000_000 + 4);
    expect(file?.content.startsWith('BEGIN\n')).toBe(true);
    expect(file?.content).not.toContain('END');
    expect(file?.content.length).toBeLessThan(100_200);
    expect(file?.content).toMatch(
      /\[The runner cut this file here: it has 12000010 bytes, and only its first 100000 characters are sent\.\]$/,
    );
    expect(load.warnings).toEqual([
      `memory file ${big} has 12000010 bytes: only its first 100000 characters are sent to the model (limits: 100000 characters a file, 200000 in all)`,
    ]);
  });

  test('loadProjectMemory: the total budget cuts the file that crosses it and skips the ones after', async () => {
    w('repo/CLAUDE.md', 'a'.repeat(600));
    w('repo/.claude/CLAUDE.md', 'b'.repeat(600));
    w('repo/CLAUDE.local.md', 'c');
    const load = await loadProjectMemory({
      cwd: repo,
      root: repo,
      sources: all,
      limits: { maxFileChars: 1000, maxTotalChars: 1000 },
    });
    expect(load.files[0]?.content).toBe('a'.repeat(600));
    expect(load.files[1]?.content).toMatch(/^b{400}\n\n\[The runner cut this file here/);
    expect(load.files[1]?.truncatedFromBytes).toBe(600);
    expect(load.warnings).toHaveLength(2);
    expect(load.warnings[1]).toMatch(/CLAUDE\.local\.md not sent: .* limit of 1000 characters/);
  });

  test('loadProjectMemory: a binary file is not sent', async () => {
    w('repo/CLAUDE.md', 'text\0binary');
    const load = await loadProjectMemory({ cwd: repo, root: repo, sources: all });
    expect(load.files).toEqual([]);
    expect(load.warnings[0]).toMatch(/not a text file/);
  });
});

describe('user memory', () => {
  test('loadUserMemory: CLAUDE.md of the config dir and its imports under the home directory', async () => {
    w('home/.claude/CLAUDE.md', 'mine\n@~/team.md');
    w('home/team.md', 'team');
    const load = await loadUserMemory({ configDir: join(home, '.claude'), home });
    expect(summary(load.files)).toEqual(['User home/.claude/CLAUDE.md', 'User home/team.md']);
    await expect(loadUserMemory({ configDir: join(root, 'none'), home })).resolves.toEqual({ files: [], warnings: [] });
  });
});

describe('nested memory', () => {
  test('loadNestedMemory: directories below cwd down to the file, outermost first, minus those loaded', async () => {
    w('repo/CLAUDE.md', 'root');
    w('repo/sub/CLAUDE.md', 'sub');
    w('repo/sub/deep/CLAUDE.md', 'deep');
    w('repo/sub/deep/CLAUDE.local.md', 'deep local');
    const file = join(repo, 'sub/deep/x.txt');
    const first = await loadNestedMemory({ filePath: file, cwd: repo, root: repo, sources: all, loaded: [] });
    expect(summary(first.files)).toEqual([
      'Project repo/sub/CLAUDE.md',
      'Project repo/sub/deep/CLAUDE.md',
      'Local repo/sub/deep/CLAUDE.local.md',
    ]);
    const again = await loadNestedMemory({
      filePath: file,
      cwd: repo,
      root: repo,
      sources: all,
      loaded: [join(repo, 'sub/CLAUDE.md')],
    });
    expect(summary(again.files)).toEqual(['Project repo/sub/deep/CLAUDE.md', 'Local repo/sub/deep/CLAUDE.local.md']);
  });

  test('loadNestedMemory: nothing for a file in cwd itself or outside it', async () => {
    w('repo/CLAUDE.md', 'root');
    w('other/CLAUDE.md', 'other');
    for (const filePath of [join(repo, 'a.txt'), join(root, 'other/f.txt'), join(root, 'f.txt')]) {
      const load = await loadNestedMemory({ filePath, cwd: repo, root: repo, sources: all, loaded: [] });
      expect(load.files).toEqual([]);
    }
  });

  test('loadNestedMemory: a cycle in a nested memory file is skipped with a warning', async () => {
    w('repo/sub/CLAUDE.md', '@a.md');
    w('repo/sub/a.md', '@CLAUDE.md');
    w('repo/sub/deep/CLAUDE.md', 'deep');
    const load = await loadNestedMemory({
      filePath: join(repo, 'sub/deep/x.txt'),
      cwd: repo,
      root: repo,
      sources: all,
      loaded: [],
    });
    expect(load.files.map((f) => f.path)).toContain(join(repo, 'sub/deep/CLAUDE.md'));
    expect(load.warnings.join('\n')).toMatch(/memory import cycle/);
  });
});

describe('repository layout', () => {
  test('repositoryRoot: nearest .git upwards (directory or file), null outside a repository', async () => {
    mkdirSync(join(repo, 'a/b'), { recursive: true });
    await expect(repositoryRoot(join(repo, 'a/b'))).resolves.toBe(repo);
    w('repo/a/.git', 'gitdir: ../.git/worktrees/a');
    await expect(repositoryRoot(join(repo, 'a/b'))).resolves.toBe(join(repo, 'a'));
    mkdirSync(join(root, 'plain'));
    const outside = await repositoryRoot(join(root, 'plain'));
    expect(outside === null || !outside.startsWith(root)).toBe(true);
  });

  test('directoriesBetween: top first, bottom last', () => {
    expect(directoriesBetween('/r', '/r')).toEqual(['/r']);
    expect(directoriesBetween('/r', '/r/a/b')).toEqual(['/r', '/r/a', '/r/a/b']);
  });
});
