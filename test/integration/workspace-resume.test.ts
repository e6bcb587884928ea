/**
 * Where a resumed turn runs (docs/deploy.md "Where a turn runs"): a session's working tree that
 * is still on its host is used in place, as the user has it (uncommitted, untracked and the
 * user's own edits between turns included); a tree whose host is gone is rebuilt from exactly
 * the last snapshot, and the result says it moved.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SDKResultMessage } from '../../src/common/sdk-messages';
import { exportWorkspace } from '../../src/activities/workspace/export';
import type { StepSpec } from '../../src/fake-model/scenario';
import { startRunnerEnv, type RunnerEnv } from '../helpers/runner-env';

function gitIn(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' }).trim();
}

/** `git status --porcelain` lines, sorted. */
function statusOf(cwd: string): string[] {
  return execFileSync('git', ['status', '--porcelain'], { cwd, encoding: 'utf8' }).split('\n').filter(Boolean).sort();
}

/** A committed repository, then a modified tracked file and an untracked one (not committed). */
function dirtyRepo(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dar-wsr-')));
  fs.writeFileSync(path.join(dir, 'a.txt'), 'hi\n');
  fs.writeFileSync(path.join(dir, '.gitignore'), '*.log\n');
  gitIn(dir, 'init', '-q', '-b', 'main');
  gitIn(dir, 'add', '-A');
  gitIn(dir, 'commit', '-q', '-m', 'i');
  fs.appendFileSync(path.join(dir, 'a.txt'), 'mod\n');
  fs.mkdirSync(path.join(dir, 'notes'));
  fs.writeFileSync(path.join(dir, 'notes', 'untracked.md'), 'not committed\n');
  return dir;
}

/** Files git would carry (tracked and untracked, .gitignore honoured) → content. */
function treeOf(dir: string): Record<string, string> {
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: dir, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f && fs.existsSync(path.join(dir, f)));
  const out: Record<string, string> = {};
  for (const f of files.sort()) out[f] = fs.readFileSync(path.join(dir, f), 'utf8');
  return out;
}

/** The model runs the Bash command named in the prompt (`run: <command>`), then answers. */
function bashOf(prompt: string): string | null {
  const m = /run: (.*)$/m.exec(prompt);
  return m ? m[1]! : null;
}

