import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PermissionDecision, ScopedRules } from '../../../../src/common/permissions';
import type { PermissionMode } from '../../../../src/common/permissions';
import { decideToolPermission } from '../../../../src/activities/permissions/decide';
import { isGitDirectory } from '../../../../src/activities/permissions/protected-paths';

let root: string;
let cwd: string;
let home: string;
let separateGitDir: string;

function git(dir: string, ...args: string[]): void {
  const r = spawnSync('git', args, { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
}

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'protected-')));
  cwd = join(root, 'repo');
  home = join(root, 'home');
  separateGitDir = join(root, 'elsewhere', 'wt.gitdir');
  mkdirSync(cwd, { recursive: true });
  mkdirSync(join(home, '.claude'), { recursive: true });
  git(cwd, 'init', '-q');
  writeFileSync(join(cwd, 'a.txt'), 'a');
  mkdirSync(join(cwd, 'vendor', 'lib'), { recursive: true });
  git(join(cwd, 'vendor', 'lib'), 'init', '-q'); // a nested repository
  symlinkSync(join(cwd, '.git'), join(cwd, 'innocent')); // a link into .git
  symlinkSync(join(cwd, '.git', 'config'), join(cwd, 'cfg')); // a link to .git/config
  // A work tree whose `.git` is a file pointing elsewhere (git init --separate-git-dir).
  mkdirSync(join(cwd, 'sub2'));
  mkdirSync(join(root, 'elsewhere'));
  git(join(cwd, 'sub2'), 'init', '-q', '--separate-git-dir', separateGitDir);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const none: ScopedRules = { allow: [], deny: [], ask: [] };

function write(
  file: string,
  mode: PermissionMode,
  rules: Partial<ScopedRules> = {},
  additionalDirectories: string[] = [],
): Promise<PermissionDecision> {
  return decideToolPermission({
    toolName: 'Write',
    input: { file_path: file, content: 'x' },
    cwd,
    mode,
    rules: { ...none, ...rules },
    additionalDirectories,
    home,
  });
}

const sensitive = (p: string): string => `Claude requested permissions to edit ${p} which is a sensitive file.`;

