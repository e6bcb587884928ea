/**
 * Git snapshots of a working tree, taken and restored with plumbing only:
 *
 * - **Taking**: a private index (`<git dir>/agent-runner/index-<session>`) starts from the base
 *   commit's tree; `git add -A` with `GIT_INDEX_FILE` pointing at it records tracked and
 *   untracked files (honouring `.gitignore`); `write-tree` and `commit-tree` (parent: the base)
 *   make the snapshot commit. The user's index, HEAD and branches are never touched; only
 *   objects are added to the repository's object database.
 * - **Storing**: `pack-objects` of the objects reachable from the snapshot but not from the
 *   base, streamed into the store under the tool call's key (bounded by the snapshot limit).
 * - **Restoring**: clone the origin (remote URL or the stored bundle) without checkout, check out
 *   the base (detached), `index-pack` the snapshot's pack, `read-tree -u --reset` the snapshot,
 *   then `reset` the index to the base: the tree equals the snapshot, and `git status` shows the
 *   agent's changes as the origin host did.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ContentTooLargeError } from '../../store/content';
import type { TranscriptStore } from '../../store/transcript-store';
import { BUNDLE_KEY, snapshotKey, type SnapshotRef } from '../../common/workspace';
import { AGENT_WORKTREES_DIR } from '../agents/worktree';
import { git, gitStream, gitText } from './git';

/** Fixed identity and dates: the same tree on the same base gives the same snapshot commit. */
const COMMIT_ENV: NodeJS.ProcessEnv = {
  GIT_AUTHOR_NAME: 'agent-runner',
  GIT_AUTHOR_EMAIL: 'agent-runner@localhost',
  GIT_AUTHOR_DATE: '2000-01-01T00:00:00Z',
  GIT_COMMITTER_NAME: 'agent-runner',
  GIT_COMMITTER_EMAIL: 'agent-runner@localhost',
  GIT_COMMITTER_DATE: '2000-01-01T00:00:00Z',
};

/** Thrown when a snapshot's pack is larger than the limit; nothing is stored. */
export class SnapshotTooLargeError extends Error {
  override readonly name = 'SnapshotTooLargeError';
  constructor(
    readonly limitBytes: number,
    readonly seenBytes: number,
    readonly where: string,
  ) {
    super(
      `the workspace snapshot is larger than workspace.maxSnapshotBytes (${limitBytes} bytes; at least ${seenBytes}): ` +
        `the working tree at ${where} is intact and its last snapshot is kept; raise the limit, or remove large ` +
        'generated files from the tree (or add them to .gitignore), then resume the session',
    );
  }
}

/** The repository around `cwd`: its root and HEAD commit; null when `cwd` is not in a work tree or has no commit. */
export async function repoOf(cwd: string): Promise<{ root: string; head: string } | null> {
  if (!fs.existsSync(cwd)) return null;
  let root: string;
  try {
    root = await gitText(['rev-parse', '--show-toplevel'], { cwd });
  } catch {
    return null;
  }
  const head = (await git(['rev-parse', '--verify', '-q', 'HEAD^{commit}'], { cwd, okCodes: [1] })).stdout
    .toString()
    .trim();
  return head ? { root, head } : null;
}

/** Tree id of the working tree at `root` (tracked + untracked, `.gitignore` honoured), via a private index. */
export async function workingTree(root: string, base: string, sessionId: string): Promise<string> {
  const gitDir = await gitText(['rev-parse', '--absolute-git-dir'], { cwd: root });
  const dir = path.join(gitDir, 'agent-runner');
  fs.mkdirSync(dir, { recursive: true });
  const env = { GIT_INDEX_FILE: path.join(dir, `index-${sessionId}`) };
  if (!fs.existsSync(env.GIT_INDEX_FILE)) await git(['read-tree', base], { cwd: root, env });
  // Agents' worktrees are their own trees (each followed by its agent's ref), not the session's.
  await git(['add', '-A', '--', '.', `:(exclude)${AGENT_WORKTREES_DIR}`], { cwd: root, env });
  return gitText(['write-tree'], { cwd: root, env });
}

/** The snapshot commit of `tree` on `base` (deterministic). */
export async function snapshotCommit(root: string, base: string, tree: string): Promise<string> {
  return gitText(['commit-tree', tree, '-p', base, '-m', 'agent-runner workspace snapshot'], {
    cwd: root,
    env: COMMIT_ENV,
  });
}

/** Tree id of a commit. */
export async function treeOf(root: string, commit: string): Promise<string> {
  return gitText(['rev-parse', `${commit}^{tree}`], { cwd: root });
}

/**
 * Takes a snapshot of the working tree at `root` and stores its pack under the tool call's key
 * (first writer wins: a retried attempt gets the stored snapshot back).
 * @throws SnapshotTooLargeError when the pack is over `maxBytes` (nothing is stored).
 */
