import { tmpdir } from 'node:os';
import { declineReason, leftovers } from '../../../src/host/spare-client';
import type { RunHeader } from '../../../src/host/spare-protocol';
import { SPARE_PROTOCOL_VERSION } from '../../../src/host/spare-protocol';
import { RUNNER_VERSION } from '../../../src/common/version';

const header = (over: Partial<RunHeader> = {}): RunHeader => ({
  t: 'run',
  v: SPARE_PROTOCOL_VERSION,
  version: RUNNER_VERSION,
  root: '/pkg',
  argv: ['node', 'agent-runner', '-p', 'hi'],
  cwd: tmpdir(),
  env: {},
  umask: 0o022,
  tty: { stdin: false, stdout: false, stderr: false },
  columns: null,
  ...over,
});

describe('spare client', () => {
  test('declineReason: runs a header of its own version, install and a reachable cwd', () => {
    expect(declineReason(header(), '/pkg')).toBeNull();
  });

  test('declineReason: declines another protocol, version or install, and a cwd it cannot enter', () => {
    expect(declineReason(header({ v: SPARE_PROTOCOL_VERSION + 1 }), '/pkg')).toMatch(/protocol/);
    expect(declineReason(header({ version: '0.0.0-other' }), '/pkg')).toMatch(/version/);
    expect(declineReason(header({ root: '/elsewhere' }), '/pkg')).toMatch(/another install/);
    expect(declineReason(header({ cwd: '/no/such/dir' }), '/pkg')).toMatch(/cannot reach/);
  });

  test('leftovers: a run that left a listener or a live handle is named; one that left nothing is not', () => {
    const clean = { listeners: { SIGINT: 0, exit: 1 }, resources: { TTYWrap: 1 } };
    expect(leftovers(clean, { listeners: { SIGINT: 0, exit: 1 }, resources: { TTYWrap: 1 } })).toBeNull();
    expect(leftovers(clean, { listeners: { SIGINT: 1, exit: 1 }, resources: { TTYWrap: 1 } })).toMatch(/SIGINT/);
    expect(
      leftovers(clean, { listeners: { SIGINT: 0, exit: 1 }, resources: { TTYWrap: 1, TCPSocketWrap: 1 } }),
    ).toMatch(/TCPSocketWrap 0 → 1/);
    // Fewer handles than before (a closed one) is fine.
    expect(leftovers(clean, { listeners: { SIGINT: 0, exit: 1 }, resources: {} })).toBeNull();
  });
});
