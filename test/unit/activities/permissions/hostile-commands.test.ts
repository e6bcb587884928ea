import { BENIGN, CLAUDE_ASKS, HOSTILE, decideRow, makeTableRepo, meets } from '../../../../bench/hostile-commands';

/**
 * Scoped Bash rules against shell syntax: every hostile command (bench/hostile-commands.ts, rules
 * TABLE_RULES: allow git, npm run test:*, ls; deny touch, rm, curl, reads of ./secrets, edits of
 * /etc) is refused, and a deny rule that certainly applies gives `deny`; what Claude Code asks
 * about although nothing in it is denied (builtins, wrappers, `&`) is asked about; benign ones
 * stay allowed.
 */
describe('hostile commands under scoped Bash rules', () => {
  const repo = makeTableRepo();
  afterAll(() => repo.cleanup());

  test('the table is long', () => {
    expect(HOSTILE.length).toBeGreaterThanOrEqual(100);
  });

  test.each(HOSTILE.map(([command, expected, what]) => [what, command, expected] as const))(
    'decideBash: %s (%j) is %s',
    async (_what, command, expected) => {
      const d = await decideRow(command, repo);
      expect({ command, behavior: d.behavior, ok: meets(d, expected) }).toEqual({
        command,
        behavior: expected === 'block' ? d.behavior : expected,
        ok: true,
      });
    },
  );

  test.each(CLAUDE_ASKS.map(([command, what]) => [what, command] as const))(
    'decideBash: %s (%j) is asked about, as in Claude Code',
    async (_what, command) => {
      const d = await decideRow(command, repo);
      expect({ command, behavior: d.behavior }).toEqual({ command, behavior: 'ask' });
    },
  );

  test.each(BENIGN.map((c) => [c]))('decideBash: benign %j stays allowed', async (command) => {
    const d = await decideRow(command, repo);
    expect({ command, behavior: d.behavior, why: d.behavior === 'allow' ? '' : (d.reason ?? d.message) }).toEqual({
      command,
      behavior: 'allow',
      why: '',
    });
  });
});
