/**
 * Ripgrep's ignore-file rules (src/activities/tools/ignore-rules.ts), as a specification: which
 * ignore files apply where, which wins, and the search root's exemption. Each case walks a real
 * tree with {@link walkFiles}.
 */
import { execFileSync } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { walkFiles } from '../../../../src/activities/tools/file-walk';

let dir: string;
beforeEach(async () => {
  dir = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'ignore-rules-')));
});
afterEach(() => fsp.rm(dir, { recursive: true, force: true }));

async function tree(files: Record<string, string>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    await fsp.mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await fsp.writeFile(path.join(dir, rel), content);
  }
}

/** The files a search of `root` (relative to the tree) keeps, relative to the tree, sorted. */
async function kept(root = '.'): Promise<string[]> {
  const ctx = { signal: new AbortController().signal, heartbeat: () => undefined };
  const found = await walkFiles(['**/*'], { cwd: path.join(dir, root), ignoreFiles: true, skipNames: ['.git'] }, ctx);
  return found
    .map((e) => path.relative(dir, e.path))
    .filter((p) => !/(^|\/)\.(git|rg)?ignore$/.test(p))
    .sort();
}

describe('ignore rules', () => {
  test('ignore rules: in a repository each directory’s .gitignore applies below it; anchors and ! re-includes', async () => {
    await tree({
      '.git/HEAD': 'ref: refs/heads/main\n',
      '.gitignore': '*.log\n!keep.log\n/rooted.txt\nbuild/\n',
      'a.log': '',
      'keep.log': '',
      'rooted.txt': '',
      'sub/rooted.txt': '',
      'build/out.js': '',
      'sub/build/x.js': '',
      'sub/.gitignore': 'local.txt\n',
      'sub/local.txt': '',
      'local.txt': '',
      'plain.txt': '',
    });
    expect(await kept()).toEqual(['keep.log', 'local.txt', 'plain.txt', 'sub/rooted.txt']);
  });

  test('ignore rules: a FIFO as .gitignore is no rules, and the search does not wait on it', async () => {
    await tree({ '.git/HEAD': 'ref: refs/heads/main\n', 'a.log': '', 'src/b.ts': '' });
    execFileSync('mkfifo', [path.join(dir, '.gitignore')]);
    const started = Date.now();
    expect(await kept()).toEqual(['a.log', 'src/b.ts']);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  test('ignore rules: outside a repository .gitignore does not apply; .ignore and .rgignore do', async () => {
    await tree({
      '.gitignore': 'a.txt\n',
      '.ignore': 'b.txt\n',
      '.rgignore': 'c.txt\n',
      'a.txt': '',
      'b.txt': '',
      'c.txt': '',
    });
    expect(await kept()).toEqual(['a.txt']);
  });

  test('ignore rules: .rgignore wins over .ignore, which wins over .gitignore; a deeper file over a shallower one', async () => {
    await tree({
      '.git/HEAD': '',
      '.gitignore': 'x.txt\ny.txt\n',
      '.ignore': '!x.txt\nz.txt\n',
      '.rgignore': '!z.txt\n',
      'x.txt': '',
      'y.txt': '',
      'z.txt': '',
      'sub/.gitignore': '!y.txt\n',
      'sub/y.txt': '',
    });
    expect(await kept()).toEqual(['sub/y.txt', 'x.txt', 'z.txt']);
  });

  test('ignore rules: a subdirectory search honours the parents’ files, but no .gitignore above the repository', async () => {
    await tree({
      '.gitignore': 'outer.txt\n',
      'repo/.git/HEAD': '',
      'repo/.gitignore': 'inner.txt\n',
      'repo/src/outer.txt': '',
      'repo/src/inner.txt': '',
      'repo/src/kept.txt': '',
    });
    expect(await kept('repo/src')).toEqual(['repo/src/kept.txt', 'repo/src/outer.txt']);
  });

  test('ignore rules: a search root that the rules ignore is searched; the rules still apply below it', async () => {
    await tree({
      '.git/HEAD': '',
      '.gitignore': 'node_modules/\n*.map\n',
      'node_modules/p/index.js': '',
      'node_modules/p/index.js.map': '',
      'we[ir]d */dir/a.js': '',
      'we[ir]d */dir/a.js.map': '',
    });
    await fsp.appendFile(path.join(dir, '.gitignore'), 'we\\[ir\\]d */\n');
    expect(await kept()).toEqual([]);
    expect(await kept('node_modules')).toEqual(['node_modules/p/index.js']);
    expect(await kept('node_modules/p')).toEqual(['node_modules/p/index.js']);
    expect(await kept('we[ir]d */dir')).toEqual(['we[ir]d */dir/a.js']);
  });

  test('ignore rules: .git/info/exclude applies, also for a linked worktree (its .git file and commondir)', async () => {
    await tree({
      'main/.git/info/exclude': 'secret.txt\n',
      'main/.git/worktrees/wt/commondir': '../..\n',
      'main/secret.txt': '',
      'main/kept.txt': '',
      'wt/.git': `gitdir: ${path.join(dir, 'main/.git/worktrees/wt')}\n`,
      'wt/secret.txt': '',
      'wt/kept.txt': '',
    });
    expect(await kept('main')).toEqual(['main/kept.txt']);
    expect(await kept('wt')).toEqual(['wt/kept.txt']);
  });

  test('ignore rules: the global excludes file (core.excludesFile, else XDG_CONFIG_HOME/git/ignore) applies in a repository', async () => {
    const saved = { xdg: process.env['XDG_CONFIG_HOME'], global: process.env['GIT_CONFIG_GLOBAL'] };
    try {
      await tree({
        'config/git/ignore': '*.swp\n',
        gitconfig: '',
        'r/.git/HEAD': '',
        'r/a.swp': '',
        'r/a.txt': '',
        'n/a.swp': '',
      });
      process.env['XDG_CONFIG_HOME'] = path.join(dir, 'config');
      process.env['GIT_CONFIG_GLOBAL'] = path.join(dir, 'gitconfig');
      expect(await kept('r')).toEqual(['r/a.txt']);
      expect(await kept('n')).toEqual(['n/a.swp']); // not a repository
      await tree({ gitconfig2: `[core]\n\texcludesFile = ${path.join(dir, 'mine')}\n`, mine: 'a.txt\n' });
      process.env['GIT_CONFIG_GLOBAL'] = path.join(dir, 'gitconfig2');
      expect(await kept('r')).toEqual(['r/a.swp']);
    } finally {
      for (const [k, v] of [
        ['XDG_CONFIG_HOME', saved.xdg],
        ['GIT_CONFIG_GLOBAL', saved.global],
      ] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });
});
