import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { readSettingsEnv } from '../../../src/activities/settings-env';
import {
  SettingsError,
  loadSettings,
  parseSettingSources,
  projectRootOf,
  projectTrust,
} from '../../../src/config-files';

let root: string;
let home: string;
let cwd: string;

function write(path: string, value: unknown): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'settings-'));
  home = join(root, 'home');
  cwd = join(root, 'proj');
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  write(join(home, '.claude.json'), { projects: { [cwd]: { hasTrustDialogAccepted: true } } });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const load = (extra: Partial<Parameters<typeof loadSettings>[0]> = {}) =>
  loadSettings({ cwd, home, env: {}, ...extra });

describe('settings files', () => {
  test('loadSettings: user < project < local < --settings, rules joined, env merged, model and defaultMode from the highest', () => {
    write(join(home, '.claude', 'settings.json'), {
      permissions: { allow: ['Bash(git *)'], deny: ['Bash(rm *)'], defaultMode: 'acceptEdits' },
      env: { A: 'user', B: 'user' },
      model: 'user-model',
    });
    write(join(cwd, '.claude', 'settings.json'), {
      permissions: { allow: ['Edit(/src/**)'], deny: ['Read(./secrets/**)'] },
      env: { B: 'project' },
      model: 'project-model',
    });
    write(join(cwd, '.claude', 'settings.local.json'), {
      permissions: { ask: ['Bash(git push *)'] },
      env: { C: 'local' },
    });
    const s = load({ settingsArg: '{"model":"flag-model","env":{"C":"flag"}}' });
    expect(s.sources.map((x) => x.source)).toEqual(['user', 'project', 'local', 'flagSettings']);
    expect(s.permissions.allow).toEqual(['Bash(git *)', `Edit(/${cwd}/src/**)`]);
    expect(s.permissions.deny).toEqual(['Bash(rm *)', `Read(/${cwd}/secrets/**)`]);
    expect(s.permissions.ask).toEqual(['Bash(git push *)']);
    expect(s.permissions.defaultMode).toBe('acceptEdits');
    expect(s.env).toEqual({ A: 'user', B: 'project', C: 'flag' });
    expect(s.model).toBe('flag-model');
  });
  test('loadSettings: CLAUDE_CONFIG_DIR holds the user settings', () => {
    const dir = join(root, 'cfg');
    write(join(dir, 'settings.json'), { model: 'from-config-dir' });
    expect(load({ env: { CLAUDE_CONFIG_DIR: dir } }).model).toBe('from-config-dir');
  });
  test('loadSettings: --setting-sources picks the files; --settings always applies', () => {
    write(join(home, '.claude', 'settings.json'), { model: 'user' });
    write(join(cwd, '.claude', 'settings.json'), { model: 'project' });
    expect(load({ settingSources: 'user' }).model).toBe('user');
    expect(load({ settingSources: '' }).sources).toEqual([]);
    expect(load({ settingSources: '', settingsArg: '{"model":"m"}' }).model).toBe('m');
    expect(() => parseSettingSources('user,managed')).toThrow(/--setting-sources: unknown source "managed"/);
  });
  test('loadSettings: a project that was never trusted cannot allow itself anything (deny rules still apply)', () => {
    write(join(home, '.claude.json'), {});
    write(join(cwd, '.claude', 'settings.json'), { permissions: { allow: ['Bash'], deny: ['Bash(rm *)'] } });
    const s = load();
    expect(s.permissions.allow).toEqual([]);
    expect(s.permissions.deny).toEqual(['Bash(rm *)']);
    expect(s.warnings[0]).toBe(
      'Ignoring 1 permissions.allow entry from .claude/settings.json: this workspace has not been trusted. ' +
        'Run Claude Code interactively here once and accept the trust dialog, ' +
        `or set projects[${JSON.stringify(cwd)}].hasTrustDialogAccepted: true in ${join(home, '.claude.json')}.`,
    );
  });
  test("loadSettings: a project cannot turn permission checks off (bypassPermissions), trusted or not; other modes and the user's own settings can", () => {
    write(join(cwd, '.claude', 'settings.json'), { permissions: { defaultMode: 'bypassPermissions' } });
    const s = load();
    expect(s.permissions.defaultMode).toBeUndefined();
    expect(s.warnings.join('\n')).toMatch(/Ignoring permissions.defaultMode "bypassPermissions" from .*settings.json/);
    write(join(cwd, '.claude', 'settings.local.json'), { permissions: { defaultMode: 'bypassPermissions' } });
    expect(load().permissions.defaultMode).toBeUndefined();
    write(join(cwd, '.claude', 'settings.json'), { permissions: { defaultMode: 'acceptEdits' } });
    write(join(cwd, '.claude', 'settings.local.json'), {});
    expect(load().permissions.defaultMode).toBe('acceptEdits');
    write(join(home, '.claude', 'settings.json'), { permissions: { defaultMode: 'bypassPermissions' } });
    write(join(cwd, '.claude', 'settings.json'), {});
    expect(load().permissions.defaultMode).toBe('bypassPermissions');
  });
  test('loadSettings: additionalDirectories are resolved against the project', () => {
    mkdirSync(join(cwd, 'lib'));
    write(join(cwd, '.claude', 'settings.json'), { permissions: { additionalDirectories: ['lib', 'missing'] } });
    const s = load();
    expect(s.permissions.additionalDirectories).toEqual([join(cwd, 'lib')]);
    expect(s.warnings.join('\n')).toMatch(/missing is not a directory/);
  });
  test('loadSettings: hooks and other sections are kept as written', () => {
    const hooks = { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'true' }] }] };
    write(join(cwd, '.claude', 'settings.json'), { hooks, statusLine: { type: 'command' } });
    const s = load();
    expect(s.hooks).toEqual([{ source: 'project', path: join(cwd, '.claude', 'settings.json'), hooks }]);
    expect(s.sources[0]?.settings['statusLine']).toEqual({ type: 'command' });
  });
});

