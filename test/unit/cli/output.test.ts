import type { SDKResultMessage } from '../../../src/common/sdk-messages';
import { workspaceMoveNotice } from '../../../src/cli/output';

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
