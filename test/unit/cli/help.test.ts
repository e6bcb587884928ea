import type { Command } from 'commander';
import { buildProgram } from '../../../src/cli/main';

/** Every command of the program, the program first. */
function commands(c: Command): Command[] {
  return [c, ...c.commands.flatMap(commands)];
}

describe('--help text', () => {
  test('help: descriptions are paragraphs without manual line breaks (commander wraps them to the terminal width)', () => {
    const program = buildProgram(() => undefined);
    const broken = commands(program)
      .map((c) => ({ name: c.name(), text: c.description() }))
      .filter(({ text }) => /[^\n]\n[^\n]/.test(text));
    expect(broken).toEqual([]);
  });

  test('help: at 80 columns no line of the program description is a stray word left by a double wrap', () => {
    const program = buildProgram(() => undefined);
    program.configureOutput({ getOutHelpWidth: () => 80 });
    const lines = program.helpInformation().split('\n');
    const end = lines.indexOf('Arguments:');
    const description = lines.slice(1, end);
    // A short line is fine at the end of a paragraph (before a blank line), nowhere else.
    description.forEach((l, i) => {
      if (l.trim() !== '' && (description[i + 1] ?? '').trim() !== '') expect(l.length).toBeGreaterThan(40);
    });
  });
});