describe('trust: what an untrusted project cannot widen (as claude -p 2.1.328)', () => {
  const untrusted = (): void => write(join(home, '.claude.json'), {});
  test('loadSettings: an untrusted project adds no directories and no allow rules, with one warning per setting', () => {
    untrusted();
    mkdirSync(join(cwd, 'lib'));
    write(join(cwd, '.claude', 'settings.json'), {
      permissions: { additionalDirectories: ['~', 'lib'], allow: ['Write'], deny: ['Bash(rm *)'] },
    });
    write(join(cwd, '.claude', 'settings.local.json'), { permissions: { additionalDirectories: ['/tmp'] } });
    const s = load();
    expect(s.permissions.additionalDirectories).toEqual([]);
    expect(s.permissions.allow).toEqual([]);
    expect(s.permissions.deny).toEqual(['Bash(rm *)']);
    expect(s.warnings.slice(0, 2)).toEqual([
      expect.stringMatching(
        /^Ignoring 1 permissions.allow entry from .claude\/settings.json: this workspace has not been trusted/,
      ),
      expect.stringMatching(
        /^Ignoring 3 permissions.additionalDirectories entries from .claude\/settings.json and .claude\/settings.local.json: /,
      ),
    ]);
    write(join(home, '.claude.json'), { projects: { [cwd]: { hasTrustDialogAccepted: true } } });
    expect(load().permissions.additionalDirectories).toEqual([home, join(cwd, 'lib'), '/tmp']);
  });
  test("loadSettings: an untrusted project's defaultMode applies (acceptEdits, plan, dontAsk), as in Claude Code; bypassPermissions never", () => {
    untrusted();
    for (const mode of ['acceptEdits', 'plan', 'dontAsk'] as const) {
      write(join(cwd, '.claude', 'settings.json'), { permissions: { defaultMode: mode } });
      expect(load().permissions.defaultMode).toBe(mode);
    }
    write(join(cwd, '.claude', 'settings.json'), { permissions: { defaultMode: 'bypassPermissions' } });
    expect(load().permissions.defaultMode).toBeUndefined();
  });
  test("loadSettings: the user's settings and --settings are not a project's: they widen without trust", () => {
    untrusted();
    write(join(home, '.claude', 'settings.json'), {
      permissions: { allow: ['Bash(git *)'], additionalDirectories: [root] },
    });
    const s = load({ settingsArg: '{"permissions":{"allow":["Read"]}}' });
    expect(s.permissions.allow).toEqual(['Bash(git *)', 'Read']);
    expect(s.permissions.additionalDirectories).toEqual([root]);
  });
  test("projectTrust: in a git repository only the root's record counts", () => {
    spawnSync('git', ['init', '-q'], { cwd });
    const sub = join(cwd, 'sub', 'deeper');
    mkdirSync(sub, { recursive: true });
    const trustOnly = (dir: string): void =>
      write(join(home, '.claude.json'), { projects: { [dir]: { hasTrustDialogAccepted: true } } });
    trustOnly(cwd);
    expect([projectTrust(cwd, {}, home), projectTrust(sub, {}, home)]).toEqual(['trusted', 'trusted']);
    trustOnly(sub);
    expect(projectTrust(sub, {}, home)).toBe('untrusted');
    trustOnly(root); // a parent of the repository
    expect(projectTrust(cwd, {}, home)).toBe('untrusted');
    expect(projectRootOf(sub)).toBe(cwd);
  });
  test('projectTrust: outside a repository the working directory is trusted by its own record; one above trusts its local settings only', () => {
    const sub = join(cwd, 'sub');
    mkdirSync(sub);
    write(join(home, '.claude.json'), { projects: { [cwd]: { hasTrustDialogAccepted: true } } });
    expect(projectTrust(cwd, {}, home)).toBe('trusted');
    expect(projectTrust(sub, {}, home)).toBe('localOnly');
    write(join(sub, '.claude', 'settings.json'), { permissions: { allow: ['Bash(a *)'] } });
    write(join(sub, '.claude', 'settings.local.json'), { permissions: { allow: ['Bash(b *)'] } });
    expect(loadSettings({ cwd: sub, home, env: {} }).permissions.allow).toEqual(['Bash(b *)']);
  });
});

