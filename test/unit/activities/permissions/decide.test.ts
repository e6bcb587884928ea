import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ScopedRules } from '../../../../src/common/permissions';
import type { PermissionMode } from '../../../../src/common/permissions';
import { decideToolPermission } from '../../../../src/activities/permissions/decide';
import { canonicalPathPattern, pathMatches } from '../../../../src/config-files/path-rules';
import { realPathOf } from '../../../../src/activities/permissions/real-path';
import { ruleSyntaxError } from '../../../../src/config-files/permission-rules';

let root: string;
let cwd: string;
let outside: string;
let home: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'decide-'));
  cwd = join(root, 'repo');
  outside = join(root, 'outside');
  home = join(root, 'home');
  for (const d of [cwd, outside, home, join(cwd, 'src'), join(cwd, 'secrets'), join(root, 'extra')]) {
    mkdirSync(d, { recursive: true });
  }
  writeFileSync(join(cwd, 'a.txt'), 'a');
  writeFileSync(join(outside, 'o.txt'), 'o');
  symlinkSync(outside, join(cwd, 'linkdir')); // an intermediate directory leading outside
  symlinkSync(join(outside, 'o.txt'), join(cwd, 'linkfile')); // a file leading outside
  symlinkSync(join(outside, 'new.txt'), join(cwd, 'dangling')); // a link to a file that does not exist yet
  symlinkSync(join(cwd, 'a.txt'), join(outside, 'back-in')); // outside, leading inside
  symlinkSync(cwd, join(outside, 'linkdir-back')); // a directory outside, leading inside
  symlinkSync(join(cwd, 'loop1'), join(cwd, 'loop2'));
  symlinkSync(join(cwd, 'loop2'), join(cwd, 'loop1'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const none: ScopedRules = { allow: [], deny: [], ask: [] };

function decide(
  toolName: string,
  input: Record<string, unknown>,
  mode: PermissionMode,
  rules: Partial<ScopedRules> = {},
  additionalDirectories: string[] = [],
) {
  return decideToolPermission({
    toolName,
    input,
    cwd,
    mode,
    rules: { ...none, ...rules },
    additionalDirectories,
    home,
  });
}

describe('realPathOf: the file a path names', () => {
  test('realPathOf: a symlinked intermediate directory is followed', async () => {
    expect(await realPathOf(join(cwd, 'linkdir', 'o.txt'))).toBe(join(outside, 'o.txt'));
  });
  test('realPathOf: a file that does not exist yet resolves through its existing ancestors', async () => {
    expect(await realPathOf(join(cwd, 'linkdir', 'deep', 'new.txt'))).toBe(join(outside, 'deep', 'new.txt'));
  });
  test('realPathOf: a dangling symlink resolves to the file writing through it would create', async () => {
    expect(await realPathOf(join(cwd, 'dangling'))).toBe(join(outside, 'new.txt'));
  });
  test('realPathOf: a symlink loop is an error, not a hang', async () => {
    await expect(realPathOf(join(cwd, 'loop1'))).rejects.toThrow(/symbolic link/);
  });
});

describe('Monitor: its command is decided as a Bash command', () => {
  test('default mode: a read-only command runs, another is asked about; Monitor and Bash(cmd) rules allow it', async () => {
    expect((await decide('Monitor', { command: 'ls', description: 'd' }, 'default')).behavior).toBe('allow');
    expect((await decide('Monitor', { command: 'touch x; sleep 9', description: 'd' }, 'default')).behavior).toBe(
      'ask',
    );
    expect(
      (await decide('Monitor', { command: 'touch x', description: 'd' }, 'default', { allow: ['Monitor'] })).behavior,
    ).toBe('allow');
    expect(
      (await decide('Monitor', { command: 'touch x', description: 'd' }, 'default', { allow: ['Bash(touch:*)'] }))
        .behavior,
    ).toBe('allow');
    expect(
      (await decide('Monitor', { command: 'touch x', description: 'd' }, 'default', { deny: ['Monitor(touch:*)'] }))
        .behavior,
    ).toBe('deny');
  });
});

describe('the working-directory boundary compares files, not strings', () => {
  test('acceptEdits: a Write inside the working directory runs', async () => {
    expect((await decide('Write', { file_path: join(cwd, 'src', 'n.ts') }, 'acceptEdits')).behavior).toBe('allow');
  });
  test('acceptEdits: a Write through a symlinked directory leading outside is refused as a safety check', async () => {
    const d = await decide('Write', { file_path: join(cwd, 'linkdir', 'x.txt') }, 'acceptEdits');
    expect(d).toMatchObject({ behavior: 'ask', reasonType: 'safetyCheck' });
    expect(d.reason).toContain(join(outside, 'x.txt'));
  });
  test('acceptEdits: an Edit of a symlink to an outside file is refused', async () => {
    expect((await decide('Edit', { file_path: join(cwd, 'linkfile') }, 'acceptEdits')).behavior).not.toBe('allow');
  });
  test('acceptEdits: a Write through a dangling symlink leading outside is refused', async () => {
    expect((await decide('Write', { file_path: join(cwd, 'dangling') }, 'acceptEdits')).behavior).not.toBe('allow');
  });
  test('acceptEdits: a relative path with .. leading outside is refused', async () => {
    expect((await decide('Write', { file_path: '../outside/z.txt' }, 'acceptEdits')).behavior).not.toBe('allow');
  });
  test('acceptEdits: a path outside that resolves inside is inside', async () => {
    expect((await decide('Read', { file_path: join(outside, 'back-in') }, 'acceptEdits')).behavior).toBe('allow');
    expect((await decide('Write', { file_path: join(outside, 'linkdir-back', 'a.txt') }, 'acceptEdits')).behavior).toBe(
      'allow',
    );
  });
  test('a file tool never writes through a link at the file name, whatever its target and the mode (as Claude Code)', async () => {
    for (const mode of ['acceptEdits', 'bypassPermissions'] as const) {
      expect(await decide('Edit', { file_path: join(outside, 'back-in') }, mode)).toMatchObject({
        behavior: 'deny',
        reasonType: 'other',
        basis: 'safety',
        message: `Refusing to write ${join(outside, 'back-in')}: it is a symbolic link. Write to the link's target path instead: ${join(cwd, 'a.txt')}.`,
      });
    }
  });
  test('the decision names the real path it was made on (Write and Edit write only there)', async () => {
    expect(await decide('Write', { file_path: join(outside, 'linkdir-back', 'n.txt') }, 'acceptEdits')).toMatchObject({
      behavior: 'allow',
      resolvedPath: join(cwd, 'n.txt'),
    });
  });
  test('default mode: reads inside run, reads outside (also through symlinks) are asked about', async () => {
    expect((await decide('Read', { file_path: join(cwd, 'a.txt') }, 'default')).behavior).toBe('allow');
    expect(await decide('Read', { file_path: join(outside, 'o.txt') }, 'default')).toMatchObject({
      behavior: 'ask',
      reasonType: 'workingDir',
    });
    expect((await decide('Read', { file_path: join(cwd, 'linkdir', 'o.txt') }, 'default')).behavior).toBe('ask');
    expect((await decide('Glob', { pattern: '*', path: join(cwd, 'linkdir') }, 'default')).behavior).toBe('ask');
    expect((await decide('Grep', { pattern: 'x', path: outside }, 'default')).behavior).toBe('ask');
    expect((await decide('Grep', { pattern: 'x' }, 'default')).behavior).toBe('allow');
  });
  test('dontAsk and plan: what would be asked is denied', async () => {
    expect(await decide('Read', { file_path: join(outside, 'o.txt') }, 'dontAsk')).toMatchObject({ behavior: 'deny' });
    expect(await decide('Write', { file_path: join(cwd, 'n.txt') }, 'dontAsk')).toMatchObject({ behavior: 'deny' });
  });
  test('additional directories (--add-dir) extend the boundary, by real path', async () => {
    const extra = join(root, 'extra');
    expect((await decide('Write', { file_path: join(extra, 'e.txt') }, 'acceptEdits', {}, [extra])).behavior).toBe(
      'allow',
    );
    expect((await decide('Read', { file_path: join(extra, 'e.txt') }, 'default', {}, [extra])).behavior).toBe('allow');
    expect((await decide('Write', { file_path: join(extra, 'e.txt') }, 'acceptEdits')).behavior).toBe('ask');
  });
  test('bypassPermissions: paths anywhere, unless a rule denies them', async () => {
    expect((await decide('Write', { file_path: join(outside, 'x') }, 'bypassPermissions')).behavior).toBe('allow');
    expect(
      (
        await decide('Write', { file_path: join(outside, 'x') }, 'bypassPermissions', {
          deny: [`Edit(/${outside}/**)`],
        })
      ).behavior,
    ).toBe('deny');
  });
  test('a symlink loop is denied', async () => {
    expect(await decide('Read', { file_path: join(cwd, 'loop1') }, 'bypassPermissions')).toMatchObject({
      behavior: 'deny',
      reasonType: 'safetyCheck',
    });
  });
});

describe('path rules for every file tool', () => {
  test('Read(./secrets/**) denies Read, Glob and Grep of the directory, and wins over bypass', async () => {
    const deny = ['Read(./secrets/**)'];
    for (const [tool, input] of [
      ['Read', { file_path: join(cwd, 'secrets', 'k') }],
      ['Glob', { pattern: '*', path: join(cwd, 'secrets') }],
      ['Grep', { pattern: 'x', path: join(cwd, 'secrets', 'k') }],
    ] as const) {
      expect(await decide(tool, input, 'bypassPermissions', { deny })).toMatchObject({
        behavior: 'deny',
        reasonType: 'rule',
        rule: 'Read(./secrets/**)',
      });
    }
  });
  test('a deny rule matches the path as written and as resolved', async () => {
    expect(
      (
        await decide('Read', { file_path: join(cwd, 'linkfile') }, 'bypassPermissions', {
          deny: [`Read(/${outside}/**)`],
        })
      ).behavior,
    ).toBe('deny');
    expect(
      (await decide('Read', { file_path: join(outside, 'back-in') }, 'bypassPermissions', { deny: ['Read(./a.txt)'] }))
        .behavior,
    ).toBe('deny');
  });
  test('Edit(src/**) allows edits under src in default mode; other edits are asked about', async () => {
    const allow = ['Edit(src/**)'];
    expect((await decide('Edit', { file_path: join(cwd, 'src', 'x.ts') }, 'default', { allow })).behavior).toBe(
      'allow',
    );
    expect((await decide('Write', { file_path: join(cwd, 'src', 'new', 'y.ts') }, 'default', { allow })).behavior).toBe(
      'allow',
    );
    expect((await decide('Write', { file_path: join(cwd, 'a.txt') }, 'default', { allow })).behavior).toBe('ask');
  });
  test('an allow rule is matched on the resolved path: a symlink under src leading outside is not under src', async () => {
    symlinkSync(outside, join(cwd, 'src', 'escape'));
    try {
      expect(
        (await decide('Write', { file_path: join(cwd, 'src', 'escape', 'x') }, 'default', { allow: ['Edit(src/**)'] }))
          .behavior,
      ).toBe('ask');
    } finally {
      rmSync(join(cwd, 'src', 'escape'));
    }
  });
  test('Edit(//etc/**) denies an absolute path; Write rules apply to Edit too', async () => {
    expect(
      (await decide('Write', { file_path: '/etc/hosts' }, 'bypassPermissions', { deny: ['Edit(//etc/**)'] })).behavior,
    ).toBe('deny');
    expect(
      (await decide('Edit', { file_path: '/etc/hosts' }, 'bypassPermissions', { deny: ['Write(//etc/**)'] })).behavior,
    ).toBe('deny');
  });
  test('~/ patterns are under the home directory', async () => {
    expect(
      (await decide('Read', { file_path: '~/.ssh/id_rsa' }, 'bypassPermissions', { deny: ['Read(~/.ssh/**)'] }))
        .behavior,
    ).toBe('deny');
  });
  test('an ask rule is asked about (denied headless) even when an allow rule matches too', async () => {
    expect(
      await decide('Edit', { file_path: join(cwd, 'src', 'x.ts') }, 'acceptEdits', {
        allow: ['Edit'],
        ask: ['Edit(src/**)'],
      }),
    ).toMatchObject({ behavior: 'ask', reasonType: 'rule', rule: 'Edit(src/**)' });
  });
});

describe('path patterns', () => {
  test('canonicalPathPattern: the four forms', () => {
    expect(canonicalPathPattern('//etc/**', '/proj', '/cwd')).toBe('//etc/**');
    expect(canonicalPathPattern('~/.ssh/**', '/proj', '/cwd')).toBe('~/.ssh/**');
    expect(canonicalPathPattern('/src/**', '/proj', '/cwd')).toBe('//proj/src/**');
    expect(canonicalPathPattern('./secrets/**', '/proj', '/cwd')).toBe('//cwd/secrets/**');
    expect(canonicalPathPattern('src/**', '/proj', '/cwd')).toBe('//cwd/src/**');
    // gitignore: a pattern without a slash matches at any depth.
    expect(canonicalPathPattern('.env', '/proj', '/cwd')).toBe('//cwd/**/.env');
  });
  test('pathMatches: gitignore semantics (any depth without a slash; a matched directory covers its contents)', () => {
    expect(pathMatches(canonicalPathPattern('.env', '/p', '/cwd'), '/cwd/a/b/.env')).toBe(true);
    expect(pathMatches(canonicalPathPattern('secrets', '/p', '/cwd'), '/cwd/x/secrets/key')).toBe(true);
    expect(pathMatches(canonicalPathPattern('src/*.ts', '/p', '/cwd'), '/cwd/src/a.ts')).toBe(true);
    expect(pathMatches(canonicalPathPattern('src/*.ts', '/p', '/cwd'), '/cwd/lib/src/a.ts')).toBe(false);
    expect(pathMatches(canonicalPathPattern('*.key', '/p', '/cwd'), '/other/x.key')).toBe(false);
  });
  test('ruleSyntaxError: unknown syntax is named; rules of other tools are accepted', () => {
    expect(ruleSyntaxError('Bash(git *')).toMatch(/not a permission rule/);
    expect(ruleSyntaxError('Bash(npm:*:x)')).toMatch(/:\* wildcard must be at the end/);
    expect(ruleSyntaxError('Read(!secrets)')).toMatch(/negated/);
    expect(ruleSyntaxError('Bash git')).toMatch(/not a permission rule/);
    expect(ruleSyntaxError('WebFetch(domain:example.com)')).toBeNull();
    expect(ruleSyntaxError('mcp__github__create_issue')).toBeNull();
    expect(ruleSyntaxError('Edit(src/**)')).toBeNull();
  });
});

describe('acceptEdits: a Bash word that bash expands at run time is never taken for a path inside', () => {
  // The grammar splits `{X,}` into parts; bash turns it into X. Each expansion form below names a
  // file outside the working directory or a protected one, so none may be allowed by the mode.
  const targets = (o: string): string[] => [
    `touch {${o}/b1,}`,
    `touch x{,}{${o}/b2,}`,
    `touch {"${o}/b3",}`,
    `cp a.txt {${o}/b4,}`,
    `rm -rf {${o},}`,
    `mkdir {${o}/d,}`,
    `echo hi > {${o}/b5,}`,
    'cp a.txt {.git/hooks/post-merge,}',
    'echo hi > {.git/config,}',
    'touch {.claude/settings.local.json,}',
    `touch {a..c}${o}`,
    `touch ~root/x`,
    `touch ~+/../outside/x`,
    `touch ~-/x`,
  ];
  test('acceptEdits: every brace or tilde expansion form is refused (asked, which -p denies)', async () => {
    const rows = await Promise.all(
      targets(outside).map(async (command) => ({
        command,
        allowed: (await decide('Bash', { command }, 'acceptEdits')).behavior === 'allow',
      })),
    );
    expect(rows.filter((r) => r.allowed)).toEqual([]);
  });
  test('acceptEdits: braces bash leaves alone (quoted, no comma) stay plain words', async () => {
    for (const command of ['touch "{x,y}"', 'touch {x}', "touch '{a,b}'", 'touch a.txt']) {
      expect({ command, behavior: (await decide('Bash', { command }, 'acceptEdits')).behavior }).toEqual({
        command,
        behavior: 'allow',
      });
    }
  });
});
