import { importPaths, resolveImport } from '../../../src/config-files/memory-imports';

describe('memory imports', () => {
  test('importPaths: @paths in text, in order, each once', () => {
    const md = [
      '# Conventions',
      'See @docs/style.md and @./tests.md for details.',
      '- also @~/shared/rules.md',
      '- and @/etc/team.md, then @docs/style.md again.',
      '',
      '> quoted @quoted.md',
    ].join('\n');
    expect(importPaths(md)).toEqual(['docs/style.md', './tests.md', '~/shared/rules.md', '/etc/team.md', 'quoted.md']);
  });

  test('importPaths: nothing inside code blocks or code spans', () => {
    const md = [
      'Use `@inline.md` literally.',
      '',
      '```',
      '@fenced.md',
      '```',
      '',
      '    @indented.md',
      '',
      '@real.md',
    ].join('\n');
    expect(importPaths(md)).toEqual(['real.md']);
  });

  test('importPaths: e-mail addresses and punctuation are not imports', () => {
    expect(importPaths('Mail me@example.com or @@x; see (@a.md) and @) too.')).toEqual([]);
    expect(importPaths('Read @b.md, then @c.md.')).toEqual(['b.md', 'c.md']);
    expect(importPaths('Escaped @my\\ notes.md here')).toEqual(['my notes.md']);
    expect(importPaths('Anchor @guide.md#setup')).toEqual(['guide.md']);
  });

  test('resolveImport: relative to the importing file, ~ to the home directory, absolute as is', () => {
    expect(resolveImport('docs/a.md', '/repo/sub', '/home/u')).toBe('/repo/sub/docs/a.md');
    expect(resolveImport('../b.md', '/repo/sub', '/home/u')).toBe('/repo/b.md');
    expect(resolveImport('~/c.md', '/repo', '/home/u')).toBe('/home/u/c.md');
    expect(resolveImport('/etc/d.md', '/repo', '/home/u')).toBe('/etc/d.md');
  });
});