export async function storeSnapshot(opts: {
  store: TranscriptStore;
  sessionId: string;
  toolUseId: string;
  root: string;
  base: string;
  maxBytes: number;
}): Promise<SnapshotRef> {
  const { store, sessionId, toolUseId, root, base } = opts;
  const tree = await workingTree(root, base, sessionId);
  const commit = await snapshotCommit(root, base, tree);
  const pack = gitStream(['pack-objects', '--stdout', '--revs', '-q'], { cwd: root, input: `${commit}\n^${base}\n` });
  try {
    const put = await store.putContent(sessionId, snapshotKey(toolUseId), pack.stdout, { maxBytes: opts.maxBytes });
    if (put.created) await pack.done;
    else pack.kill();
    return { toolUseId, commit, bytes: put.size };
  } catch (err) {
    pack.kill();
    await pack.done.catch(() => undefined);
    if (err instanceof ContentTooLargeError) throw new SnapshotTooLargeError(opts.maxBytes, err.seenBytes, root);
    throw err;
  }
}

/** Version (`v`) of a session's workspace origin record. */
export const ORIGIN_VERSION = 1;

/** Where another host gets the base from. */
export interface Origin {
  v: 1;
  /** Repository root on the origin host. */
  repoRoot: string;
  /** The working directory relative to the repository root ('' for the root). */
  cwdRel: string;
  baseCommit: string;
  /** The `origin` remote's URL when it holds the base commit; null = the stored bundle. */
  remoteUrl: string | null;
  /** Host the origin was recorded on. */
  host: string;
  recordedAt: string;
}

/**
 * Describes the repository around `cwd` as an origin: its `origin` remote when a remote-tracking
 * branch contains the base commit (another host can fetch it), else a `git bundle` of HEAD
 * stored in the store.
 */
export async function recordOrigin(
  store: TranscriptStore,
  sessionId: string,
  cwd: string,
  repo: { root: string; head: string },
): Promise<Origin> {
  const url = (await git(['remote', 'get-url', 'origin'], { cwd: repo.root, okCodes: [2, 128] })).stdout
    .toString()
    .trim();
  let remoteUrl: string | null = null;
  if (url) {
    const containing = await gitText(['branch', '-r', '--contains', repo.head, '--format=%(refname)'], {
      cwd: repo.root,
    });
    if (containing.split('\n').some((r) => r.startsWith('refs/remotes/origin/')))
      remoteUrl = absoluteUrl(url, repo.root);
  }
  if (remoteUrl === null) {
    const bundle = gitStream(['bundle', 'create', '-q', '-', 'HEAD'], { cwd: repo.root });
    try {
      const put = await store.putContent(sessionId, BUNDLE_KEY, bundle.stdout);
      if (put.created) await bundle.done;
      else bundle.kill();
    } catch (err) {
      bundle.kill();
      throw err;
    }
  }
  return {
    v: ORIGIN_VERSION,
    repoRoot: repo.root,
    cwdRel: path.relative(repo.root, fs.realpathSync(cwd)),
    baseCommit: repo.head,
    remoteUrl,
    host: os.hostname(),
    recordedAt: new Date().toISOString(),
  };
}

/** A remote given as a relative path is made absolute (it must work from another directory). */
function absoluteUrl(url: string, root: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) || /^[^/]+@[^:]+:/.test(url) || path.isAbsolute(url)) return url;
  return path.resolve(root, url);
}

/**
 * Creates the working tree of `origin` plus `snapshot` at `dir` (replaced if it exists): HEAD at
 * the base commit (detached), files as in the snapshot.
 * @throws Error (GitError) when the origin cannot be fetched or a stored part is missing.
 */
export async function materialize(opts: {
  store: TranscriptStore;
  sessionId: string;
  origin: Origin;
  snapshot: SnapshotRef | null;
  dir: string;
}): Promise<void> {
  const { store, sessionId, origin, snapshot, dir } = opts;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const parent = path.dirname(dir);
  if (origin.remoteUrl !== null) {
    await git(['clone', '--quiet', '--no-checkout', origin.remoteUrl, dir], { cwd: parent });
  } else {
    const bundle = await store.openContent(sessionId, BUNDLE_KEY);
    if (!bundle)
      throw new Error(`session ${sessionId} has no stored bundle (${BUNDLE_KEY}) to rebuild its workspace from`);
    const tmp = path.join(parent, `.bundle-${randomBytes(6).toString('hex')}`);
    try {
      const out = fs.createWriteStream(tmp);
      for await (const chunk of bundle) {
        if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
      }
      await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
      await git(['clone', '--quiet', '--no-checkout', tmp, dir], { cwd: parent });
      await git(['remote', 'remove', 'origin'], { cwd: dir });
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  }
  await git(['checkout', '--quiet', '--detach', origin.baseCommit], { cwd: dir });
  if (snapshot) {
    const pack = await store.openContent(sessionId, snapshotKey(snapshot.toolUseId));
    if (!pack) throw new Error(`session ${sessionId} has no stored snapshot ${snapshotKey(snapshot.toolUseId)}`);
    await git(['index-pack', '--stdin'], { cwd: dir, input: pack });
    await git(['read-tree', '-u', '--reset', snapshot.commit], { cwd: dir });
    await git(['reset', '-q', origin.baseCommit], { cwd: dir });
  }
}
