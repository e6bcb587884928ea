import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { classifyToolError, isTransientToolError, toolFaultMessage } from '../../../src/activities/tool-faults';
import { git } from '../../../src/activities/workspace/git';
import { realPathOf } from '../../../src/activities/permissions/real-path';
import { MAX_TOOL_FAULT_CHARS, ToolErrorType } from '../../../src/common/tools';

/** The error a call throws (fails the test when it does not throw). */
async function thrown(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tool-faults-'));
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('tool faults: errors retrying cannot fix are faults', () => {
  test('tool faults: a NUL byte in a path (Node ERR_INVALID_ARG_VALUE TypeError) is a fault', async () => {
    const err = await thrown(() => fs.writeFileSync(path.join(dir, 'a\0b'), 'x'));
    expect((err as NodeJS.ErrnoException).code).toMatch(/^ERR_INVALID_ARG/);
    expect(isTransientToolError(err)).toBe(false);
    // The permission check's realpath throws the same.
    expect(isTransientToolError(await thrown(() => realPathOf(path.join(dir, 'a\0b'))))).toBe(false);
  });

  test('tool faults: a name too long, a directory read as a file, a missing file are faults', async () => {
    const long = await thrown(() => fs.readFileSync(path.join(dir, 'x'.repeat(300))));
    expect((long as NodeJS.ErrnoException).code).toBe('ENAMETOOLONG');
    const isDir = await thrown(() => fs.readFileSync(dir));
    expect((isDir as NodeJS.ErrnoException).code).toBe('EISDIR');
    const missing = await thrown(() => fs.readFileSync(path.join(dir, 'missing')));
    for (const err of [long, isDir, missing]) expect(isTransientToolError(err)).toBe(false);
  });

  test("tool faults: a git failure from the repository's own broken state is a fault", async () => {
    const repo = path.join(dir, 'repo');
    await git(['init', '-q', repo], { cwd: dir });
    fs.writeFileSync(path.join(repo, '.git', 'config'), '[core\nbroken = = =\n');
    const err = await thrown(() => git(['status'], { cwd: repo }));
    expect((err as Error).name).toBe('GitError');
    expect(isTransientToolError(err)).toBe(false);
  });

  test('tool faults: an unforeseen exception (a bug) is a fault', () => {
    expect(isTransientToolError(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe(false);
    expect(isTransientToolError(new Error('something unexpected'))).toBe(false);
    expect(isTransientToolError('a thrown string')).toBe(false);
  });
});

describe('tool faults: transient errors are retried', () => {
  test('tool faults: a refused connection (a store or host not reachable) is transient', async () => {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as net.AddressInfo;
    await new Promise<void>((r) => server.close(() => r()));
    const err = await thrown(
      () =>
        new Promise((resolve, reject) => {
          const s = net.connect(port, '127.0.0.1', () => resolve(s));
          s.once('error', reject);
        }),
    );
    expect((err as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
    expect(isTransientToolError(err)).toBe(true);
  });

  test('tool faults: PostgreSQL errors of the connection, resource and shutdown classes are transient, data errors are not', () => {
    const pg = (code: string): Error => Object.assign(new Error(`pg ${code}`), { code });
    for (const code of ['08006', '57P01', '53300', '40001']) expect(isTransientToolError(pg(code))).toBe(true);
    // 22P05: "unsupported Unicode escape sequence" (a NUL byte in a jsonb value).
    expect(isTransientToolError(pg('22P05'))).toBe(false);
  });

  test('tool faults: an error whose cause is transient is transient', () => {
    const cause = Object.assign(new Error('reset'), { code: 'ECONNRESET' });
    expect(isTransientToolError(new Error('store write failed', { cause }))).toBe(true);
  });

  test('tool faults: Temporal failures keep their own retry decision', () => {
    const failure = ApplicationFailure.create({ type: 'Workspace.NotOnHost', nonRetryable: true, message: 'x' });
    expect(classifyToolError(failure)).toBe(failure);
    const cancelled = new CancelledFailure('cancelled');
    expect(classifyToolError(cancelled)).toBe(cancelled);
  });
});

describe('classifyToolError', () => {
  test('classifyToolError: a fault leaves as a non-retryable Tool.Fault with the message', async () => {
    const err = await thrown(() => fs.writeFileSync(path.join(dir, 'a\0b'), 'x'));
    const failure = classifyToolError(err);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: ToolErrorType.Fault, nonRetryable: true });
    expect((failure as ApplicationFailure).message).toMatch(/^Error: .*null bytes/);
  });

  test('classifyToolError: a transient error leaves as it is', () => {
    const err = Object.assign(new Error('down'), { code: 'ECONNREFUSED' });
    expect(classifyToolError(err)).toBe(err);
  });

  test('toolFaultMessage: the message is capped (it travels in workflow history)', () => {
    const m = toolFaultMessage(new Error('x'.repeat(5000)));
    expect(m.length).toBe(MAX_TOOL_FAULT_CHARS);
    expect(m.endsWith('…')).toBe(true);
  });
});