describe('settings discovery from a subdirectory (as claude -p 2.1.328)', () => {
  test("loadSettings: a subdirectory of a repository reads the root's settings.local.json (rules, hooks) but not its settings.json", () => {
    spawnSync('git', ['init', '-q'], { cwd });
    const sub = join(cwd, 'sub', 'deeper');
    mkdirSync(sub, { recursive: true });
    const hooks = { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'true' }] }] };
    write(join(cwd, '.claude', 'settings.local.json'), {
      permissions: { deny: ['Bash(rm *)', 'Read(/secret.txt)'], allow: ['Bash(touch *)'], defaultMode: 'plan' },
      hooks,
    });
    write(join(cwd, '.claude', 'settings.json'), { permissions: { deny: ['Bash(curl *)'] } });
    write(join(sub, '.claude', 'settings.local.json'), {
      permissions: { deny: ['Bash(git push *)'], defaultMode: 'dontAsk' },
    });
    const s = loadSettings({ cwd: sub, home, env: {} });
    expect(s.sources.map((x) => [x.source, x.path])).toEqual([
      ['local', join(cwd, '.claude', 'settings.local.json')],
      ['local', join(sub, '.claude', 'settings.local.json')],
    ]);
    // `/path` rules of the root's file are relative to the root; the subdirectory's file ranks above it.
    expect(s.permissions.deny).toEqual(['Bash(rm *)', `Read(/${cwd}/secret.txt)`, 'Bash(git push *)']);
    expect(s.permissions.allow).toEqual(['Bash(touch *)']);
    expect(s.permissions.defaultMode).toBe('dontAsk');
    expect(s.hooks).toEqual([{ source: 'local', path: join(cwd, '.claude', 'settings.local.json'), hooks }]);
    expect(loadSettings({ cwd: sub, home, env: {}, settingSources: 'user,project' }).sources).toEqual([]);
  });
  test('loadSettings: outside a repository a subdirectory reads only its own files', () => {
    const sub = join(cwd, 'sub');
    mkdirSync(sub);
    write(join(cwd, '.claude', 'settings.local.json'), { permissions: { deny: ['Bash(rm *)'] } });
    expect(loadSettings({ cwd: sub, home, env: {} }).sources).toEqual([]);
  });
});

