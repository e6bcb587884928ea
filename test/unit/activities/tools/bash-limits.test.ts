import { BASH_MAX_COMMAND_BYTES, commandTooLong } from '../../../../src/activities/tools/bash-limits';
import { makeSession, text, type TestSession } from './helpers';

let s: TestSession;
beforeEach(async () => {
  s = await makeSession();
});
afterEach(async () => {
  await s.cleanup();
});

describe('Bash command size', () => {
  test('Bash: a 1 MB command is refused with the limit and what to do instead, not spawn E2BIG', async () => {
    const out = await s.run('Bash', { command: `echo ${'x'.repeat(1024 * 1024)}` });
    expect(out.isError).toBe(true);
    expect(text(out)).not.toMatch(/E2BIG/);
    expect(text(out)).toContain('1,048,581 bytes');
    expect(text(out)).toContain(`at most ${BASH_MAX_COMMAND_BYTES.toLocaleString('en-US')} bytes`);
    expect(text(out)).toMatch(/Write the script or its data to a file/);
  });

  test('Bash: a command of exactly the limit (counted in UTF-8 bytes) still runs', async () => {
    const command = `echo ok #${'é'.repeat((BASH_MAX_COMMAND_BYTES - 9) / 2)}`;
    expect(Buffer.byteLength(command)).toBe(BASH_MAX_COMMAND_BYTES);
    const out = await s.run('Bash', { command });
    expect(out.outcome).toBe('ok');
    expect(text(out)).toBe('ok');
    expect(commandTooLong(`${command}x`, 'linux')).not.toBeNull();
  });

  test('Bash: the per-argument limit applies on Linux only', () => {
    expect(commandTooLong('x'.repeat(BASH_MAX_COMMAND_BYTES + 1), 'darwin')).toBeNull();
  });
});
