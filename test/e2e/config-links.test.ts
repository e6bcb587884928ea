/**
 * A hostile repository's config files through the built CLI (`npm run build` first): agents,
 * commands, skills, CLAUDE.md and settings that are links to `/proc/self/environ` or to a file
 * outside the repository, and a FIFO among the commands. The run goes on, stderr names each file
 * refused, and no request the model gets carries the environment or the secret, while the
 * files linked inside the repository still reach it.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ParsedRequest, StepSpec } from '../../src/fake-model';
import { startRunnerEnv } from '../helpers/runner-env';
import type { RunnerEnv } from '../helpers/runner-env';
import { runCli } from '../helpers/cli';

jest.setTimeout(180_000);

function put(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
}

function link(target: string, at: string): void {
  mkdirSync(dirname(at), { recursive: true });
  symlinkSync(target, at);
}

describe('repository config files are read safely', () => {
  let env: RunnerEnv;
  afterEach(async () => env?.close());

  test('-p in a repository whose .claude files and CLAUDE.md link to /proc/self/environ and to a secret: nothing of them reaches the model; links inside the repository still do', async () => {
    const top = realpathSync(mkdtempSync(join(tmpdir(), 'f7-')));
    const repo = join(top, 'w7');
    const home = join(top, 'home');
    mkdirSync(home);
    mkdirSync(repo);
    execFileSync('git', ['init', '-q'], { cwd: repo });
    const secret = join(top, 'secret.txt');
    writeFileSync(secret, 'TOPSECRET\n');
    put(top, { 'settings-elsewhere.json': JSON.stringify({ env: { SETTINGS_LEAK: 'TOPSECRET' } }) });
    put(repo, {
      'docs/good-agent.md': '---\ndescription: GOOD-AGENT-MARKER reviews code\n---\nReview.\n',
      'docs/good-cmd.md': '---\ndescription: GOOD-CMD-MARKER does a thing\n---\nDo it.\n',
      'docs/rules.md': 'GOOD-MEMORY-MARKER: answer briefly.\n',
    });
    const claude = join(repo, '.claude');
    link('/proc/self/environ', join(claude, 'agents/env.md'));
    link(secret, join(claude, 'agents/sec.md'));
    link(join(repo, 'docs/good-agent.md'), join(claude, 'agents/good.md'));
    link('/proc/self/environ', join(claude, 'commands/envc.md'));
    link(join(repo, 'docs/good-cmd.md'), join(claude, 'commands/good.md'));
    link('/proc/self/environ', join(claude, 'skills/x/SKILL.md'));
    link(secret, join(repo, 'CLAUDE.md'));
    link('/proc/self/environ', join(claude, 'CLAUDE.md'));
    link(join(repo, 'docs/rules.md'), join(repo, 'CLAUDE.local.md'));
    link(join(top, 'settings-elsewhere.json'), join(claude, 'settings.json'));
    execFileSync('mkfifo', [join(claude, 'commands/pipe.md')]);

    const requests: ParsedRequest[] = [];
    env = await startRunnerEnv({
      responder: (req: ParsedRequest): StepSpec => {
        requests.push(req);
        return { content: [{ text: 'Done.' }] };
      },
    });
    const marker = `F7_MARKER=environ-of-the-cli-${process.pid}`;
    const [name, value] = marker.split('=') as [string, string];
    const r = await runCli(['-p', 'x', '--output-format', 'json'], {
      env: {
        ...env.workerEnv,
        HOME: home,
        TEMPORAL_ADDRESS: process.env['TEST_TEMPORAL_ADDRESS'] ?? env.workerEnv['TEMPORAL_ADDRESS'],
        [name]: value,
      },
      cwd: repo,
    });
    expect({ code: r.code, subtype: (JSON.parse(r.stdout.trim()) as { subtype: string }).subtype }).toEqual({
      code: 0,
      subtype: 'success',
    });
    expect(requests.length).toBeGreaterThan(0);
    // The worker runs in this process: its environ holds this entry, the CLI's holds the marker.
    const workerPath = readFileSync('/proc/self/environ', 'utf8')
      .split('\0')
      .find((e) => e.startsWith('PATH='));
    for (const req of requests) {
      const body = JSON.stringify(req);
      expect(body).not.toContain('TOPSECRET');
      expect(body).not.toContain(value);
      if (workerPath !== undefined) expect(body).not.toContain(JSON.stringify(workerPath).slice(1, -1));
      expect(body).not.toContain('\\u0000');
    }
    const all = requests.map((q) => JSON.stringify(q)).join('\n');
    expect(all).toContain('GOOD-AGENT-MARKER');
    expect(all).toContain('GOOD-CMD-MARKER');
    expect(all).toContain('GOOD-MEMORY-MARKER');
    for (const refused of [
      'agents/env.md: not read: it is a link to /proc/',
      `agents/sec.md: not read: it is a link to ${secret}, which is outside ${repo}`,
      'commands/envc.md: not read: it is a link to /proc/',
      'commands/pipe.md: not read: it is not a regular file',
      'skills/x/SKILL.md: not read: it is a link to /proc/',
      `settings.json: not read: it is a link to ${join(top, 'settings-elsewhere.json')}, which is outside ${repo}`,
      `memory file ${join(repo, 'CLAUDE.md')} not sent: it is a link to ${secret}, which is outside ${repo}`,
      `memory file ${join(claude, 'CLAUDE.md')} not sent: it is a link to /proc/`,
    ]) {
      expect(r.stderr).toContain(refused);
    }
  });
});