describe('workspace: where a resumed turn runs', () => {
  let env: RunnerEnv;

  beforeAll(async () => {
    env = await startRunnerEnv({
      responder: (req, ctx): StepSpec => {
        // The blocks since the model's last answer: the prompt and its context, or tool results.
        const blocks: Array<{ type: string; text?: string }> = [];
        for (let i = req.messages.length - 1; i >= 0 && req.messages[i]!.role !== 'assistant'; i--) {
          const content = req.messages[i]!.content;
          blocks.unshift(
            ...((typeof content === 'string' ? [{ type: 'text', text: content }] : content) as typeof blocks),
          );
        }
        const cmd = bashOf(blocks.map((b) => (b.type === 'text' ? (b.text ?? '') : '')).join('\n'));
        if (cmd && !blocks.some((b) => b.type === 'tool_result')) {
          return { content: [{ tool_use: { name: 'Bash', input: { command: cmd } } }] };
        }
        return { content: [{ text: `done ${ctx.step}` }] };
      },
    });
  });
  afterAll(async () => {
    await env?.close();
  });

  /** One `-p`-like turn: a session workflow that ends after it (a later resume rebuilds it from the store). */
  async function turn(cwd: string, prompt: string, sessionId?: string): Promise<SDKResultMessage> {
    const engine = env.engine({ cwd, ...(sessionId ? { sessionId } : {}) });
    const { result } = await env.runTurn(engine, prompt);
    await engine.endAndWait();
    return result;
  }

  const copyDir = (sessionId: string): string => path.join(env.dataDir, 'workspaces', sessionId);

  test('workspace: a dirty repository resumed in place stays in place, with its uncommitted and untracked files', async () => {
    const repo = dirtyRepo();
    const first = await turn(repo, 'start\nrun: echo one > turn1.txt');
    expect(first.subtype).toBe('success');
    const sid = first.session_id;
    expect(first.workspace).toMatchObject({ path: repo, moves: 0 });

    const second = await turn(repo, 'continue\nrun: pwd > where.txt && touch resumed_marker', sid);
    expect(second.subtype).toBe('success');
    expect(second.workspace).toMatchObject({ path: repo, moves: 0 });
    expect(second.workspace?.moved_from).toBeUndefined();
    expect(fs.existsSync(copyDir(sid))).toBe(false);
    expect(treeOf(repo)).toEqual({
      '.gitignore': '*.log\n',
      'a.txt': 'hi\nmod\n',
      'notes/untracked.md': 'not committed\n',
      resumed_marker: '',
      'turn1.txt': 'one\n',
      'where.txt': `${repo}\n`,
    });
    // The user's index and HEAD are untouched: the changes are still uncommitted.
    expect(statusOf(repo)).toContain(' M a.txt');
  });

  test("workspace: the user's own edits between turns are kept in place and become the last snapshot", async () => {
    const repo = dirtyRepo();
    const first = await turn(repo, 'start');
    const sid = first.session_id;
    fs.appendFileSync(path.join(repo, 'a.txt'), 'user edit\n');
    fs.writeFileSync(path.join(repo, 'user.txt'), 'by hand\n');
    fs.rmSync(path.join(repo, 'notes'), { recursive: true });

    const second = await turn(repo, 'continue', sid);
    expect(second.workspace).toMatchObject({ path: repo, moves: 0 });
    expect(second.workspace?.last_snapshot?.tool_use_id).toMatch(/^changes-[0-9a-f]{40}$/);
    expect(fs.existsSync(copyDir(sid))).toBe(false);
    const want = { '.gitignore': '*.log\n', 'a.txt': 'hi\nmod\nuser edit\n', 'user.txt': 'by hand\n' };
    expect(treeOf(repo)).toEqual(want);
    // The store has them: the tree rebuilt elsewhere is the user's.
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dar-wsr-export-')), 'tree');
    await exportWorkspace(env.store, sid, out);
    expect(treeOf(out)).toEqual(want);
  });

  test('workspace: resumed from another directory, the turn runs there (as claude -p does) and the repository is untouched', async () => {
    const repo = dirtyRepo();
    const sid = (await turn(repo, 'start')).session_id;
    const before = treeOf(repo);
    const elsewhere = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dar-wsr-other-')));

    const second = await turn(elsewhere, 'continue\nrun: pwd > where.txt && touch resumed_marker', sid);
    expect(second.subtype).toBe('success');
    expect(second.workspace).toBeUndefined();
    expect(fs.readFileSync(path.join(elsewhere, 'where.txt'), 'utf8')).toBe(`${elsewhere}\n`);
    expect(fs.existsSync(path.join(elsewhere, 'resumed_marker'))).toBe(true);
    expect(treeOf(repo)).toEqual(before);
    expect(fs.existsSync(copyDir(sid))).toBe(false);

    // Back in the repository, the session's workspace is followed again, in place.
    const third = await turn(repo, 'again', sid);
    expect(third.workspace).toMatchObject({ path: repo, moves: 0 });
  });

  test.each([
    ['a resumed session (rebuilt from the store)', true],
    ['a live session (its workflow still running)', false],
  ])(
    'workspace: a lost tree is rebuilt from exactly the last snapshot, uncommitted and untracked files included: %s',
    async (_label, rebuilt) => {
      const repo = dirtyRepo();
      const engine = env.engine({ cwd: repo });
      const first = (await env.runTurn(engine, 'start\nrun: echo one > turn1.txt && echo x > debug.log')).result;
      const sid = first.session_id;
      const want = treeOf(repo);
      expect(want['a.txt']).toBe('hi\nmod\n');
      expect(want['notes/untracked.md']).toBe('not committed\n');
      expect(want['turn1.txt']).toBe('one\n');
      // The host is lost: its tree is gone.
      fs.rmSync(repo, { recursive: true, force: true });

      let second: SDKResultMessage;
      if (rebuilt) {
        await engine.endAndWait();
        second = await turn(repo, 'continue\nrun: pwd > where.txt', sid);
      } else {
        second = (await env.runTurn(engine, 'continue\nrun: pwd > where.txt')).result;
        await engine.endAndWait();
      }
      expect(second.subtype).toBe('success');
      const ws = second.workspace!;
      expect(ws.moves).toBe(1);
      expect(ws.moved_from).toEqual({ host: os.hostname(), path: repo });
      expect(ws.path).toBe(copyDir(sid));
      expect(gitIn(ws.path, 'rev-parse', 'HEAD')).toBe(ws.base_commit);
      expect(treeOf(ws.path)).toEqual({ ...want, 'where.txt': `${ws.path}\n` });
      expect(statusOf(ws.path)).toEqual([' M a.txt', '?? notes/', '?? turn1.txt', '?? where.txt']);
    },
  );
});
