import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { loadDefinitions } from '../../../../src/config-files/definitions/catalog';

/** A repository (a real path) beside a secret file outside it. */
function setup(): { repo: string; secret: string; top: string } {
  const top = realpathSync(mkdtempSync(join(tmpdir(), 'defs-links-')));
  const repo = join(top, 'repo');
  mkdirSync(join(repo, '.git'), { recursive: true });
  const secret = join(top, 'secret.txt');
  writeFileSync(secret, '---\ndescription: TOPSECRET\n---\nTOPSECRET body\n');
  return { repo, secret, top };
}

function write(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
}

function link(target: string, at: string): void {
  mkdirSync(dirname(at), { recursive: true });
  symlinkSync(target, at);
}

describe('definition files through links', () => {
  test('agents, commands and skills: a link to /proc/self/environ or out of the repository is refused with a warning; one inside it works', () => {
    const { repo, secret } = setup();
    write(repo, {
      'docs/agent.md': '---\ndescription: Shared agent\n---\nShared.\n',
      'docs/cmd.md': 'Shared command\n',
      'docs/skill/SKILL.md': '---\nname: shared-skill\ndescription: Shared skill\n---\nBody\n',
    });
    const claude = join(repo, '.claude');
    link('/proc/self/environ', join(claude, 'agents/env.md'));
    link(secret, join(claude, 'agents/sec.md'));
    link(join(repo, 'docs/agent.md'), join(claude, 'agents/shared.md'));
    link('/proc/self/environ', join(claude, 'commands/envc.md'));
    link(secret, join(claude, 'commands/secc.md'));
    link(join(repo, 'docs/cmd.md'), join(claude, 'commands/shared.md'));
    link('/proc/self/environ', join(claude, 'skills/x/SKILL.md'));
    link(secret, join(claude, 'skills/y/SKILL.md'));
    link(join(repo, 'docs/skill'), join(claude, 'skills/shared-skill'));
    const warnings: string[] = [];
    const { definitions } = loadDefinitions({ cwd: repo, userConfigDir: false, warn: (m) => warnings.push(m) });
    expect(definitions.agents.map((a) => a.name)).toEqual(['shared']);
    expect(definitions.commands.map((c) => c.name)).toEqual(['shared-skill', 'shared']);
    expect(JSON.stringify(definitions)).not.toMatch(/TOPSECRET|PATH=|HOME=/);
    expect(warnings.sort()).toEqual(
      [
        `${join(claude, 'agents/env.md')}: not read: it is a link to /proc/${process.pid}/environ, which is on a kernel file system (such as /proc) that the runner does not read`,
        `${join(claude, 'agents/sec.md')}: not read: it is a link to ${secret}, which is outside ${repo}`,
        `${join(claude, 'commands/envc.md')}: not read: it is a link to /proc/${process.pid}/environ, which is on a kernel file system (such as /proc) that the runner does not read`,
        `${join(claude, 'commands/secc.md')}: not read: it is a link to ${secret}, which is outside ${repo}`,
        `${join(claude, 'skills/x/SKILL.md')}: not read: it is a link to /proc/${process.pid}/environ, which is on a kernel file system (such as /proc) that the runner does not read`,
        `${join(claude, 'skills/y/SKILL.md')}: not read: it is a link to ${secret}, which is outside ${repo}`,
      ].sort(),
    );
  });

  test('a linked directory out of the repository is not walked; a link loop ends; a FIFO does not hang the loader', () => {
    const { repo, top } = setup();
    write(top, { 'elsewhere/leak.md': 'TOPSECRET\n' });
    write(repo, { '.claude/commands/ok.md': 'Fine\n' });
    link(join(top, 'elsewhere'), join(repo, '.claude/commands/ext'));
    link('.', join(repo, '.claude/commands/loop'));
    link('..', join(repo, '.claude/commands/up'));
    execFileSync('mkfifo', [join(repo, '.claude/commands/pipe.md')]);
    execFileSync('mkfifo', [join(repo, '.claude/agents-pipe')]);
    const warnings: string[] = [];
    const started = Date.now();
    const { definitions } = loadDefinitions({ cwd: repo, userConfigDir: false, warn: (m) => warnings.push(m) });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(definitions.commands.map((c) => c.name)).toEqual(['ok']);
    expect(warnings).toEqual(
      expect.arrayContaining([
        `${join(repo, '.claude/commands/ext')}: not read: it is a link to ${join(top, 'elsewhere')}, which is outside ${repo}`,
        `${join(repo, '.claude/commands/pipe.md')}: not read: it is not a regular file`,
      ]),
    );
  });

  test("the user's files may link inside the home directory, not out of it", () => {
    const { top, secret } = setup();
    const home = join(top, 'home');
    write(home, { 'dotfiles/mine.md': 'Mine\n' });
    link(join(home, 'dotfiles/mine.md'), join(home, '.claude/commands/mine.md'));
    link(secret, join(home, '.claude/commands/sec.md'));
    const warnings: string[] = [];
    const cwd = join(top, 'work');
    mkdirSync(cwd);
    const { definitions } = loadDefinitions({
      cwd,
      userConfigDir: join(home, '.claude'),
      home,
      warn: (m) => warnings.push(m),
    });
    expect(definitions.commands.map((c) => c.name)).toEqual(['mine']);
    expect(warnings).toEqual([
      `${join(home, '.claude/commands/sec.md')}: not read: it is a link to ${secret}, which is outside ${home} and ${join(home, '.claude')}`,
    ]);
  });

  test("a plugin's hooks file linking out of the plugin is skipped with a warning; a manifest that does skips the plugin", () => {
    const { repo, secret } = setup();
    write(repo, {
      'plugins/a/.claude-plugin/plugin.json': JSON.stringify({ name: 'a' }),
      'plugins/a/commands/hi.md': 'Hi\n',
      'plugins/b/commands/bye.md': 'Bye\n',
    });
    writeFileSync(secret.replace('secret.txt', 'hooks.json'), JSON.stringify({ hooks: {} }));
    link(secret.replace('secret.txt', 'hooks.json'), join(repo, 'plugins/a/hooks/hooks.json'));
    link(secret, join(repo, 'plugins/b/.claude-plugin/plugin.json'));
    const warnings: string[] = [];
    const loaded = loadDefinitions({
      cwd: repo,
      userConfigDir: false,
      project: false,
      pluginDirs: ['plugins/a', 'plugins/b'],
      warn: (m) => warnings.push(m),
    });
    expect(loaded.definitions.plugins.map((p) => p.name)).toEqual(['a']);
    expect(loaded.definitions.commands.map((c) => c.name)).toEqual(['a:hi']);
    expect(warnings).toEqual([
      `${join(repo, 'plugins/a/hooks/hooks.json')}: not read: it is a link to ${secret.replace('secret.txt', 'hooks.json')}, which is outside ${join(repo, 'plugins/a')}`,
      `${join(repo, 'plugins/b/.claude-plugin/plugin.json')}: not read: it is a link to ${secret}, which is outside ${join(repo, 'plugins/b')}`,
    ]);
  });
});
