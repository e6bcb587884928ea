/**
 * The embedded Temporal dev server gets a minimal environment: read from the real process
 * (`/proc/<pid>/environ`), it holds no key of the runner.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findTemporalCli, startDevServer, type DevServer } from '../../src/host/dev-server';

jest.setTimeout(120_000);

const linux = process.platform === 'linux';

(linux ? test : test.skip)(
  'dev server: its environment has no API key, no Temporal variable, only what it needs',
  async () => {
    const saved = { ...process.env };
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'child-env-'));
    Object.assign(process.env, {
      ANTHROPIC_API_KEY: 'sk-ant-must-not-leak',
      TEMPORAL_API_KEY: 'tmprl-must-not-leak',
      TEMPORAL_TLS_KEY: 'pem-must-not-leak',
      SOME_TOKEN: 'also-not-needed',
    });
    let server: DevServer | undefined;
    try {
      server = await startDevServer({ cliPath: findTemporalCli(), dataDir: tmp, dbFilename: null, logLevel: 'error' });
      const environ = fs
        .readFileSync(`/proc/${server.pid}/environ`, 'utf8')
        .split('\0')
        .filter((l) => l.length > 0);
      const names = environ.map((l) => l.slice(0, l.indexOf('=')));
      expect(environ.join('\n')).not.toMatch(/must-not-leak|also-not-needed/);
      expect(names.filter((n) => !/^(PATH|HOME|USER|LOGNAME|TMPDIR|TMP|TEMP|TZ|LANG|LC_\w+)$/.test(n))).toEqual([]);
    } finally {
      await server?.stop();
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  },
);
