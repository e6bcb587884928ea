import { frameLine, frameReader, MAX_SOCKET_PATH, spareSocketPath } from '../../../src/host/spare-protocol';

describe('spare protocol', () => {
  test('spareSocketPath: <dataDir>/client.sock, or null when too long for a Unix socket', () => {
    expect(spareSocketPath('/home/me/.agent-runner')).toBe('/home/me/.agent-runner/client.sock');
    expect(spareSocketPath(`/${'d'.repeat(MAX_SOCKET_PATH)}`)).toBeNull();
  });

  test('frameReader: one frame per line, whatever the chunking, a character split between chunks included', () => {
    const frames: unknown[] = [];
    const push = frameReader(
      (f) => frames.push(f),
      () => {
        throw new Error('bad line');
      },
    );
    const bytes = Buffer.from(frameLine({ t: 'o', b: 'x' }) + frameLine({ t: 'decline', why: 'é ünïcode ✓' }));
    for (let i = 0; i < bytes.length; i++) push(bytes.subarray(i, i + 1));
    expect(frames).toEqual([
      { t: 'o', b: 'x' },
      { t: 'decline', why: 'é ünïcode ✓' },
    ]);
  });

  test('frameReader: a line that is not JSON is reported, and nothing after it is read', () => {
    const frames: unknown[] = [];
    const bad: string[] = [];
    const push = frameReader(
      (f) => frames.push(f),
      (l) => bad.push(l),
    );
    push(Buffer.from('{"t":"eof"}\nnot json\n{"t":"eof"}\n'));
    expect(frames).toEqual([{ t: 'eof' }]);
    expect(bad).toEqual(['not json']);
  });
});
