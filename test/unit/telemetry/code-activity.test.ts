/**
 * What a tool call did to the code, by Claude Code 2.1.328's rules: lines from a structured patch
 * (a file created whole counts all its lines), commits and pull requests from a Bash command.
 */
import { MAX_INSPECTED_COMMAND_CHARS, gitActivity, linesChanged } from '../../../src/telemetry/code-activity';
import { diffHunks } from '../../../src/activities/tools/patch';

describe('code activity of a tool call', () => {
  test('lines: the + and - lines of the patch; a created file counts every line added; no patch counts nothing', () => {
    const patch = diffHunks('/r/a.ts', 'a\nb\nc\n', 'a\nB\nc\nd\n');
    expect(linesChanged({ structuredPatch: patch, content: 'ignored', originalFile: 'ignored' })).toEqual({
      added: 2,
      removed: 1,
    });
    expect(linesChanged({ type: 'create', structuredPatch: [], content: 'x\ny\nz', originalFile: null })).toEqual({
      added: 3,
      removed: 0,
    });
    expect(linesChanged({ structuredPatch: [], content: '', originalFile: null })).toEqual({ added: 0, removed: 0 });
    expect(linesChanged({ stdout: 'x' })).toBeNull();
    expect(linesChanged(undefined)).toBeNull();
  });

  test('git: a commit in any position of the command, with global options; pull requests by gh, glab and a curl POST', () => {
    expect(gitActivity('git commit -m "x"')).toEqual({ commits: 1, pullRequests: 0 });
    expect(gitActivity('git add . && git commit -am wip && git push')).toEqual({ commits: 1, pullRequests: 0 });
    expect(gitActivity('git -C sub --no-pager commit -m x')).toEqual({ commits: 1, pullRequests: 0 });
    expect(gitActivity('git log --grep commit')).toEqual({ commits: 0, pullRequests: 0 });
    expect(gitActivity('git status')).toEqual({ commits: 0, pullRequests: 0 });
    expect(gitActivity('gh pr create --fill')).toEqual({ commits: 0, pullRequests: 1 });
    expect(gitActivity('glab mr create -t x')).toEqual({ commits: 0, pullRequests: 1 });
    expect(gitActivity('gh pr view 3')).toEqual({ commits: 0, pullRequests: 0 });
    expect(gitActivity('curl -X POST -d @body.json https://api.github.com/repos/o/r/pulls')).toEqual({
      commits: 0,
      pullRequests: 1,
    });
    expect(gitActivity('curl https://api.github.com/repos/o/r/pulls/3')).toEqual({ commits: 0, pullRequests: 0 });
    expect(gitActivity(`git commit -m "${'x'.repeat(MAX_INSPECTED_COMMAND_CHARS)}"`)).toEqual({
      commits: 0,
      pullRequests: 0,
    });
  });
});
