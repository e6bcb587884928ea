import { ChildEnvironments, devServerEnvironment, secretEnvNames, toolEnvironment } from '../../../src/env/child-env';
import { makeSession, type TestSession } from '../activities/tools/helpers';

/** The environment a real Bash tool command sees (`env`), one variable a line. */
async function envSeenByBash(s: TestSession): Promise<Record<string, string>> {
  const out = await s.run('Bash', { command: 'env' });
  const text = typeof out.content === 'string' ? out.content : JSON.stringify(out.content);
  return Object.fromEntries(
    text
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

describe('child process environments', () => {
  const user = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: '/home/u',
    LANG: 'C.UTF-8',
    LC_ALL: 'C',
    ANTHROPIC_API_KEY: 'sk-secret',
    MY_MODEL_KEY: 'sk-other',
    TEMPORAL_API_KEY: 'tmprl-secret',
    TEMPORAL_TLS_KEY: 'pem',
    CORP_TOKEN: 'corp',
    EDITOR: 'vi',
  };
  let s: TestSession;
  beforeEach(async () => {
    s = await makeSession();
  });
  afterEach(() => s.cleanup());

  test('Bash: a command sees the user environment without the runner secrets, plus the settings env', async () => {
    const envs = new ChildEnvironments(
      { model: { apiKeyEnv: 'MY_MODEL_KEY' }, tools: { secretEnv: ['CORP_TOKEN'] } },
      user,
    );
    s.ctx.env = envs.forTools({ FROM_SETTINGS: 'yes' });
    const seen = await envSeenByBash(s);
    expect(seen).toMatchObject({ HOME: '/home/u', EDITOR: 'vi', FROM_SETTINGS: 'yes' });
    for (const secret of ['ANTHROPIC_API_KEY', 'MY_MODEL_KEY', 'TEMPORAL_API_KEY', 'TEMPORAL_TLS_KEY', 'CORP_TOKEN']) {
      expect(seen[secret]).toBeUndefined();
    }
  });
  test('Bash: without an environment from the worker, the default secret names are still left out', async () => {
    const saved = process.env['ANTHROPIC_API_KEY'];
    process.env['ANTHROPIC_API_KEY'] = 'sk-leak';
    try {
      const seen = await envSeenByBash(s);
      expect(seen['ANTHROPIC_API_KEY']).toBeUndefined();
      expect(seen['PATH']).toBeDefined();
    } finally {
      if (saved === undefined) delete process.env['ANTHROPIC_API_KEY'];
      else process.env['ANTHROPIC_API_KEY'] = saved;
    }
  });
  test('devServerEnvironment: only what a server needs (path, home, temp, locale, time zone)', () => {
    expect(devServerEnvironment(user)).toEqual({ PATH: user.PATH, HOME: '/home/u', LANG: 'C.UTF-8', LC_ALL: 'C' });
  });
  test('secretEnvNames: the model key, the Temporal key, TLS key variables, and tools.secretEnv', () => {
    const names = secretEnvNames({
      model: { apiKeyEnv: 'K' },
      temporal: { apiKeyEnv: 'T' },
      tools: { secretEnv: ['S'] },
    });
    for (const n of ['K', 'T', 'S', 'ANTHROPIC_API_KEY', 'TEMPORAL_TLS_KEY']) expect(names.has(n)).toBe(true);
  });
  test('toolEnvironment: the settings env may set a name the runner keeps secret (the user chose it for tools)', () => {
    expect(toolEnvironment({ base: user, extra: { ANTHROPIC_API_KEY: 'for-tools' } })['ANTHROPIC_API_KEY']).toBe(
      'for-tools',
    );
  });
});
