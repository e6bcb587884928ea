import { openSync, closeSync, ftruncateSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { StepSpec } from '../../src/fake-model';
import { installRuntimeLogging } from '../../src/worker/logging';
import { makeRepo, startRunnerEnv } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';
import { expectIntactTranscript } from './helpers/fault-env';

installRuntimeLogging('WARN');

const MB = 1024 * 1024;

/** One script per test, picked by the prompt. */
const scripts: Array<{ name: string; steps: StepSpec[] }> = [
  {
    name: 'bash-100mb',
    steps: [
      // 100 MB as 6.25 M short lines, then 100 MB as one line with no newline.
      { content: [{ tool_use: { name: 'Bash', input: { command: `yes 0123456789abcde | head -c ${100 * MB}` } } }] },
      {
        expect: { lastToolResultContains: 'Output too large', lastToolResultIsError: false },
        content: [{ tool_use: { name: 'Bash', input: { command: `head -c ${100 * MB} /dev/zero | tr '\\0' y` } } }],
      },
      { expect: { lastToolResultContains: 'Output too large' }, content: [{ text: 'big output seen' }] },
    ],
  },
  {
    name: 'read-100mb',
    steps: [
      { content: [{ tool_use: { name: 'Read', input: { file_path: '{{cwd}}/big.txt' } } }] },
      {
        expect: { lastToolResultContains: 'too large to read at once', lastToolResultIsError: true },
        content: [{ tool_use: { name: 'Read', input: { file_path: '{{cwd}}/big.txt', offset: 3_000_000, limit: 3 } } }],
      },
      { expect: { lastToolResultContains: '3000000\tline 3000000' }, content: [{ text: 'read a window' }] },
    ],
  },
  {
    name: 'binary',
    steps: [
      { content: [{ tool_use: { name: 'Read', input: { file_path: '{{cwd}}/blob.bin' } } }] },
      { expect: { lastToolResultContains: 'binary file', lastToolResultIsError: true }, content: [{ text: 'binary' }] },
    ],
  },
  {
    name: 'invalid-json',
    steps: [
      { content: [{ raw_tool_use: { name: 'Edit', partial_json: '{"file_path": "a.txt", "old_string": "al' } }] },
      {
        expect: { lastToolResultContains: 'could not be parsed as JSON', lastToolResultIsError: true },
        content: [{ text: 'my tool call was broken' }],
      },
    ],
  },
  {
    name: 'unknown-tool',
    steps: [
      { content: [{ tool_use: { name: 'Frobnicate', input: { level: 11 } } }] },
      {
        expect: { lastToolResultContains: 'No such tool available: Frobnicate', lastToolResultIsError: true },
        content: [{ text: 'no such tool' }],
      },
    ],
  },
  {
    name: 'mixed-batch',
    steps: [
      {
        content: [
          { tool_use: { name: 'Read', input: { file_path: '{{cwd}}/a.txt' } } },
          { tool_use: { name: 'Frobnicate', input: {} } },
          { raw_tool_use: { name: 'Read', partial_json: '{"file_path": ' } },
          { tool_use: { name: 'Read', input: { file_path: '{{cwd}}/blob.bin' } } },
          { tool_use: { name: 'Glob', input: { pattern: '*.txt' } } },
        ],
      },
      { content: [{ text: 'five results' }] },
    ],
  },
];

describe('faults: hostile tool calls and tool outputs', () => {
  let env: RunnerEnv;
  let repo: string;
  beforeAll(async () => {
    env = await startRunnerEnv({
      scenario: { scripts: scripts.map((s) => ({ ...s, match: { promptContains: `[${s.name}]` } })) } as never,
    });
    repo = makeRepo({ 'a.txt': 'alpha\n' });
    const blob = Buffer.alloc(4096);
    for (let i = 0; i < blob.length; i++) blob[i] = (i * 7) % 256;
    writeFileSync(join(repo, 'blob.bin'), blob);
    // 100 MB of numbered lines ("line N\n"), written in 1 MB chunks.
    const fd = openSync(join(repo, 'big.txt'), 'w');
    try {
      let n = 1;
      let size = 0;
      while (size < 100 * MB) {
        const parts: string[] = [];
        let len = 0;
        while (len < MB) {
          const l = `line ${n++}\n`;
          parts.push(l);
          len += l.length;
        }
        size += writeSync(fd, parts.join(''));
      }
      ftruncateSync(fd, size);
    } finally {
      closeSync(fd);
    }
  }, 60_000);
  afterAll(async () => env?.close());

  async function run(name: string) {
    const engine = env.engine({ cwd: repo });
    const started = Date.now();
    const { result } = await env.runTurn(engine, `[${name}] go`);
    const report = expectIntactTranscript(env.dataDir, engine.sessionId);
    const lines = await env.store.load(engine.sessionId);
    const maxLineBytes = Math.max(...lines.map((l) => JSON.stringify(l).length));
    console.log(`tool fault ${name}: ${Date.now() - started} ms, largest transcript line ${maxLineBytes} bytes`);
    return { result, report, maxLineBytes };
  }

  test('tool faults: 100 MB of Bash output (many lines, then one line) is cut, saved to a file and shown as a preview', async () => {
    const { result, report, maxLineBytes } = await run('bash-100mb');
    expect(result).toMatchObject({ subtype: 'success', result: 'big output seen' });
    expect(report).toMatchObject({ toolUses: 2, toolResults: 2 });
    expect(maxLineBytes).toBeLessThan(200 * 1024);
  });

  test('tool faults: a 100 MB file is refused whole and read by window', async () => {
    const { result, report } = await run('read-100mb');
    expect(result).toMatchObject({ subtype: 'success', result: 'read a window' });
    expect(report).toMatchObject({ toolUses: 2, toolResults: 2 });
  });

  test('tool faults: reading a binary file is an is_error result', async () => {
    const { result } = await run('binary');
    expect(result).toMatchObject({ subtype: 'success', result: 'binary' });
  });

  test('tool faults: a tool call whose input is not valid JSON gets an is_error result and the model goes on', async () => {
    const { result } = await run('invalid-json');
    expect(result).toMatchObject({ subtype: 'success', result: 'my tool call was broken' });
  });

  test('tool faults: an unknown tool name gets an is_error result', async () => {
    const { result } = await run('unknown-tool');
    expect(result).toMatchObject({ subtype: 'success', result: 'no such tool' });
  });

  test('tool faults: one model message mixing good, unknown, invalid and binary calls gets one result each', async () => {
    const { result, report } = await run('mixed-batch');
    expect(result).toMatchObject({ subtype: 'success', result: 'five results' });
    expect(report).toMatchObject({ toolUses: 5, toolResults: 5 });
    const req = env.fake.requests().find((r) => r.script === 'mixed-batch' && r.step === 1);
    expect(req?.toolResultIds).toHaveLength(5);
  });
});
