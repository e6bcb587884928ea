/**
 * The CLI's memory and session flags: bad input exits 2 before anything starts, naming the file
 * and the field; a 10 MB CLAUDE.md is cut with a warning and never sent whole; --fork-session
 * continues in a new session and leaves the old one as it was.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeRepo, startRunnerEnv } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';
import { runCli } from '../helpers/cli';

/** An environment in which any run would fail: these commands must stop before they connect. */
const offline = { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:1', ANTHROPIC_API_KEY: 'k' };

describe('agent-runner CLI: memory, system prompt files and session flags', () => {
  test('cli: a --system-prompt-file that does not exist exits 2 naming the flag and the file', async () => {
    const repo = makeRepo({});
    for (const flag of ['--system-prompt-file', '--append-system-prompt-file']) {
      const r = await runCli(['-p', 'hi', flag, 'prompts/missing.md', '--cwd', repo], { env: offline, cwd: repo });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${flag}: cannot read ${join(repo, 'prompts/missing.md')}: no such file`);
    }
  });

  test('cli: a memory import cycle exits 2 naming the files, before anything starts', async () => {
    const repo = makeRepo({ 'CLAUDE.md': 'Rules.\n@docs/a.md\n', 'docs/a.md': '@b.md', 'docs/b.md': 'see @a.md' });
    const started = Date.now();
    const r = await runCli(['-p', 'hi', '--cwd', repo], { env: offline });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `memory import cycle in ${join(repo, 'docs/b.md')}: ${join(repo, 'docs/a.md')} imports ${join(repo, 'docs/b.md')} imports ${join(repo, 'docs/a.md')}`,
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    // The project's memory is not read when its source is left out.
    const skipped = await runCli(['-p', 'hi', '--cwd', repo, '--setting-sources', 'user', '--max-turns', '0'], {
      env: offline,
    });
    expect(skipped.stderr).not.toContain('memory import cycle');
  });

  test('cli: an unknown --setting-sources entry, --replay-user-messages without stream-json and --no-session-persistence exit 2', async () => {
    const repo = makeRepo({});
    const bad = await runCli(['-p', 'hi', '--setting-sources', 'user,team', '--cwd', repo], { env: offline });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--setting-sources: unknown source "team"');
    const replay = await runCli(['-p', 'hi', '--replay-user-messages', '--cwd', repo], { env: offline });
    expect(replay.code).toBe(2);
    expect(replay.stderr).toContain('--replay-user-messages requires --input-format stream-json');
    const persist = await runCli(['-p', 'hi', '--no-session-persistence', '--cwd', repo], { env: offline });
    expect(persist.code).toBe(2);
    expect(persist.stderr).toContain('--no-session-persistence is not supported');
  });

  describe('against a configured server', () => {
    let env: RunnerEnv;
    afterEach(async () => env?.close());
    const cliEnv = (): NodeJS.ProcessEnv => ({
      ...env.workerEnv,
      TEMPORAL_ADDRESS: process.env['TEST_TEMPORAL_ADDRESS'],
      CLAUDE_CONFIG_DIR: join(makeRepo({}), 'no-config'),
    });

    test('cli: a 10 MB CLAUDE.md is cut with a warning and never sent whole', async () => {
      env = await startRunnerEnv({ scenario: { steps: [{ content: [{ text: 'ok' }] }] } });
      const repo = makeRepo({});
      writeFileSync(join(repo, 'CLAUDE.md'), `START\n${'memory text lin\n'.repeat(655_360)}END\n`);
      const r = await runCli(['-p', 'hi', '--output-format', 'json', '--cwd', repo], { env: cliEnv() });
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(`agent-runner: memory file ${join(repo, 'CLAUDE.md')} has 10485770 bytes`);
      const [request] = env.fake.requests();
      expect(request?.requestBytes).toBeGreaterThan(100_000);
      expect(request?.requestBytes).toBeLessThan(200_000);
    });

    test('cli: --resume with --fork-session continues in a new session; the old one is unchanged', async () => {
      env = await startRunnerEnv({
        scenario: {
          steps: [{ content: [{ text: 'first' }] }, { expect: { messagesCount: 4 }, content: [{ text: 'forked' }] }],
        },
      });
      const repo = makeRepo({});
      const first = JSON.parse(
        (await runCli(['-p', 'one', '--output-format', 'json', '--cwd', repo], { env: cliEnv() })).stdout,
      );
      const oldFile = join(env.dataDir, 'sessions', `${first.session_id}.jsonl`);
      const before = readFileSync(oldFile, 'utf8');
      const r = await runCli(
        ['-p', 'two', '--resume', first.session_id, '--fork-session', '--output-format', 'json', '--cwd', repo],
        { env: cliEnv() },
      );
      const forked = JSON.parse(r.stdout);
      expect(forked).toMatchObject({ subtype: 'success', result: 'forked' });
      expect(forked.session_id).not.toBe(first.session_id);
      expect(readFileSync(oldFile, 'utf8')).toBe(before);
      // The fork's transcript starts with the old lines, same uuids and chain, under the new id.
      const parse = (text: string): Array<Record<string, unknown>> =>
        text
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as Record<string, unknown>);
      const old = parse(before);
      const copied = parse(readFileSync(join(env.dataDir, 'sessions', `${forked.session_id}.jsonl`), 'utf8'));
      expect(copied.slice(0, old.length)).toEqual(old.map((l) => ({ ...l, sessionId: forked.session_id })));
      expect(copied.length).toBeGreaterThan(old.length);
    });
  });
});
