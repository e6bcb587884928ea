import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPrebuiltBundle, prebuiltBundleDir } from '../../../src/worker/workflow-bundle';

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

/** A package root with a prebuilt bundle whose manifest records `inputs` (path → content). */
function fakeRoot(inputs: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'bundle-'));
  writeFileSync(join(root, 'package.json'), '{}');
  for (const [rel, content] of Object.entries(inputs)) {
    mkdirSync(join(root, rel, '..'), { recursive: true });
    writeFileSync(join(root, rel), content);
  }
  const dir = prebuiltBundleDir(root);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'workflow-bundle.js'), '/* bundle */');
  const recorded = Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, sha(v)]));
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ v: 1, builtAt: '', inputs: recorded }));
  return root;
}

describe('prebuilt workflow bundle', () => {
  const roots: string[] = [];
  afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));
  const make = (inputs: Record<string, string>): string => {
    const r = fakeRoot(inputs);
    roots.push(r);
    return r;
  };

  test('workflow bundle: loaded prebuilt when every input is unchanged', () => {
    const root = make({ 'dist/src/workflows/turn.js': 'a', 'src/workflows/turn.ts': 'b' });
    expect(loadPrebuiltBundle(root)).toEqual({ ok: true, code: '/* bundle */' });
  });

  test('workflow bundle: stale when a compiled input or its TypeScript source changed, naming the file', () => {
    const root = make({ 'dist/src/workflows/turn.js': 'a', 'src/workflows/turn.ts': 'b' });
    writeFileSync(join(root, 'src/workflows/turn.ts'), 'b2');
    expect(loadPrebuiltBundle(root)).toEqual({
      ok: false,
      reason: 'src/workflows/turn.ts changed since the bundle was built',
    });
    const root2 = make({ 'dist/src/workflows/turn.js': 'a' });
    writeFileSync(join(root2, 'dist/src/workflows/turn.js'), 'a2');
    expect(loadPrebuiltBundle(root2).ok).toBe(false);
  });

  test('workflow bundle: a missing compiled input is stale, a missing TypeScript source is not (installed package)', () => {
    const root = make({ 'dist/src/workflows/turn.js': 'a', 'src/workflows/turn.ts': 'b' });
    rmSync(join(root, 'src'), { recursive: true });
    expect(loadPrebuiltBundle(root).ok).toBe(true);
    rmSync(join(root, 'dist/src'), { recursive: true });
    expect(loadPrebuiltBundle(root).ok).toBe(false);
  });

  test('workflow bundle: none prebuilt says how to make one', () => {
    const root = mkdtempSync(join(tmpdir(), 'bundle-'));
    roots.push(root);
    const r = loadPrebuiltBundle(root);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(/npm run build/);
  });

  test('workflow bundle: the one built by npm run build is fresh for this checkout', () => {
    expect(loadPrebuiltBundle()).toMatchObject({ ok: true });
  });
});
