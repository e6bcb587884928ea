/**
 * The workflow bundle: built once at build time (`npm run build` runs this module) and loaded
 * prebuilt at run time, so no run pays webpack's 2 s. When the prebuilt bundle is missing or stale
 * (a source it was built from changed since), the workflows are bundled in-process as before, so
 * development and the replay tests always run the current code.
 *
 * Freshness: the build records every file webpack read (the compiled workflows, the pure modules
 * they import, `@temporalio/workflow`, …) with its SHA-256, and, for each compiled `dist/src/X.js`,
 * the TypeScript source `src/X.ts` it came from. Loading re-hashes them (a few ms); one difference
 * makes the bundle stale.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import type { BundleOptions, WorkflowBundle } from '@temporalio/worker';
import { packageRoot } from '../host/package-root';

export { packageRoot };

/** Version of the manifest format; a different one makes the prebuilt bundle stale. */
const MANIFEST_VERSION = 1;

/** `<dist>/workflow-bundle/` next to the compiled `src/` of this package. */
export function prebuiltBundleDir(root: string = packageRoot()): string {
  return path.join(root, 'dist', 'workflow-bundle');
}

interface Manifest {
  v: number;
  builtAt: string;
  /** Package-root-relative path (or absolute, outside the root) → SHA-256 of the content. */
  inputs: Record<string, string>;
}

function sha256(file: string): string | null {
  try {
    return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
  } catch {
    return null;
  }
}

function logger(): NonNullable<BundleOptions['logger']> {
  const quiet = (): void => undefined;
  return {
    trace: quiet,
    debug: quiet,
    info: quiet,
    warn: quiet,
    log: quiet,
    error: (m: string) => console.error(m),
  } as unknown as NonNullable<BundleOptions['logger']>;
}

/** Bundles `workflowsPath` with webpack, returning the code and every file webpack read. */
async function bundleWithInputs(workflowsPath: string): Promise<{ bundle: WorkflowBundle; files: string[] }> {
  const files = new Set<string>();
  const bundle = await bundleWorkflowCode({
    workflowsPath,
    logger: logger(),
    webpackConfigHook: (config) => {
      const plugin = {
        apply(compiler: {
          hooks: { afterCompile: { tap(name: string, fn: (c: { fileDependencies: Iterable<string> }) => void): void } };
        }) {
          compiler.hooks.afterCompile.tap('agent-runner-bundle-inputs', (compilation) => {
            for (const f of compilation.fileDependencies) files.add(f);
          });
        },
      };
      config.plugins = [...(config.plugins ?? []), plugin as never];
      return config;
    },
  });
  return { bundle, files: [...files].filter((f) => path.isAbsolute(f) && fs.existsSync(f) && fs.statSync(f).isFile()) };
}

/**
 * Builds the bundle from the compiled workflows (`dist/src/workflows`) into
 * {@link prebuiltBundleDir}: `workflow-bundle.js` and `manifest.json`.
 * @returns the directory written
 */
export async function buildPrebuiltBundle(root: string = packageRoot()): Promise<string> {
  const workflowsPath = path.join(root, 'dist', 'src', 'workflows', 'index.js');
  const { bundle, files } = await bundleWithInputs(workflowsPath);
  const inputs: Record<string, string> = {};
  for (const f of files) {
    const hash = sha256(f);
    if (hash === null) continue;
    inputs[relativeKey(root, f)] = hash;
    const source = tsSourceOf(root, f);
    if (source) {
      const sourceHash = sha256(source);
      if (sourceHash !== null) inputs[relativeKey(root, source)] = sourceHash;
    }
  }
  const dir = prebuiltBundleDir(root);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'workflow-bundle.js'), bundle.code);
  const manifest: Manifest = { v: MANIFEST_VERSION, builtAt: new Date().toISOString(), inputs };
  fs.writeFileSync(path.join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 1)}\n`);
  return dir;
}

/** `src/X.ts` for a compiled `dist/src/X.js` (when it exists), else null. */
function tsSourceOf(root: string, file: string): string | null {
  const rel = path.relative(path.join(root, 'dist'), file);
  if (rel.startsWith('..') || !rel.endsWith('.js')) return null;
  const ts = path.join(root, rel.replace(/\.js$/, '.ts'));
  return fs.existsSync(ts) ? ts : null;
}

function relativeKey(root: string, file: string): string {
  const rel = path.relative(root, file);
  return rel.startsWith('..') ? file : rel.split(path.sep).join('/');
}

/** Why a prebuilt bundle cannot be used, or its code. */
export type PrebuiltBundle = { ok: true; code: string } | { ok: false; reason: string };

/**
 * The prebuilt bundle if it is there and every input it was built from is unchanged. A recorded
 * TypeScript source that is absent (an installed package ships only `dist`) is not a change.
 */
export function loadPrebuiltBundle(root: string = packageRoot()): PrebuiltBundle {
  const dir = prebuiltBundleDir(root);
  let manifest: Manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
  } catch {
    return { ok: false, reason: `no prebuilt bundle in ${dir} (npm run build makes one)` };
  }
  if (manifest.v !== MANIFEST_VERSION) return { ok: false, reason: `manifest version ${manifest.v}` };
  for (const [key, hash] of Object.entries(manifest.inputs)) {
    const file = path.isAbsolute(key) ? key : path.join(root, key);
    const isSource = key.endsWith('.ts') && !key.endsWith('.d.ts');
    const now = sha256(file);
    if (now === null && isSource) continue;
    if (now !== hash) return { ok: false, reason: `${key} changed since the bundle was built` };
  }
  try {
    return { ok: true, code: fs.readFileSync(path.join(dir, 'workflow-bundle.js'), 'utf8') };
  } catch (e) {
    return { ok: false, reason: (e as Error).message };
  }
}

let bundlePromise: Promise<WorkflowBundle> | undefined;

/**
 * The workflow bundle, once per process: the prebuilt one when fresh, else bundled now from
 * `src/workflows` (webpack takes seconds). Set `AGENT_RUNNER_BUNDLE=fresh` to always bundle.
 */
export function workflowBundle(): Promise<WorkflowBundle> {
  bundlePromise ??= (async () => {
    if (process.env['AGENT_RUNNER_BUNDLE'] !== 'fresh') {
      const prebuilt = loadPrebuiltBundle();
      if (prebuilt.ok) return { code: prebuilt.code };
    }
    const { bundle } = await bundleWithInputs(require.resolve('../workflows'));
    return { code: bundle.code };
  })();
  return bundlePromise;
}

if (require.main === module) {
  const started = Date.now();
  buildPrebuiltBundle().then(
    (dir) => process.stderr.write(`workflow bundle written to ${dir} in ${Date.now() - started} ms\n`),
    (e: unknown) => {
      process.stderr.write(`cannot build the workflow bundle: ${e instanceof Error ? e.stack : String(e)}\n`);
      process.exit(1);
    },
  );
}