describe('protected paths: writes that widen what runs later are asked about', () => {
  const table: Array<[string, () => string]> = [
    ['.git/config', () => join(cwd, '.git', 'config')],
    ['.git/hooks/post-commit', () => join(cwd, '.git', 'hooks', 'post-commit')],
    ['.git itself (a file replacing the directory)', () => join(cwd, '.git')],
    ["a nested repository's .git/config", () => join(cwd, 'vendor', 'lib', '.git', 'config')],
    ['.GIT/config (case-insensitive)', () => join(cwd, '.GIT', 'config')],
    ['.git under a new directory (a repository being made)', () => join(cwd, 'new', '.git', 'hooks', 'pre-commit')],
    ['a path through a symlink into .git', () => join(cwd, 'innocent', 'hooks', 'post-checkout')],
    ['.gitmodules', () => join(cwd, '.gitmodules')],
    ['.mcp.json', () => join(cwd, '.mcp.json')],
    ['.vscode/settings.json', () => join(cwd, '.vscode', 'settings.json')],
    ['.husky/pre-commit', () => join(cwd, 'sub', '.husky', 'pre-commit')],
    ['.bashrc', () => join(cwd, '.bashrc')],
    ['.zshenv (a shell start-up file)', () => join(cwd, '.zshenv')],
    [".envrc (direnv's)", () => join(cwd, 'sub', '.envrc')],
    ['.npmrc (a package manager runs commands it names)', () => join(cwd, '.npmrc')],
    ['.pre-commit-config.yaml (a git hook manager)', () => join(cwd, '.pre-commit-config.yaml')],
    ['.config/git/config (git config by XDG path)', () => join(cwd, '.config', 'git', 'config')],
  ];
  for (const [name, file] of table) {
    test(`protected paths: ${name} is asked about in acceptEdits, even with Write and Edit(**) allowed`, async () => {
      const f = file();
      const d = await write(f, 'acceptEdits', { allow: ['Write', `Edit(//${cwd}/**)`] });
      expect(d).toMatchObject({ behavior: 'ask', reasonType: 'safetyCheck', message: sensitive(f) });
    });
  }

  test('protected paths: a link to .git/config is refused to the file tools (a link at the name), asked about to Bash', async () => {
    const f = join(cwd, 'cfg');
    expect(await write(f, 'bypassPermissions', { allow: ['Write'] })).toMatchObject({
      behavior: 'deny',
      reason: 'Write target is a symbolic link',
      message: `Refusing to write ${f}: it is a symbolic link. Write to the link's target path instead: ${join(cwd, '.git', 'config')}.`,
    });
    const bash = await decideToolPermission({
      toolName: 'Bash',
      input: { command: 'echo x > cfg' },
      cwd,
      mode: 'acceptEdits',
      rules: none,
      home,
    });
    expect(bash).toMatchObject({ behavior: 'ask', reasonType: 'safetyCheck' });
  });
  test('protected paths: the git directory a .git file points to (--separate-git-dir) is protected too', async () => {
    expect(isGitDirectory(separateGitDir)).toBe(true);
    const f = join(separateGitDir, 'config');
    const d = await write(f, 'acceptEdits', { allow: ['Write'] }, [join(root, 'elsewhere')]);
    expect(d).toMatchObject({ behavior: 'ask', reasonType: 'safetyCheck', message: sensitive(f) });
  });

  test("protected paths: .claude/settings.json gets Claude Code's words for a file tool", async () => {
    const f = join(cwd, '.claude', 'settings.json');
    for (const rel of ['settings.json', 'settings.local.json', 'commands/x.md']) {
      const d = await write(join(cwd, '.claude', rel), 'acceptEdits', { allow: ['Edit(.claude/**)'] });
      expect(d).toMatchObject({ behavior: 'ask', reasonType: 'safetyCheck' });
    }
    expect((await write(f, 'acceptEdits')).message).toBe(
      `Claude requested permissions to write to ${f}, but you haven't granted it yet.`,
    );
  });

  test("protected paths: the user's ~/.claude is protected even when it is the working directory", async () => {
    const d = await decideToolPermission({
      toolName: 'Edit',
      input: { file_path: join(home, '.claude', 'settings.json'), old_string: 'a', new_string: 'b' },
      cwd: join(home, '.claude'),
      mode: 'acceptEdits',
      rules: none,
      home,
    });
    expect(d).toMatchObject({ behavior: 'ask', reasonType: 'safetyCheck' });
  });

  test('protected paths: dontAsk and plan deny instead of asking', async () => {
    for (const mode of ['dontAsk', 'plan'] as const) {
      expect(await write(join(cwd, '.git', 'config'), mode, { allow: ['Write'] })).toMatchObject({
        behavior: 'deny',
        reasonType: 'safetyCheck',
      });
    }
  });

  test('protected paths: a deny rule still wins (its own words)', async () => {
    const d = await write(join(cwd, '.git', 'config'), 'acceptEdits', { deny: ['Edit(.git/**)'] });
    expect(d).toMatchObject({ behavior: 'deny', reasonType: 'rule', rule: 'Edit(.git/**)' });
  });

  test('protected paths: bypassPermissions allows them', async () => {
    for (const f of [join(cwd, '.git', 'config'), join(cwd, '.claude', 'settings.json'), join(cwd, '.mcp.json')]) {
      expect((await write(f, 'bypassPermissions')).behavior).toBe('allow');
    }
  });

  test('protected paths: ordinary files are still allowed in acceptEdits (.gitattributes, .gitignore, CLAUDE.md, a.txt)', async () => {
    for (const rel of [
      '.gitattributes',
      '.gitignore',
      'CLAUDE.md',
      'a.txt',
      'src/git/x.ts',
      'my.git.txt',
      '.github/x.yml',
    ]) {
      expect(await write(join(cwd, rel), 'acceptEdits')).toMatchObject({ behavior: 'allow' });
    }
  });

  test('protected paths: names above the working directory do not count (a project inside .claude/worktrees)', async () => {
    const wt = join(root, 'host', '.claude', 'worktrees', 'w1');
    mkdirSync(wt, { recursive: true });
    const d = await decideToolPermission({
      toolName: 'Write',
      input: { file_path: join(wt, 'a.txt'), content: 'x' },
      cwd: wt,
      mode: 'acceptEdits',
      rules: none,
      home,
    });
    expect(d.behavior).toBe('allow');
  });

  test('protected paths: reads are not affected', async () => {
    const d = await decideToolPermission({
      toolName: 'Read',
      input: { file_path: join(cwd, '.git', 'config') },
      cwd,
      mode: 'default',
      rules: none,
      home,
    });
    expect(d.behavior).toBe('allow');
  });

  test('protected paths: a Bash redirection or file command into .git is asked about even with Bash allowed', async () => {
    for (const command of ['echo x > .git/info/exclude', 'touch .claude/x .git/y', 'echo x >> innocent/config']) {
      const d = await decideToolPermission({
        toolName: 'Bash',
        input: { command },
        cwd,
        mode: 'acceptEdits',
        rules: { ...none, allow: ['Bash'] },
        home,
      });
      expect(d).toMatchObject({ behavior: 'ask', reasonType: 'safetyCheck' });
      expect(d.message).toMatch(/^Claude requested permissions to edit .* which is a sensitive file\.$/);
    }
  });
});
