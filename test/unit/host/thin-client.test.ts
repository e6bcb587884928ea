import { homedir } from 'node:os';
import { join } from 'node:path';
import { lostRunHint, ownSocket, spareDataDir, spareEligible } from '../../../src/host/thin-client';

const argv = (...args: string[]): string[] => ['node', 'agent-runner', ...args];

describe('thin client', () => {
  test('spareEligible: -p and --print runs that use the shared server', () => {
    expect(spareEligible(argv('-p', 'hi'), {})).toBe(true);
    expect(spareEligible(argv('--print', 'hi', '--output-format', 'json'), {})).toBe(true);
    expect(spareEligible(argv('-p', 'hi'), { AGENT_RUNNER_NO_DAEMON: '0' })).toBe(true);
  });

  test('spareEligible: control commands that only talk to a running server', () => {
    for (const c of ['status', 'list', 'interrupt', 'limits', 'approvals', 'pool']) {
      expect(spareEligible(argv(c, 'x'), {})).toBe(true);
    }
    expect(spareEligible(argv('status', '--help'), {})).toBe(false);
  });

  test('spareEligible: not other commands, --help, --version, --no-daemon or AGENT_RUNNER_NO_DAEMON', () => {
    expect(spareEligible(argv('server'), {})).toBe(false);
    expect(spareEligible(argv('server', 'stop'), {})).toBe(false);
    expect(spareEligible(argv('batch', 'tasks.jsonl'), {})).toBe(false);
    expect(spareEligible(argv('worker'), {})).toBe(false);
    expect(spareEligible(argv('-p', 'hi', '--help'), {})).toBe(false);
    expect(spareEligible(argv('-p', '--version'), {})).toBe(false);
    expect(spareEligible(argv('-p', 'hi', '--no-daemon'), {})).toBe(false);
    expect(spareEligible(argv('-p', 'hi'), { AGENT_RUNNER_NO_DAEMON: '1' })).toBe(false);
    // Never a command that runs on, wherever -p stands.
    expect(spareEligible(argv('-p', 'server', 'stop'), {})).toBe(false);
    expect(spareEligible(argv('batch', '-p'), {})).toBe(false);
    // After `--`, `-p` is an argument, not the flag.
    expect(spareEligible(argv('batch', '--', '-p'), {})).toBe(false);
  });

  test('spareDataDir: AGENT_RUNNER_DATA_DIR (with ~ and relative paths) or ~/.agent-runner', () => {
    expect(spareDataDir({ HOME: '/h' }, '/cwd')).toBe('/h/.agent-runner');
    expect(spareDataDir({ HOME: '/h', AGENT_RUNNER_DATA_DIR: '~/d' }, '/cwd')).toBe('/h/d');
    expect(spareDataDir({ HOME: '/h', AGENT_RUNNER_DATA_DIR: 'rel' }, '/cwd')).toBe('/cwd/rel');
    expect(spareDataDir({}, '/cwd')).toBe(join(homedir(), '.agent-runner'));
  });
});

describe('thin client: which socket it trusts', () => {
  test('ownSocket: a socket this user owns; not a plain file, a missing path, or a socket of another user', async () => {
    const { createServer } = await import('node:net');
    const { mkdtempSync, writeFileSync, chownSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'dar-sock-'));
    const sock = join(dir, 'client.sock');
    const server = createServer();
    await new Promise<void>((r) => server.listen(sock, r));
    try {
      expect(ownSocket(sock)).toBe(true);
      writeFileSync(join(dir, 'file'), '');
      expect(ownSocket(join(dir, 'file'))).toBe(false);
      expect(ownSocket(join(dir, 'missing'))).toBe(false);
      // A directory others may write (not sticky): someone could swap the socket; not trusted.
      const { chmodSync } = await import('node:fs');
      chmodSync(dir, 0o777);
      expect(ownSocket(sock)).toBe(false);
      chmodSync(dir, 0o1777);
      expect(ownSocket(sock)).toBe(true);
      chmodSync(dir, 0o700);
      if (process.getuid?.() === 0) {
        chownSync(sock, 65534, 65534); // as root, hand it to nobody: no longer ours
        expect(ownSocket(sock)).toBe(false);
      }
    } finally {
      server.close();
    }
  });
});

describe('thin client: a spare that dies mid-command', () => {
  test('lostRunHint: a -p run is told its turn goes on in the server and how to find it; a control command is not', () => {
    expect(lostRunHint(['-p', 'fix the tests'])).toMatch(
      /goes on in the server.*agent-runner list.*agent-runner attach <session>/,
    );
    expect(lostRunHint(['--print', 'x'])).toMatch(/agent-runner attach/);
    expect(lostRunHint(['status', 'abc'])).toBe('');
  });
});
