import type { SDKResultMessage } from '../../../src/common/sdk-messages';
import { textOutput, workspaceMoveNotice } from '../../../src/cli/output';

function result(workspace: SDKResultMessage['workspace']): SDKResultMessage {
  return {
    type: 'result',
    subtype: 'success',
    session_id: 'sid-1',
    ...(workspace ? { workspace } : {}),
  } as SDKResultMessage;
}

const ws = {
  host: 'b',
  path: '/data/workspaces/sid-1',
  base_commit: 'c'.repeat(40),
  last_snapshot: null,
  moves: 1,
};

describe('workspaceMoveNotice', () => {
  test('workspaceMoveNotice: a turn whose workspace moved names where it was, where it ran, and the export command', () => {
    const notice = workspaceMoveNotice(result({ ...ws, moved_from: { host: 'a', path: '/home/u/repo' } }));
    expect(notice).toContain('a:/home/u/repo');
    expect(notice).toContain('b:/data/workspaces/sid-1');
    expect(notice).toContain('agent-runner workspace export sid-1 --to DIR');
  });

  test('workspaceMoveNotice: nothing when the workspace stayed (even after earlier moves) or is not followed', () => {
    expect(workspaceMoveNotice(result(ws))).toBeNull();
    expect(workspaceMoveNotice(result(undefined))).toBeNull();
  });
});

describe('textOutput (text mode)', () => {
  const errorResult = (subtype: string, errors: string[]): SDKResultMessage =>
    ({ type: 'result', subtype, is_error: true, session_id: 's', errors }) as unknown as SDKResultMessage;

  test('textOutput: an answer is printed on stdout as it is', () => {
    const ok = { type: 'result', subtype: 'success', is_error: false, result: 'Done.' } as SDKResultMessage;
    expect(textOutput(ok)).toEqual({ stdout: 'Done.', stderr: '' });
  });

  test("textOutput: the limits print Claude Code's words on stdout (Reached max turns, Exceeded USD budget)", () => {
    expect(textOutput(errorResult('error_max_turns', ['Reached maximum number of turns (3)']))).toEqual({
      stdout: 'Error: Reached max turns (3)',
      stderr: '',
    });
    expect(
      textOutput(errorResult('error_max_budget_usd', ['Reached maximum budget ($1e-7): spent $0.000012'])),
    ).toEqual({ stdout: 'Error: Exceeded USD budget (1e-7)', stderr: '' });
  });

  test('textOutput: another error names its subtype and errors on stdout, without the diagnostic', () => {
    const r = errorResult('error_during_execution', ['[ede_diagnostic] x', 'API Error 401: invalid x-api-key']);
    expect(textOutput(r)).toEqual({
      stdout: 'Error: error_during_execution: API Error 401: invalid x-api-key',
      stderr: '',
    });
  });
});

describe('textOutput: setup errors', () => {
  test('textOutput: a setup error (exit 2: an MCP server that did not start) goes to stderr, as usage errors do', () => {
    const r = {
      type: 'result',
      subtype: 'error_during_execution',
      is_error: true,
      terminal_reason: 'turn_setup_failed',
      errors: ['--mcp-config (inline JSON): mcpServers.broken: MCP server "broken" failed to start'],
    } as unknown as SDKResultMessage;
    expect(textOutput(r)).toEqual({
      stdout: '',
      stderr:
        'Error: error_during_execution: --mcp-config (inline JSON): mcpServers.broken: MCP server "broken" failed to start',
    });
  });
});
