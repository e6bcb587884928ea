import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';

interface Service {
  command?: string[];
  volumes?: string[];
  environment?: Record<string, string>;
}

const compose = parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'deploy', 'compose.yaml'), 'utf8')) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};

/** `volume:path` mounts of a service, as [volume, path]. */
const mounts = (s: Service): Array<[string, string]> =>
  (s.volumes ?? []).map((v) => v.split(':').slice(0, 2) as [string, string]);

describe('deploy/compose.yaml: the rehearsal of several hosts', () => {
  const workers = Object.entries(compose.services).filter(([, s]) => s.command?.includes('worker'));

  test('compose: two worker hosts, each with its own workspaces and data directory', () => {
    expect(workers.map(([n]) => n).sort()).toEqual(['worker-a', 'worker-b']);
    const own = (s: Service, p: string): string | undefined => mounts(s).find(([, at]) => at === p)?.[0];
    const [a, b] = workers.map(([, s]) => s) as [Service, Service];
    expect(own(a, '/workspaces')).not.toBe(own(b, '/workspaces'));
    expect(own(a, '/data')).not.toBe(own(b, '/data'));
  });

  test('compose: every worker and the client see the same remote volume at the same path (a host that takes over can fetch)', () => {
    const remoteOf = (s: Service): string[] =>
      mounts(s)
        .filter(([, at]) => at.endsWith('remote.git'))
        .map((m) => m.join(':'));
    const client = compose.services['client'];
    expect(client).toBeDefined();
    const seen = [...workers.map(([, s]) => remoteOf(s)), remoteOf(client!)];
    for (const r of seen) expect(r).toEqual(['remote:/repos/remote.git']);
    expect(Object.keys(compose.volumes)).toContain('remote');
    // Only worker-a (with the client) sees the client's checkouts.
    expect(mounts(compose.services['worker-b']!).some(([v]) => v === 'repos')).toBe(false);
  });
});
