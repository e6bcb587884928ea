/**
 * A repository whose config names programs (fsmonitor, hooks, filter and diff drivers, signing)
 * must not make the runner's own git run any of them, and git must not see the runner's secrets.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { recordOrigin, repoOf, storeSnapshot } from '../../../../src/activities/workspace/snapshot';
import { gitStatusSnapshot } from '../../../../src/activities/context/git-status';
import { safeGitEnvironment } from '../../../../src/env/git-env';
import { JsonlTranscriptStore } from '../../../../src/store';

const SECRET = 'sk-ant-hostile-repo-test-secret';
const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' }).trim();

let dir: string;
let markers: string;
let dumps: string;
let bin: string;
let store: JsonlTranscriptStore;
const saved = { PATH: process.env['PATH'], KEY: process.env['ANTHROPIC_API_KEY'] };

/** A shell command that leaves a marker file named `name` (with the environment it saw). */
const mark = (name: string): string => `env > ${path.join(markers, name)}; cat`;

beforeEach(() => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hostile-')));
  dir = path.join(root, 'repo');
  markers = path.join(root, 'markers');
  dumps = path.join(root, 'dumps');
  bin = path.join(root, 'bin');
  for (const d of [dir, markers, dumps, bin]) fs.mkdirSync(d);
  fs.writeFileSync(path.join(dir, 'a.txt'), 'plain text\n');
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');

  // What a model with Write (and no Bash) could have left behind before the protected paths.
  const hooks = path.join(dir, '.git', 'hooks');
  for (const h of ['post-index-change', 'post-checkout', 'reference-transaction', 'pre-commit']) {
    fs.writeFileSync(path.join(hooks, h), `#!/bin/sh\nenv > ${path.join(markers, `hook-${h}`)}\n`, { mode: 0o755 });
  }
  const script = path.join(root, 'prog.sh');
  fs.writeFileSync(script, `#!/bin/sh\nenv > ${path.join(markers, 'program')}\ncat\n`, { mode: 0o755 });
  fs.writeFileSync(
    path.join(dir, '.git', 'included.cfg'),
    `[filter "inc"]\n\tprocess = ${script}\n\trequired = true\n`,
  );
  fs.appendFileSync(
    path.join(dir, '.git', 'config'),
    [
      '[core]',
      `\tfsmonitor = "${mark('fsmonitor')}"`,
      '[filter "evil"]',
      `\tclean = "${mark('clean')}"`,
      `\tsmudge = "${mark('smudge')}"`,
      '\trequired = true',
      '[diff "evil"]',
      `\ttextconv = ${script}`,
      '[commit]',
      '\tgpgSign = true',
      '[log]',
      '\tshowSignature = true',
      '[gpg]',
      `\tprogram = ${script}`,
      '[include]',
      '\tpath = included.cfg',
      '',
    ].join('\n'),
  );
  fs.writeFileSync(path.join(dir, '.gitattributes'), '*.txt filter=evil diff=evil\n*.md filter=inc\n');
  fs.writeFileSync(path.join(dir, 'a.txt'), 'changed text\n');
  fs.writeFileSync(path.join(dir, 'b.md'), '# new\n');

  // A `git` first on PATH that records the environment it is started with.
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  fs.writeFileSync(path.join(bin, 'git'), `#!/bin/sh\nenv > "${dumps}/$$"\nexec ${realGit} "$@"\n`, { mode: 0o755 });
  process.env['PATH'] = `${bin}:${saved.PATH ?? ''}`;
  process.env['ANTHROPIC_API_KEY'] = SECRET;
  store = new JsonlTranscriptStore(fs.mkdtempSync(path.join(os.tmpdir(), 'hostile-store-')));
});

afterEach(() => {
  process.env['PATH'] = saved.PATH;
  if (saved.KEY === undefined) delete process.env['ANTHROPIC_API_KEY'];
  else process.env['ANTHROPIC_API_KEY'] = saved.KEY;
});

function markersLeft(): string[] {
  return fs.readdirSync(markers);
}

function envDumps(): string[] {
  return fs.readdirSync(dumps).map((f) => fs.readFileSync(path.join(dumps, f), 'utf8'));
}

describe("the runner's own git in a repository whose config names programs", () => {
  test('hostile repo: the config is really hostile (plain git runs the fsmonitor, filter and hook)', () => {
    // (It fails: the `inc` process filter is required and speaks no filter protocol.)
    spawnSync('git', ['add', '-A'], { cwd: dir, env: { ...process.env, PATH: saved.PATH } });
    expect(markersLeft()).toEqual(expect.arrayContaining(['fsmonitor', 'clean', 'program']));
    expect(fs.readFileSync(path.join(markers, 'fsmonitor'), 'utf8')).toContain(SECRET);
  });

  test('hostile repo: a workspace snapshot runs no fsmonitor, hook, filter or signing program, and stores the files as they are', async () => {
    const repo = (await repoOf(dir))!;
    await recordOrigin(store, 's', dir, repo);
    const snap = await storeSnapshot({
      store,
      sessionId: 's',
      toolUseId: 'toolu_1',
      root: repo.root,
      base: repo.head,
      maxBytes: 1 << 20,
    });
    expect(markersLeft()).toEqual([]);
    // Not cleaned by any filter: the blob is the file's bytes.
    expect(git(dir, 'show', `${snap.commit}:a.txt`)).toBe('changed text');
    expect(git(dir, 'show', `${snap.commit}:b.md`)).toBe('# new');
    expect(git(dir, 'cat-file', '-p', snap.commit)).not.toContain('gpgsig');
  });

  test('hostile repo: the git status context runs nothing from the config either', async () => {
    const text = await gitStatusSnapshot(dir);
    expect(text).toContain('M a.txt');
    expect(text).toContain('base');
    expect(markersLeft()).toEqual([]);
  });

  test('hostile repo: every git the runner starts sees no ANTHROPIC_API_KEY', async () => {
    const repo = (await repoOf(dir))!;
    await storeSnapshot({
      store,
      sessionId: 's',
      toolUseId: 'toolu_2',
      root: repo.root,
      base: repo.head,
      maxBytes: 1 << 20,
    });
    await gitStatusSnapshot(dir);
    const seen = envDumps();
    expect(seen.length).toBeGreaterThan(5);
    for (const env of seen) {
      expect(env).not.toContain(SECRET);
      expect(env).not.toContain('ANTHROPIC_API_KEY');
    }
    const env = await safeGitEnvironment(dir);
    expect(env['ANTHROPIC_API_KEY']).toBeUndefined();
    expect(
      Object.keys(env)
        .filter((k) => k.startsWith('GIT_CONFIG_KEY_'))
        .map((k) => env[k]),
    ).toEqual(expect.arrayContaining(['core.fsmonitor', 'core.hooksPath', 'filter.evil.clean', 'filter.inc.process']));
  });

  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  (asRoot ? test : test.skip)(
    'hostile repo: a repository owned by another user (safe.directory) is still read, and still runs nothing',
    async () => {
      execFileSync('chown', ['-R', 'nobody', dir]);
      expect(() =>
        execFileSync('git', ['status'], { cwd: dir, env: { ...process.env, PATH: saved.PATH }, stdio: 'pipe' }),
      ).toThrow(/dubious ownership/);
      const text = await gitStatusSnapshot(dir);
      expect(text).toContain('M a.txt');
      expect(markersLeft()).toEqual([]);
    },
  );
});
