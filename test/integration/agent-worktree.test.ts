/**
 * `isolation: "worktree"` end to end (real Temporal, real git, the fake model server): an agent
 * that writes a file works in its own worktree, which is kept and reported (path, branch) in the
 * hand-back; an agent that changes nothing has its worktree and branch removed; the session's
 * checkout is untouched.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SDKMessage } from '../../src/common/sdk-messages';
import { routeByMarker } from '../../src/fake-model';
import { makeRepo, startRunnerEnv, testTurnOptions } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';
import { toolResultText } from '../helpers/tool-results';

jest.setTimeout(120_000);

const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

describe('agent worktrees', () => {
  let env: RunnerEnv | undefined;
  afterEach(async () => {
    await env?.close();
  });

  test('a changed worktree is kept and reported; an unchanged one is removed with its branch', async () => {
    const repo = makeRepo({ 'a.txt': 'one\n' });
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '-A');
    git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'initial');
    const root = fs.realpathSync(repo);
    const agent = (prompt: string): unknown => ({
      content: [
        {
          tool_use: {
            name: 'Agent',
            input: { description: 'x', prompt, isolation: 'worktree', run_in_background: false },
          },
        },
      ],
    });
    env = await startRunnerEnv({
      responder: routeByMarker([
        {
          marker: '[as:main]',
          steps: [agent('[as:writer] Add b.txt.'), agent('[as:looker] Look.'), { content: [{ text: 'Done.' }] }],
        },
        {
          marker: '[as:writer]',
          steps: [
            {
              content: [
                {
                  tool_use: {
                    name: 'Bash',
                    input: { command: 'echo bee > b.txt && pwd && git branch --show-current' },
                  },
                },
              ],
            },
            { content: [{ text: 'Added b.txt.' }] },
          ],
        },
        {
          marker: '[as:looker]',
          steps: [
            { content: [{ tool_use: { name: 'Bash', input: { command: 'cat a.txt' } } }] },
            { content: [{ text: 'Fine.' }] },
          ],
        },
      ] as never),
    });
    const e = env.engine({ cwd: repo, defaults: testTurnOptions({ subagents: {} }) });
    const messages: SDKMessage[] = [];
    for await (const m of e.submitMessage('[as:main] Do the task.')) messages.push(m);
    expect(messages.at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'Done.' });

    const writerId = /agentId: (a[0-9a-f]{16})/.exec(toolResultText(messages, 'toolu_as_main_0_0'))![1]!;
    const wt = path.join(root, '.claude/worktrees', `agent-${writerId}`);
    const handback = toolResultText(messages, 'toolu_as_main_0_0');
    expect(handback).toContain(`\nworktreePath: ${wt}\nworktreeBranch: worktree-agent-${writerId}\n<usage>`);
    // The writer ran in its worktree, on its branch; the file is there, not in the session's checkout.
    expect(fs.readFileSync(path.join(wt, 'b.txt'), 'utf8')).toBe('bee\n');
    expect(fs.existsSync(path.join(repo, 'b.txt'))).toBe(false);
    expect(git(wt, 'branch', '--show-current')).toBe(`worktree-agent-${writerId}`);

    const looker = toolResultText(messages, 'toolu_as_main_1_0');
    const lookerId = /agentId: (a[0-9a-f]{16})/.exec(looker)![1]!;
    expect(looker).not.toContain('worktreePath');
    expect(fs.existsSync(path.join(root, '.claude/worktrees', `agent-${lookerId}`))).toBe(false);
    expect(git(repo, 'branch', '--list', `worktree-agent-${lookerId}`)).toBe('');
    expect(git(repo, 'branch', '--list', `worktree-agent-${writerId}`)).not.toBe('');
  });

  test('outside a git repository the call fails with a tool error and no agent runs', async () => {
    env = await startRunnerEnv({
      responder: routeByMarker([
        {
          marker: '[as:main]',
          steps: [
            {
              content: [
                {
                  tool_use: {
                    name: 'Agent',
                    input: { description: 'x', prompt: '[as:x] X.', isolation: 'worktree', run_in_background: false },
                  },
                },
              ],
            },
            { content: [{ text: 'Done.' }] },
          ],
        },
        { marker: '[as:x]', steps: [{ content: [{ text: 'Ran.' }] }] },
      ] as never),
    });
    const dir = makeRepo({ 'a.txt': 'one\n' });
    const e = env.engine({ cwd: dir, defaults: testTurnOptions({ subagents: {} }) });
    const messages: SDKMessage[] = [];
    for await (const m of e.submitMessage('[as:main] Do the task.')) messages.push(m);
    expect(messages.at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'Done.' });
    expect(toolResultText(messages, 'toolu_as_main_0_0')).toContain('Cannot create agent worktree');
    expect(fs.existsSync(path.join(dir, '.claude'))).toBe(false);
  });
});
