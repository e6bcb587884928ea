import { PassThrough } from 'node:stream';
import {
  NoPromptError,
  StdinTooLargeError,
  promptFromInput,
  readPipedStdin,
  stdinSilentWarning,
} from '../../../src/cli/stdin';

/** A piped stdin (not a terminal) that sends `chunks`, then ends unless `open`. */
function pipe(chunks: string[], open = false): NodeJS.ReadStream {
  const s = new PassThrough();
  for (const c of chunks) s.write(c);
  if (!open) s.end();
  return s as unknown as NodeJS.ReadStream;
}

describe('-p prompt and stdin', () => {
  test('promptFromInput: piped stdin is appended to the prompt argument after a newline, as claude -p does', async () => {
    const warn = jest.fn();
    expect(await promptFromInput('summarize', warn, pipe(['LOG 1\n', 'LOG 2\n']))).toBe('summarize\nLOG 1\nLOG 2\n');
    // Kept as piped, whitespace included; nothing piped leaves the argument alone.
    expect(await promptFromInput('summarize', warn, pipe(['   \n']))).toBe('summarize\n   \n');
    expect(await promptFromInput('summarize', warn, pipe([]))).toBe('summarize');
    expect(warn).not.toHaveBeenCalled();
  });

  test('promptFromInput: a terminal stdin is not read', async () => {
    const tty = pipe([], true);
    (tty as { isTTY?: boolean }).isTTY = true;
    expect(await promptFromInput('hello', jest.fn(), tty)).toBe('hello');
  });

  test("promptFromInput: an open pipe that sends nothing is left after the wait, with Claude Code's warning", async () => {
    const warn = jest.fn();
    const before = process.env['AGENT_RUNNER_STDIN_TIMEOUT_MS'];
    process.env['AGENT_RUNNER_STDIN_TIMEOUT_MS'] = '200';
    try {
      expect(await promptFromInput('hello', warn, pipe([], true))).toBe('hello');
    } finally {
      if (before === undefined) delete process.env['AGENT_RUNNER_STDIN_TIMEOUT_MS'];
      else process.env['AGENT_RUNNER_STDIN_TIMEOUT_MS'] = before;
    }
    expect(warn).toHaveBeenCalledWith(stdinSilentWarning(200));
    expect(stdinSilentWarning(3000)).toBe(
      'Warning: no stdin data received in 3s, proceeding without it. If piping from a slow command, redirect stdin explicitly: < /dev/null to skip, or wait longer.',
    );
  });

  test('readPipedStdin: data that starts within the wait is read to its end, however long it takes', async () => {
    const s = new PassThrough();
    const read = readPipedStdin(s as unknown as NodeJS.ReadStream, 100);
    s.write('first ');
    await new Promise((r) => setTimeout(r, 300));
    s.end('second');
    expect(await read).toEqual({ text: 'first second', timedOut: false });
  });

  test('readPipedStdin: more than the limit is refused (Claude Code: 10 MB)', async () => {
    await expect(readPipedStdin(pipe(['x'.repeat(64)]), 1000, 32)).rejects.toThrow(StdinTooLargeError);
  });

  test('promptFromInput: no argument reads the prompt from stdin; an empty one is refused', async () => {
    expect(await promptFromInput(undefined, jest.fn(), pipe(['review this\n']))).toBe('review this');
    await expect(promptFromInput(undefined, jest.fn(), pipe([]))).rejects.toThrow(NoPromptError);
    await expect(promptFromInput('  ', jest.fn(), pipe([]))).rejects.toThrow(NoPromptError);
  });
});
