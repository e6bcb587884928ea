import {
  firstLine,
  flagField,
  parseFrontmatter,
  textField,
  toolListField,
} from '../../../../src/config-files/definitions/frontmatter';

describe('parseFrontmatter', () => {
  it('splits YAML frontmatter from the body', () => {
    const f = parseFrontmatter('---\ndescription: Fix CI\nargument-hint: [topic]\n---\nBody $ARGUMENTS\n');
    expect(f).toEqual({
      data: { description: 'Fix CI', 'argument-hint': ['topic'] },
      body: 'Body $ARGUMENTS\n',
      present: true,
    });
  });
  it('a file without frontmatter is all body', () => {
    expect(parseFrontmatter('Just text.\n')).toEqual({ data: {}, body: 'Just text.\n', present: false });
    expect(parseFrontmatter('---\nnot closed\n')).toMatchObject({ present: false });
  });
  it('invalid YAML falls back to one key: value per line', () => {
    const f = parseFrontmatter('---\ndescription: Fix: the thing: now\nmodel: haiku\n---\nB');
    expect(f.data).toEqual({ description: 'Fix: the thing: now', model: 'haiku' });
    expect(f.body).toBe('B');
  });
});

describe('frontmatter fields', () => {
  it('textField: strings, numbers, lists joined by spaces (argument-hint: [topic] is "topic")', () => {
    expect(textField(' a ')).toBe('a');
    expect(textField(['topic'])).toBe('topic');
    expect(textField(['<file>', '[reason]'])).toBe('<file> [reason]');
    expect(textField(undefined)).toBe('');
  });
  it('toolListField: commas inside parentheses belong to the rule', () => {
    expect(toolListField('Bash(git add:*, git commit:*), Read')).toEqual(['Bash(git add:*, git commit:*)', 'Read']);
    expect(toolListField(['Bash(touch:*)', 'Read'])).toEqual(['Bash(touch:*)', 'Read']);
    expect(toolListField(undefined)).toEqual([]);
  });
  it('flagField and firstLine', () => {
    expect(flagField(true)).toBe(true);
    expect(flagField('true')).toBe(true);
    expect(flagField('no')).toBe(false);
    expect(firstLine('\n# Release notes\n\nmore')).toBe('Release notes');
  });
});
