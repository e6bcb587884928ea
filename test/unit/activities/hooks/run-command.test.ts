import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runHookCommand } from '../../../../src/activities/hooks/run-command';

const cwd = mkdtempSync(join(tmpdir(), 'hook-cmd-'));

describe('runHookCommand', () => {
  it('runs in the project directory with the JSON on stdin and CLAUDE_PROJECT_DIR, without the runner secrets', async () => {
    const r = await runHookCommand('cat; echo "|$CLAUDE_PROJECT_DIR|$(pwd)|${ANTHROPIC_API_KEY:-none}|$KEEP"', {
      cwd,
      input: { hook_event_name: 'Stop' },
      env: { PATH: process.env['PATH'], ANTHROPIC_API_KEY: 'sk-secret', KEEP: 'kept' },
    });
    expect(r).toMatchObject({ exitCode: 0, timedOut: false });
    expect(r.stdout).toBe(`{"hook_event_name":"Stop"}|${cwd}|${cwd}|none|kept\n`);
  });
  it('reports the exit code and stderr, and kills a command past its timeout', async () => {
    expect(await runHookCommand('echo no >&2; exit 2', { cwd, input: {} })).toMatchObject({
      exitCode: 2,
      stderr: 'no\n',
    });
    const slow = await runHookCommand('sleep 30', { cwd, input: {}, timeoutSec: 0.3 });
    expect(slow).toMatchObject({ exitCode: null, timedOut: true });
    expect(slow.durationMs).toBeLessThan(5000);
  });
});