describe('bad settings name the file and the field', () => {
  test('loadSettings: malformed JSON', () => {
    write(join(cwd, '.claude', 'settings.json'), '{"permissions": {');
    expect(() => load()).toThrow(SettingsError);
    expect(() => load()).toThrow(new RegExp(`${join(cwd, '.claude', 'settings.json')}: not valid JSON`));
  });
  test('loadSettings: a field of the wrong type', () => {
    write(join(cwd, '.claude', 'settings.json'), { permissions: { allow: 'Bash' } });
    expect(() => load()).toThrow(/settings.json: permissions.allow: expected an array of rule strings/);
    write(join(cwd, '.claude', 'settings.json'), { env: { N: 1 } });
    expect(() => load()).toThrow(/settings.json: env.N: expected a string value/);
    write(join(cwd, '.claude', 'settings.json'), { permissions: { defaultMode: 'yolo' } });
    expect(() => load()).toThrow(/permissions.defaultMode: expected one of default, acceptEdits/);
  });
  test('loadSettings: an unknown permission rule syntax', () => {
    write(join(cwd, '.claude', 'settings.json'), { permissions: { deny: ['Bash(rm *)', 'Bash(rm -rf'] } });
    expect(() => load()).toThrow(/settings.json: permissions.deny\[1\]: "Bash\(rm -rf" is not a permission rule/);
  });
  test('loadSettings: --settings that is neither a file nor JSON', () => {
    expect(() => load({ settingsArg: 'nope.json' })).toThrow(/--settings: .*nope.json is not a file/);
    expect(() => load({ settingsArg: '{bad' })).toThrow(/--settings \(inline JSON\): not valid JSON/);
  });
});

describe('settings env is re-read where tools run', () => {
  test('readSettingsEnv: later files win; a file that went bad contributes nothing', async () => {
    const a = join(root, 'a.json');
    const b = join(root, 'b.json');
    const c = join(root, 'c.json');
    write(a, { env: { X: 'a', Y: 'a' } });
    write(b, { env: { Y: 'b' } });
    write(c, '{broken');
    expect(await readSettingsEnv({ files: [a, b, c, join(root, 'gone.json')] })).toEqual({ X: 'a', Y: 'b' });
  });
});

describe('settings files through links (src/config-files/safe-read.ts)', () => {
  test("loadSettings: a project's settings linking out of the project or to /proc are left out with a warning; a link inside it works, its env file is the real path", () => {
    write(join(root, 'elsewhere.json'), { env: { LEAK: 'TOPSECRET' }, permissions: { deny: ['Bash(x)'] } });
    write(join(cwd, 'config', 'local.json'), { env: { C: 'local' } });
    mkdirSync(join(cwd, '.claude'), { recursive: true });
    symlinkSync(join(root, 'elsewhere.json'), join(cwd, '.claude', 'settings.json'));
    symlinkSync(join(cwd, 'config', 'local.json'), join(cwd, '.claude', 'settings.local.json'));
    const s = load();
    expect(s.env).toEqual({ C: 'local' });
    expect(s.permissions.deny).toEqual([]);
    expect(s.envFiles).toEqual([join(cwd, 'config', 'local.json')]);
    expect(s.warnings).toContain(
      `${join(cwd, '.claude', 'settings.json')}: not read: it is a link to ${join(root, 'elsewhere.json')}, which is outside ${cwd}`,
    );
    rmSync(join(cwd, '.claude', 'settings.json'));
    symlinkSync('/proc/self/environ', join(cwd, '.claude', 'settings.json'));
    expect(load().warnings[0]).toMatch(
      /settings\.json: not read: it is a link to \/proc\/\d+\/environ, which is on a kernel file system/,
    );
  });

  test('loadSettings: a FIFO as settings is left out at once; --settings naming an oversized file is a SettingsError', () => {
    mkdirSync(join(cwd, '.claude'), { recursive: true });
    spawnSync('mkfifo', [join(cwd, '.claude', 'settings.json')]);
    expect(load().warnings).toContain(`${join(cwd, '.claude', 'settings.json')}: not read: it is not a regular file`);
    write(join(root, 'big.json'), `{"model": "${'x'.repeat(1024 * 1024)}"}`);
    expect(() => load({ settingsArg: join(root, 'big.json') })).toThrow(
      new SettingsError(`--settings: ${join(root, 'big.json')}: not read: it has more than 1048576 bytes`),
    );
  });

  test('readSettingsEnv: a file that became a link out of its directory, or to /proc, contributes nothing', async () => {
    const dir = join(root, 'proj-settings');
    write(join(dir, 'ok.json'), { env: { OK: '1' } });
    write(join(root, 'other.json'), { env: { LEAK: 'TOPSECRET' } });
    symlinkSync(join(root, 'other.json'), join(dir, 'swapped.json'));
    symlinkSync('/proc/self/environ', join(dir, 'env.json'));
    const files = ['ok.json', 'swapped.json', 'env.json'].map((f) => join(dir, f));
    expect(await readSettingsEnv({ files })).toEqual({ OK: '1' });
  });
});
