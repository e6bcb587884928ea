import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  formatFileSize,
  keepLargeResult,
  largeResultKey,
  largeResultPath,
  materializeLargeResults,
} from '../../../src/activities/large-result';
import { JsonlTranscriptStore } from '../../../src/store/jsonl-store';

let dir: string;
let store: JsonlTranscriptStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'large-result-test-'));
  store = new JsonlTranscriptStore(join(dir, 'data'));
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `seq 1 n` output, as Bash returns it (trimmed). */
const seq = (n: number): string => Array.from({ length: n }, (_, i) => String(i + 1)).join('\n');
const bashOut = (stdout: string) => ({
  content: stdout,
  isError: false,
  structured: { stdout, stderr: '', interrupted: false, isImage: false, noOutputExpected: false },
});
const opts = (toolUseId: string, toolName = 'Bash') => ({ store, sessionId: 'sess', toolUseId, toolName, tmpDir: dir });

describe('large tool results by reference', () => {
  test('keepLargeResult: over the threshold, the model gets Claude Code preview and path; the store keeps it whole', async () => {
    const stdout = seq(20_000); // 108,893 bytes: `seq 1 20000`, trimmed
    const { out, record } = await keepLargeResult(bashOut(stdout), opts('toolu_1'));
    const file = largeResultPath('sess', 'toolu_1', dir);
    expect(record).toEqual({ path: file, bytes: 108_893, key: 'tool-result/toolu_1' });
    expect(String(await store.getContent('sess', largeResultKey('toolu_1')))).toBe(stdout);
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
    expect((await keepLargeResult(small, opts('t1'))).out).toBe(small);
    const read = { content: 'y'.repeat(100_000), isError: false };
    expect((await keepLargeResult(read, opts('t2', 'Read'))).record).toBeUndefined();
    const custom = await keepLargeResult(bashOut('z'.repeat(200)), { ...opts('t3', 'Grep'), thresholdChars: 100 });
    expect(custom.record?.bytes).toBe(200);
    expect(await store.listContent('sess')).toHaveLength(1);
  });

  test('formatFileSize: bytes, KB, MB as Claude Code shows them', () => {
    expect(formatFileSize(512)).toBe('512 bytes');
    expect(formatFileSize(2000)).toBe('2KB');
    expect(formatFileSize(108_894)).toBe('106.3KB');
    expect(formatFileSize(3 * 1024 * 1024)).toBe('3MB');
  });

  test('materializeLargeResults: a host without the file writes it from the store when a call names it', async () => {
    const { record } = await keepLargeResult(bashOut(seq(10_000)), opts('toolu_9'));
    if (!record) throw new Error('expected a large result');
    rmSync(record.path); // the other host never had it
    expect(await materializeLargeResults(store, 'sess', { command: 'ls' }, dir)).toEqual([]);
    expect(await materializeLargeResults(store, 'sess', { file_path: record.path, offset: 10 }, dir)).toEqual([
      record.path,
    ]);
    expect(readFileSync(record.path, 'utf8')).toBe(seq(10_000));
    // Present already: nothing is written. Unknown to the store, or outside the result location: nothing either.
    expect(await materializeLargeResults(store, 'sess', { file_path: record.path }, dir)).toEqual([]);
    const unknown = record.path.replace('toolu_9', 'toolu_404');
    expect(await materializeLargeResults(store, 'sess', { command: `cat ${unknown}` }, dir)).toEqual([]);
    expect(existsSync(unknown)).toBe(false);
    const elsewhere = join(dir, 'other', 'agent-runner-results', 'sess', 'toolu_9.txt');
    expect(await materializeLargeResults(store, 'sess', { file_path: elsewhere }, dir)).toEqual([]);
    expect(existsSync(elsewhere)).toBe(false);
  });

  test("keepLargeResult: the result directories in the shared temporary directory must be this user's own; a planted link is refused", async () => {
    const outside = mkdtempSync(join(tmpdir(), 'large-result-outside-'));
    try {
      symlinkSync(outside, join(dir, 'agent-runner-results'));
      await expect(keepLargeResult(bashOut(seq(10_000)), opts('toolu_link'))).rejects.toThrow(
        /agent-runner-results is a symbolic link, not a directory of this user: refusing to write tool results there/,
      );
      expect(readdirSync(outside)).toEqual([]);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
  test('keepLargeResult: the file and its directories are owner-only', async () => {
    const { record } = await keepLargeResult(bashOut(seq(10_000)), opts('toolu_mode'));
    if (!record) throw new Error('expected a large result');
    expect(statSync(record.path).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(record.path)).mode & 0o777).toBe(0o700);
    expect(statSync(dirname(dirname(record.path))).mode & 0o777).toBe(0o700);
  });
});
