import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataDirError, checkDataDir } from '../../../src/host/preflight';

describe('preflight: the data directory', () => {
  test('checkDataDir: a new data directory is created private (0700): it holds transcripts and prompts', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'preflight-')), 'data');
    checkDataDir(dir);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  test('checkDataDir: a file in the way is a DataDirError naming the directory and what to set', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'preflight-')), 'data');
    writeFileSync(file, '');
    expect(() => checkDataDir(join(file, 'sub'))).toThrow(DataDirError);
    expect(() => checkDataDir(join(file, 'sub'))).toThrow(/is not writable .*AGENT_RUNNER_DATA_DIR/);
  });
});
