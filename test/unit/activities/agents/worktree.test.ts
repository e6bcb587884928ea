/**
 * `agentWorktree` with real git: create is idempotent (a retry, an attempt killed half-way),
 * finish removes an unchanged worktree and its branch, keeps a changed one, and is idempotent.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createAgentWorktree, type AgentWorktree } from '../../../../src/activities/agents/worktree';
import { makeRepo as makeDir } from '../../../helpers/runner-env';

const act = createAgentWorktree();
const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/** A git repository with `files` committed on `main`. */
function makeRepo(files: Record<string, string>): string {
  const dir = makeDir(files);
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'initial');
  return dir;
}

async function create(cwd: string, agentId: string): Promise<AgentWorktree> {
  const r = await act({ op: 'create', cwd, agentId });
  if (r.op !== 'create' || !r.ok) throw new Error(`not created: ${JSON.stringify(r)}`);
  return r.worktree;
}

async function finish(w: AgentWorktree): Promise<boolean> {
  const r = await act({ op: 'finish', worktree: w });
  if (r.op !== 'finish') throw new Error('bad op');
  return r.kept;
}

describe('agentWorktree', () => {
  test('create: <root>/.claude/worktrees/agent-<id> on worktree-agent-<id> from HEAD; a retry gets the same worktree', async () => {
    const repo = makeRepo({ 'a.txt': 'one\n' });
    const root = fs.realpathSync(repo);
    const w = await create(repo, 'a1');
    expect(w.path).toBe(path.join(root, '.claude/worktrees/agent-a1'));
    expect(w.branch).toBe('worktree-agent-a1');
    expect(w.base).toBe(git(repo, 'rev-parse', 'HEAD'));
    expect(git(w.path, 'branch', '--show-current')).toBe('worktree-agent-a1');
    expect(fs.readFileSync(path.join(w.path, 'a.txt'), 'utf8')).toBe('one\n');
    expect(await create(repo, 'a1')).toEqual(w);
    expect(git(w.path, 'status', '--porcelain')).toBe('');
  });

  test('create after a killed attempt: a half-written tree, or a registration without its directory, is made whole', async () => {
    const repo = makeRepo({ 'a.txt': 'one\n', 'b.txt': 'two\n' });
    const w = await create(repo, 'a2');
    fs.rmSync(path.join(w.path, 'b.txt'));
    expect((await create(repo, 'a2')).path).toBe(w.path);
    expect(fs.readFileSync(path.join(w.path, 'b.txt'), 'utf8')).toBe('two\n');
    fs.rmSync(w.path, { recursive: true, force: true });
    expect(await create(repo, 'a2')).toEqual(w);
    expect(git(w.path, 'status', '--porcelain')).toBe('');
  });

  test('create outside a repository: not made, with the tool error', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'no-repo-'));
    const r = await act({ op: 'create', cwd: dir, agentId: 'a3' });
    expect(r).toMatchObject({ op: 'create', ok: false });
  });

  test('finish: unchanged is removed with its branch (twice: the same answer); changed (a new file, a commit) is kept', async () => {
    const repo = makeRepo({ 'a.txt': 'one\n' });
    const same = await create(repo, 'u1');
    expect(await finish(same)).toBe(false);
    expect(fs.existsSync(same.path)).toBe(false);
    expect(git(repo, 'branch', '--list', same.branch)).toBe('');
    expect(await finish(same)).toBe(false);

    const added = await create(repo, 'c1');
    fs.writeFileSync(path.join(added.path, 'b.txt'), 'bee\n');
    expect(await finish(added)).toBe(true);
    expect(await finish(added)).toBe(true);
    expect(fs.readFileSync(path.join(added.path, 'b.txt'), 'utf8')).toBe('bee\n');

    const committed = await create(repo, 'c2');
    fs.writeFileSync(path.join(committed.path, 'c.txt'), 'c\n');
    git(committed.path, 'add', 'c.txt');
    git(committed.path, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'c');
    expect(await finish(committed)).toBe(true);
    // The main checkout is untouched.
    expect(fs.existsSync(path.join(repo, 'b.txt'))).toBe(false);
    expect(git(repo, 'status', '--porcelain', '--', 'a.txt')).toBe('');
  });
});
