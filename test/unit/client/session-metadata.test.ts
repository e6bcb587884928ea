import {
  FIRST_LINE_CHARS,
  firstLine,
  readSessionMemo,
  sessionDetails,
  sessionMemo,
  sessionSummary,
  tildify,
} from '../../../src/client/session-metadata';

describe('session metadata', () => {
  const m = { prompt: '\n  fix the failing test  \nthen more details\nsecret body', cwd: '/home/u/repo', model: 'm-1' };

  test('metadata: only the first non-empty line of the prompt, cut to FIRST_LINE_CHARS', () => {
    expect(firstLine(m.prompt)).toBe('fix the failing test');
    const long = firstLine('y'.repeat(500));
    expect(long).toHaveLength(FIRST_LINE_CHARS);
    expect(long.endsWith('…')).toBe(true);
    expect(JSON.stringify(sessionMemo(m))).not.toContain('secret');
    expect(sessionSummary(m)).not.toContain('secret');
  });

  test('metadata: the memo has prompt, cwd and model; the summary tags batch and task; details are markdown', () => {
    expect(sessionMemo(m)).toEqual({ prompt: 'fix the failing test', cwd: '/home/u/repo', model: 'm-1' });
    expect(sessionSummary({ ...m, batchId: 'nightly', taskId: 't7' })).toBe('[nightly/t7] fix the failing test');
    expect(sessionDetails({ ...m, batchId: 'nightly' })).toBe(
      '**cwd** `/home/u/repo`  \n**model** `m-1`  \n**batch** `nightly`',
    );
    expect(tildify('/home/u/repo', '/home/u')).toBe('~/repo');
    expect(tildify('/home/user2', '/home/u')).toBe('/home/user2');
  });

  test('metadata: a listing memo of an older session without fields reads as empty', () => {
    expect(readSessionMemo(undefined)).toEqual({});
    expect(readSessionMemo({ prompt: 'p', cwd: 3 })).toEqual({ prompt: 'p' });
  });
});
