import {
  hasArgumentPlaceholder,
  splitArguments,
  substituteArguments,
} from '../../../../src/config-files/definitions/arguments';

describe('splitArguments', () => {
  it.each([
    ['src/math.js "two words" third', ['src/math.js', 'two words', 'third']],
    ["a 'b c' d\\ e", ['a', 'b c', 'd e']],
    ['  spaced   out  ', ['spaced', 'out']],
    ['"" empty', ['', 'empty']],
    ['', []],
  ])('splits %j like a shell', (text, words) => {
    expect(splitArguments(text)).toEqual(words);
  });
});

describe('substituteArguments', () => {
  const body =
    'Fix CI for $1 (reason: $2; third: $3; fourth: $4).\nZero-based: $0. All arguments: $ARGUMENTS. Indexed: $ARGUMENTS[0] and $ARGUMENTS[1].\n';
  it('fills $n and $ARGUMENTS[n] counted from zero, $ARGUMENTS as typed, and leaves placeholders past the last argument (Claude Code 2.1.328)', () => {
    expect(substituteArguments(body, 'src/math.js "two words" third')).toBe(
      'Fix CI for two words (reason: third; third: $3; fourth: $4).\nZero-based: src/math.js. All arguments: src/math.js "two words" third. Indexed: src/math.js and two words.\n',
    );
    expect(substituteArguments(body, 'src/math.js')).toContain('Indexed: src/math.js and $ARGUMENTS[1].');
  });
  it('appends the arguments to a body without placeholders, and nothing without arguments', () => {
    expect(substituteArguments('A body without placeholders.\n', 'ignored words')).toBe(
      'A body without placeholders.\n\n\nARGUMENTS: ignored words',
    );
    expect(substituteArguments('User body of both.\n', '')).toBe('User body of both.\n');
  });
  it('hasArgumentPlaceholder: any of the three forms', () => {
    expect(hasArgumentPlaceholder('x $ARGUMENTS')).toBe(true);
    expect(hasArgumentPlaceholder('x $2')).toBe(true);
    expect(hasArgumentPlaceholder('x $ARGUMENTS[3]')).toBe(true);
    expect(hasArgumentPlaceholder('costs $ and more')).toBe(false);
  });
});
