import { mkdtempSync, rmSync, utimesSync, writeFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildFileReminder,
  reminderUuid,
  replayedReminder,
  trackedFiles,
  withFileReminder,
} from '../../../../src/activities/model/file-reminders';
import { computeFileState } from '../../../../src/activities/tools/file-state';
import type { TranscriptEntry } from '../../../../src/common/transcript';
import { JsonlTranscriptStore } from '../../../../src/store/jsonl-store';

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'file-reminders-test-')));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const base = { v: 1, sessionId: 's', timestamp: '2026-01-01T00:00:00.000Z' };
/** A Read result line recording the file's state as the tool would. */
async function readLine(uuid: string, parentUuid: string | null, path: string): Promise<TranscriptEntry> {
  return {
    ...base,
    type: 'user',
    uuid,
    parentUuid,
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t-${uuid}`, content: '...' }] },
    toolRun: { tool: 'Read', outcome: 'ok', fileState: { path, state: await computeFileState(path) } },
  };
}
const text = (e: TranscriptEntry | undefined): string =>
  ((e?.message?.content ?? []) as Array<{ text?: string }>).map((b) => b.text ?? '').join('\n');
/** Sets a file's mtime (seconds) so that a change is seen even within one clock tick. */
const touch = (p: string, s: number): void => utimesSync(p, s, s);

describe('read-file state reminders', () => {
  test('buildFileReminder: nothing changed, or only the mtime: no reminder', async () => {
    const a = join(dir, 'a.txt');
    writeFileSync(a, 'one\n');
    const chain = [await readLine('r1', null, a)];
    const line = { uuid: 'x', parentUuid: 'r1', sessionId: 's' };
    expect(await buildFileReminder(chain, line)).toBeUndefined();
    touch(a, 1_000_000);
    expect(await buildFileReminder(chain, line)).toBeUndefined();
  });

  test('buildFileReminder: a changed file is shown with line numbers and recorded as read', async () => {
    const a = join(dir, 'a.txt');
    writeFileSync(a, 'one\ntwo\n');
    const chain = [await readLine('r1', null, a)];
    writeFileSync(a, 'one\nTWO\nthree\n');
    touch(a, 2_000_000);
    const e = await buildFileReminder(chain, { uuid: 'x', parentUuid: 'r1', sessionId: 's', turnId: 'turn' });
    expect(e).toMatchObject({ type: 'user', uuid: 'x', parentUuid: 'r1', isMeta: true, turnId: 'turn' });
    expect(text(e)).toBe(
      `<system-reminder>\nNote: ${a} was modified since you last read it, either by the user or by another process ` +
        '(a formatter, a command you ran). The change is intentional, so take it into account as you proceed (do not ' +
        'revert it unless the user asks you to). Its current content, with line numbers:\n' +
        '     1\tone\n     2\tTWO\n     3\tthree\n</system-reminder>',
    );
    // Once reminded, the context holds the new state: no second reminder.
    const after = [...chain, e as TranscriptEntry];
    expect(trackedFiles(after).get(a)?.sha256).toBe((await computeFileState(a)).sha256);
    expect(await buildFileReminder(after, { uuid: 'y', parentUuid: 'x', sessionId: 's' })).toBeUndefined();
  });

  test('buildFileReminder: deleted, binary and large files get a note, not their content', async () => {
    const gone = join(dir, 'gone.txt');
    const bin = join(dir, 'bin.dat');
    const big = join(dir, 'big.txt');
    writeFileSync(gone, 'x');
    writeFileSync(bin, 'text');
    writeFileSync(big, 'small');
    const chain = [await readLine('r1', null, gone), await readLine('r2', 'r1', bin), await readLine('r3', 'r2', big)];
    rmSync(gone);
    writeFileSync(bin, Buffer.from([1, 0, 2, 0]));
    writeFileSync(big, 'y'.repeat(50_000));
    const e = await buildFileReminder(chain, { uuid: 'x', parentUuid: 'r3', sessionId: 's' });
    expect(text(e)).toContain(`Note: ${gone} was deleted (or is no longer a file) since you last read it.`);
    expect(text(e)).toContain(`Note: ${bin} was modified`);
    expect(text(e)).toContain(`Note: ${big} was modified`);
    expect(text(e).match(/too large \(or not text\)/g)).toHaveLength(2);
    expect(text(e)).not.toContain('yyyy');
    // The deleted file is no longer tracked; the others are, with their new state (but not as shown).
    expect([...trackedFiles([...chain, e as TranscriptEntry]).keys()].sort()).toEqual([big, bin].sort());
  });

  test('withFileReminder: the reminder is written once, between the previous line and the call; a retry reuses it', async () => {
    const store = new JsonlTranscriptStore(join(dir, 'data'));
    const a = join(dir, 'a.txt');
    writeFileSync(a, 'v1\n');
    await store.append(await readLine('r1', null, a));
    writeFileSync(a, 'v2\n');
    touch(a, 3_000_000);
    const call = { sessionId: 's', assistantUuid: 'asst-1', parentUuid: 'r1' };
    const first = await withFileReminder(store, call, await store.chain('s', 'r1'));
    expect(first.parentUuid).toBe(reminderUuid('asst-1'));
    expect(first.chain.map((e) => e.uuid)).toEqual(['r1', reminderUuid('asst-1')]);
    expect(first.reminder).toEqual({
      uuid: reminderUuid('asst-1'),
      files: [{ path: a, state: await computeFileState(a) }],
    });
    writeFileSync(a, 'v3\n'); // changes again before the retry: the written reminder stands
    const retry = await withFileReminder(store, call, await store.chain('s', 'r1'));
    expect(retry.reminder).toEqual(first.reminder);
    expect((await store.load('s')).length).toBe(2);
    const assistant: TranscriptEntry = { ...base, type: 'assistant', uuid: 'asst-1', parentUuid: first.parentUuid };
    expect(await replayedReminder(store, call, assistant)).toEqual({ fileReminder: first.reminder });
    expect(await replayedReminder(store, call, { ...assistant, parentUuid: 'r1' })).toEqual({});
  });

  test('buildFileReminder: after a workspace move, files read on the former host are checked where they are now, not reported deleted', async () => {
    const { mkdirSync, cpSync } = await import('node:fs');
    const oldRoot = join(dir, 'host-a', 'repo');
    const newRoot = join(dir, 'host-b', 'repo');
    mkdirSync(join(oldRoot, 'src'), { recursive: true });
    writeFileSync(join(oldRoot, 'a.txt'), 'alpha\n');
    writeFileSync(join(oldRoot, 'src', 'b.txt'), 'beta\n');
    const chain = [
      await readLine('r1', null, join(oldRoot, 'a.txt')),
      await readLine('r2', 'r1', join(oldRoot, 'src', 'b.txt')),
    ];
    // The tree is re-materialized under the new host's root (new mtimes), then host A is gone.
    cpSync(oldRoot, newRoot, { recursive: true });
    rmSync(join(dir, 'host-a'), { recursive: true });
    touch(join(newRoot, 'a.txt'), 3_000_000);
    const line = { uuid: 'x', parentUuid: 'r2', sessionId: 's' };
    const moved = { repoRoot: newRoot, formerRoots: [oldRoot] };
    expect(await buildFileReminder(chain, line, moved)).toBeUndefined();
    // Without the move the same chain tells the model both files were deleted (the old fault).
    expect(text(await buildFileReminder(chain, line))).toContain(`${join(oldRoot, 'a.txt')} was deleted`);
    // A file that did change on the new host is reported at its new path.
    writeFileSync(join(newRoot, 'src', 'b.txt'), 'BETA\n');
    touch(join(newRoot, 'src', 'b.txt'), 4_000_000);
    const e = await buildFileReminder(chain, line, moved);
    expect(text(e)).toContain(`Note: ${join(newRoot, 'src', 'b.txt')} was modified since you last read it`);
    expect(text(e)).not.toContain(oldRoot);
    expect(e?.fileReminder).toMatchObject({ files: [{ path: join(newRoot, 'src', 'b.txt'), shown: true }] });
  });

  test("withFileReminder: off the workspace's host (checkFiles false) nothing is checked, but a reminder an earlier attempt wrote is reused", async () => {
    const store = new JsonlTranscriptStore(dir);
    const gone = join(dir, 'elsewhere', 'a.txt'); // a file of another host's tree: not here
    writeFileSync(join(dir, 'b.txt'), 'b\n');
    const read = await readLine('r1', null, join(dir, 'b.txt'));
    const onOtherHost = {
      ...read,
      toolRun: { ...read.toolRun!, fileState: { ...read.toolRun!.fileState!, path: gone } },
    };
    const call = { sessionId: 's', assistantUuid: 'a1', parentUuid: 'r1' };
    const skipped = await withFileReminder(store, call, [onOtherHost], { checkFiles: false });
    expect(skipped).toEqual({ chain: [onOtherHost], parentUuid: 'r1' });
    expect(await store.get('s', reminderUuid('a1'))).toBeUndefined();
    // On the host (checkFiles true) the same file is reported gone, and a retry elsewhere reuses that line.
    const checked = await withFileReminder(store, call, [onOtherHost]);
    expect(checked.parentUuid).toBe(reminderUuid('a1'));
    const retried = await withFileReminder(store, call, [onOtherHost], { checkFiles: false });
    expect(retried.parentUuid).toBe(reminderUuid('a1'));
  });
});
