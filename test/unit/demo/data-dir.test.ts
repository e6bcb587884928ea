import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DEMO_BASE_DIR, defaultDemoDataDir } from '../../../demo/run-demo';

describe('demo data directory', () => {
  test("defaultDemoDataDir: each checkout gets its own, so one checkout's demo never restarts another's server", () => {
    const a = mkdtempSync(join(tmpdir(), 'dar-checkout-a-'));
    const b = mkdtempSync(join(tmpdir(), 'dar-checkout-b-'));
    expect(defaultDemoDataDir(a)).not.toBe(defaultDemoDataDir(b));
    expect(dirname(defaultDemoDataDir(a))).toBe(DEMO_BASE_DIR);
    expect(defaultDemoDataDir(a)).toMatch(/\/data-[0-9a-f]{12}$/);
  });

  test('defaultDemoDataDir: the same checkout gets the same one, reached by any path to it', () => {
    const a = mkdtempSync(join(tmpdir(), 'dar-checkout-a-'));
    const link = join(mkdtempSync(join(tmpdir(), 'dar-link-')), 'via-link');
    symlinkSync(a, link);
    expect(defaultDemoDataDir(a)).toBe(defaultDemoDataDir(a));
    expect(defaultDemoDataDir(`${a}/`)).toBe(defaultDemoDataDir(a));
    expect(defaultDemoDataDir(link)).toBe(defaultDemoDataDir(a));
  });
});
