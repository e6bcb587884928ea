import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  formatFileSize,
  keepLargeResult,
  largeResultPath,
  materializeLargeResults,
} from '../../../src/activities/large-result';
import { JsonlTranscriptStore } from '../../../src/store/jsonl-store';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'large-result-test-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** `seq 1 n` output, as Bash returns it (trimmed). */
const seq = (n: number): string => Array.from({ length: n }, (_, i) => String(i + 1)).join('\n');
const bashOut = (stdout: string) => ({
  content: stdout,
  isError: false,
  structured: { stdout, stderr: '', interrupted: false, isImage: false, noOutputExpected: false },
});

describe('large tool results by reference', () => {
  test('keepLargeResult: a result over the threshold becomes Claude Code preview and path; the store keeps it whole', async () => {
    const stdout = seq(20_000); // 108,894 bytes, as `seq 1 20000` in Claude Code's own run
    const { out, record } = await keepLargeResult(bashOut(stdout), {
      sessionId: 'sess',
      toolUseId: 'toolu_1',
      toolName: 'Bash',
      tmpDir: dir,
    });
    const file = largeResultPath('sess', 'toolu_1', dir);
    expect(record).toEqual({ path: file, bytes: 108_893, content: stdout });
    expect(readFileSync(file, 'utf8')).toBe(stdout);
    const preview = `${seq(527)}\n`;
    expect(preview.length).toBe(2000);
    expect(out.content).toBe(
      `<persisted-output>\nOutput too large (106.3KB). Full output saved to: ${file}\n\n` +
        `Preview (first 2KB):\n${preview}...\n</persisted-output>`,
    );
    expect(out.structured).toEqual({
      stdout: stdout.slice(0, 30_000),
      stderr: '',
      interrupted: false,
      isImage: false,
      noOutputExpected: false,
      persistedOutputPath: file,
      persistedOutputSize: 108_893,
    });
  });

  test('keepLargeResult: results at or under the threshold, and Read results, stay as they are', async () => {
    const small = bashOut('x'.repeat(30_000));
    expect((await keepLargeResult(small, { sessionId: 's', toolUseId: 't', toolName: 'Bash', tmpDir: dir })).out).toBe(
      small,
    );
    const read = { content: 'y'.repeat(100_000), isError: false };
    expect(
      (await keepLargeResult(read, { sessionId: 's', toolUseId: 't', toolName: 'Read', tmpDir: dir })).record,
    ).toBeUndefined();
    const custom = await keepLargeResult(bashOut('z'.repeat(200)), {
      sessionId: 's',
      toolUseId: 't2',
      toolName: 'Grep',
      thresholdChars: 100,
      tmpDir: dir,
    });
    expect(custom.record?.bytes).toBe(200);
  });

  test('formatFileSize: bytes, KB, MB as Claude Code shows them', () => {
    expect(formatFileSize(512)).toBe('512 bytes');
    expect(formatFileSize(2000)).toBe('2KB');
    expect(formatFileSize(108_894)).toBe('106.3KB');
    expect(formatFileSize(3 * 1024 * 1024)).toBe('3MB');
  });

  test('materializeLargeResults: a host without the file writes it again from the store when a call names it', async () => {
    const store = new JsonlTranscriptStore(join(dir, 'data'));
    const sessionId = 'sess-m';
    const { record } = await keepLargeResult(bashOut(seq(10_000)), {
      sessionId,
      toolUseId: 'toolu_9',
      toolName: 'Bash',
    });
    if (!record) throw new Error('expected a large result');
    await store.append({
      v: 1,
      type: 'user',
      uuid: 'r1',
      parentUuid: null,
      sessionId,
      timestamp: '2026-01-01T00:00:00.000Z',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_9', content: 'preview' }] },
      largeResult: record,
    });
    rmSync(record.path); // the other host never had it
    expect(await materializeLargeResults(store, sessionId, { command: 'ls' })).toEqual([]);
    expect(await materializeLargeResults(store, sessionId, { file_path: record.path, offset: 10 })).toEqual([
      record.path,
    ]);
    expect(readFileSync(record.path, 'utf8')).toBe(seq(10_000));
    // Present already, or unknown to the store: nothing is written.
    expect(await materializeLargeResults(store, sessionId, { file_path: record.path })).toEqual([]);
    const unknown = record.path.replace('toolu_9', 'toolu_404');
    expect(await materializeLargeResults(store, sessionId, { command: `cat ${unknown}` })).toEqual([]);
    expect(existsSync(unknown)).toBe(false);
    rmSync(record.path);
  });
});
