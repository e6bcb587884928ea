/**
 * Scenarios of the differential harness: one repository, one scripted model, the same flags for
 * the real `claude -p` and for `agent-runner -p`. Each step is a fake-model step (see
 * src/fake-model/scenario.ts); `{{cwd}}` becomes the working directory the client reports.
 */
import { join } from 'node:path';
import type { ContentSpec, StepSpec } from '../../src/fake-model';
import { LOOP_SCENARIOS } from './loop-scenarios';

/** One differential scenario. */
export interface ConformanceScenario {
  /** Kebab-case name; also the marker the scripted model uses to find the scenario. */
  name: string;
  /** What the scenario checks (the test title). */
  title: string;
  /** Model responses, in order (step n answers the request with n assistant messages). */
  steps: StepSpec[];
  /** Flags added after the common ones, for both CLIs. */
  args?: string[];
  /** Flags used instead of the common ones (run.ts COMMON_FLAGS), for both CLIs. */
  flags?: readonly string[];
  /** Files of the repository (path → content); default {@link DEFAULT_FILES}. */
  files?: Record<string, string>;
  /** Files of each side's HOME (path → content), e.g. `.claude/CLAUDE.md` (the user's memory); `{{repo}}` becomes the repository's path. */
  homeFiles?: Record<string, string>;
  /** Make the repository a git repository with one commit of its files (same hash on both sides). */
  git?: boolean;
  /** A bash script run in the repository after its files are written (links, modes), before `git`. */
  setup?: string;
  /** Send the prompt as a stream-json user message on stdin (`--input-format stream-json`). */
  streamInput?: boolean;
  /**
   * A second run after the first, with `--resume <first session id>` (or `--continue` when
   * `continue` is set) and these flags and prompt.
   */
  resume?: { args: string[]; prompt: string; continue?: boolean };
  /** Text both CLIs must end their system prompt with (an appended system prompt). */
  systemTail?: string;
  /** More environment variables for both CLIs. */
  env?: Record<string, string>;
  /** Text piped to both CLIs' stdin (with the prompt as an argument). */
  stdin?: string;
  /** Directory of the repository both CLIs start in (relative; created when missing). @default the repository */
  cwd?: string;
  /** Files of each side's HOME compared afterwards (relative paths; present with the same content, or absent on both). */
  homeAfter?: string[];
}

/** `~/.claude.json` marking the repository trusted, as Claude Code's trust dialog leaves it. */
const TRUSTED_HOME = { '.claude.json': JSON.stringify({ projects: { '{{repo}}': { hasTrustDialogAccepted: true } } }) };
/** Flags of the permission scenarios: default mode, no allowed tools beyond the rules given. */
const DEFAULT_MODE_FLAGS = [
  '--output-format',
  'stream-json',
  '--verbose',
  '--tools',
  'Read,Write,Edit,Bash,Glob,Grep',
  '--model',
  'claude-sonnet-5-5',
];

/** The repository every scenario starts from unless it gives its own files. */
export const DEFAULT_FILES: Readonly<Record<string, string>> = {
  'a.txt': 'one\ntwo\nthree\nfour\nfive\n',
  'dup.txt': 'x = 1\nx = 1\ny = 2\n',
  'multi.txt': 'foo foo foo\nfoo\n',
  'src/code.js': 'function foo() {\n  return 1;\n}\n// TODO: foo\nconst bar = foo();\n',
  'src/math.js': 'export const add = (a, b) => a - b;\n',
  'src/notes.md': '# Notes\nTODO: write docs\nfoo bar\n',
};

const tool = (name: string, input: Record<string, unknown>): ContentSpec => ({ tool_use: { name, input } });
const text = (t: string): ContentSpec => ({ text: t });
const done: StepSpec = { content: [text('Done.')] };

/** The fixture MCP server (test/fixtures/mcp/fixture-server.js). */
export const MCP_FIXTURE_SERVER = join(__dirname, '..', 'fixtures', 'mcp', 'fixture-server.js');

/** The common flags with the fixture MCP server's tools allowed too. */
export const COMMON_FLAGS_WITH_MCP: readonly string[] = [
  '--output-format',
  'stream-json',
  '--verbose',
  '--permission-mode',
  'acceptEdits',
  '--allowedTools',
  'Read,Write,Edit,Bash,Glob,Grep,mcp__fixture',
  '--tools',
  'Read,Write,Edit,Bash,Glob,Grep',
  '--model',
  'claude-sonnet-5-5',
];

/** A tree with every kind of ignore rule Claude Code's Glob and Grep may or may not honour. */
const IGNORE_FILES: Readonly<Record<string, string>> = {
  '.gitignore': 'ignored.txt\nbuild/\n*.log\n!keep.log\n/rooted.txt\n',
  'ignored.txt': 'needle ignored\n',
  'rooted.txt': 'needle rooted\n',
  'build/out.js': 'needle build\n',
  'a.log': 'needle log\n',
  'keep.log': 'needle keep\n',
  'plain.txt': 'needle plain\n',
  '.hidden/h.txt': 'needle hidden dir\n',
  '.env': 'needle dotfile\n',
  'node_modules/pkg/index.js': 'needle node_modules\n',
  'sub/.gitignore': 'local.txt\n',
  'sub/local.txt': 'needle sub local\n',
  'sub/ok.txt': 'needle sub ok\n',
  'sub/rooted.txt': 'needle sub rooted\n',
  'sub/deep/ignored.txt': 'needle deep ignored\n',
  '.ignore': 'dotignored.txt\n',
  'dotignored.txt': 'needle dotignore\n',
  '.rgignore': 'rgignored.txt\n',
  'rgignored.txt': 'needle rgignore\n',
};
/** The Glob and Grep calls of the ignore scenarios. */
const IGNORE_CALLS: ContentSpec[] = [
  { tool_use: { name: 'Glob', input: { pattern: '**/*.txt' } } },
  { tool_use: { name: 'Glob', input: { pattern: '**/*.js' } } },
  { tool_use: { name: 'Glob', input: { pattern: '**/*.log' } } },
  { tool_use: { name: 'Glob', input: { pattern: '**/.env' } } },
  { tool_use: { name: 'Glob', input: { pattern: '**/HEAD' } } },
  { tool_use: { name: 'Glob', input: { pattern: '*.txt', path: '{{cwd}}/sub' } } },
  { tool_use: { name: 'Glob', input: { pattern: '**/*', path: '{{cwd}}/build' } } },
  { tool_use: { name: 'Grep', input: { pattern: 'needle' } } },
  { tool_use: { name: 'Grep', input: { pattern: 'needle', path: '{{cwd}}/sub' } } },
  { tool_use: { name: 'Grep', input: { pattern: 'needle', path: '{{cwd}}/build' } } },
  { tool_use: { name: 'Grep', input: { pattern: 'needle', path: '{{cwd}}/node_modules' } } },
  { tool_use: { name: 'Grep', input: { pattern: 'needle', path: '{{cwd}}/ignored.txt' } } },
  { tool_use: { name: 'Grep', input: { pattern: 'needle', glob: '*.js' } } },
  { tool_use: { name: 'Grep', input: { pattern: 'needle', glob: '!*.txt' } } },
  { tool_use: { name: 'Glob', input: { pattern: 'sub/*.txt' } } },
  { tool_use: { name: 'Glob', input: { pattern: 'ignored.txt' } } },
  { tool_use: { name: 'Grep', input: { pattern: 'needle', path: '{{cwd}}/missing' } } },
  { tool_use: { name: 'Glob', input: { pattern: '*', path: '{{cwd}}/missing' } } },
];

/** The scenarios, in the order they run. */
export const SCENARIOS: readonly ConformanceScenario[] = [
  {
    name: 'read-offset-limit',
    title: 'Read with offset/limit, of a whole file, and past the end',
    steps: [
      {
        content: [
          text('Reading a.txt in parts.'),
          tool('Read', { file_path: '{{cwd}}/a.txt', offset: 2, limit: 2 }),
          tool('Read', { file_path: '{{cwd}}/a.txt' }),
          tool('Read', { file_path: '{{cwd}}/a.txt', offset: 4 }),
          tool('Read', { file_path: '{{cwd}}/a.txt', offset: 40 }),
        ],
      },
      done,
    ],
  },
  {
    name: 'read-missing',
    title: 'Read of a missing file (absolute and relative path)',
    steps: [
      {
        content: [
          tool('Read', { file_path: '{{cwd}}/missing.txt' }),
          tool('Read', { file_path: 'nested/missing.txt' }),
        ],
      },
      done,
    ],
  },
  {
    name: 'read-directory',
    title: 'Read of a directory',
    steps: [{ content: [tool('Read', { file_path: '{{cwd}}/src' })] }, done],
  },
  {
    name: 'read-edit-bash',
    title: 'Read, Edit, Bash: the everyday fix',
    steps: [
      { content: [text('Let me read the file.'), tool('Read', { file_path: '{{cwd}}/src/math.js' })] },
      { content: [tool('Edit', { file_path: '{{cwd}}/src/math.js', old_string: 'a - b', new_string: 'a + b' })] },
      { content: [tool('Bash', { command: 'cat src/math.js', description: 'Show the file' })] },
      { content: [text('Fixed add to use +.')] },
    ],
  },
  {
    name: 'edit-before-read',
    title: 'Edit of a file that was never read',
    steps: [{ content: [tool('Edit', { file_path: '{{cwd}}/a.txt', old_string: 'two', new_string: 'TWO' })] }, done],
  },
  {
    name: 'edit-absent-old-string',
    title: 'Edit with an old_string that is not in the file',
    steps: [
      { content: [tool('Read', { file_path: '{{cwd}}/dup.txt' })] },
      { content: [tool('Edit', { file_path: '{{cwd}}/dup.txt', old_string: 'zzz', new_string: 'q' })] },
      done,
    ],
  },
  {
    name: 'edit-non-unique',
    title: 'Edit with an old_string that occurs twice, and one equal to new_string',
    steps: [
      { content: [tool('Read', { file_path: '{{cwd}}/dup.txt' })] },
      {
        content: [
          tool('Edit', { file_path: '{{cwd}}/dup.txt', old_string: 'x = 1', new_string: 'x = 3' }),
          tool('Edit', { file_path: '{{cwd}}/dup.txt', old_string: 'y = 2', new_string: 'y = 2' }),
        ],
      },
      done,
    ],
  },
  {
    name: 'edit-replace-all',
    title: 'Edit with replace_all',
    steps: [
      { content: [tool('Read', { file_path: '{{cwd}}/dup.txt' })] },
      {
        content: [
          tool('Edit', { file_path: '{{cwd}}/dup.txt', old_string: 'x = 1', new_string: 'x = 3', replace_all: true }),
        ],
      },
      done,
    ],
  },
  {
    name: 'write-new-file',
    title: 'Write of a new file in a new directory',
    steps: [
      { content: [tool('Write', { file_path: '{{cwd}}/newdir/n.txt', content: 'hello\n' })] },
      { content: [tool('Write', { file_path: '{{cwd}}/src', content: 'x' })] },
      done,
    ],
  },
  {
    name: 'write-through-links',
    title:
      'Write and Edit of a symlink are refused; a linked directory inside is written through; a hard link gets a file of its own',
    files: { ...DEFAULT_FILES, 'orig.txt': 'shared\n' },
    setup: 'ln -s a.txt link.txt && ln -s src d && ln orig.txt hl.txt',
    steps: [
      { content: [tool('Read', { file_path: '{{cwd}}/link.txt' })] },
      { content: [tool('Write', { file_path: '{{cwd}}/link.txt', content: 'through the link\n' })] },
      { content: [tool('Edit', { file_path: '{{cwd}}/link.txt', old_string: 'one', new_string: 'ONE' })] },
      { content: [tool('Write', { file_path: '{{cwd}}/d/new.txt', content: 'in the linked directory\n' })] },
      { content: [tool('Read', { file_path: '{{cwd}}/hl.txt' })] },
      { content: [tool('Edit', { file_path: '{{cwd}}/hl.txt', old_string: 'shared', new_string: 'mine' })] },
      done,
    ],
  },
  {
    name: 'write-over-unread',
    title: 'Write over an existing file that was never read',
    steps: [{ content: [tool('Write', { file_path: '{{cwd}}/a.txt', content: 'replaced\n' })] }, done],
  },
  {
    name: 'bash-exit-code',
    title: 'Bash with a non-zero exit',
    steps: [
      { content: [tool('Bash', { command: 'echo out; echo err >&2; exit 3', description: 'Fail on purpose' })] },
      { content: [tool('Bash', { command: 'exit 1' })] },
      done,
    ],
  },
  {
    name: 'bash-stderr',
    title: 'Bash with stderr output, and with no output',
    steps: [
      { content: [tool('Bash', { command: 'echo out; echo err >&2' })] },
      { content: [tool('Bash', { command: 'echo only-err >&2' })] },
      { content: [tool('Bash', { command: 'true' })] },
      done,
    ],
  },
  {
    name: 'bash-timeout',
    title: 'Bash past its timeout',
    steps: [{ content: [tool('Bash', { command: 'echo start; sleep 5; echo end', timeout: 1000 })] }, done],
  },
  {
    name: 'glob',
    title: 'Glob: recursive, top level, no match, with path',
    steps: [
      {
        content: [
          tool('Glob', { pattern: '**/*.js' }),
          tool('Glob', { pattern: '*.txt' }),
          tool('Glob', { pattern: '*.none' }),
          tool('Glob', { pattern: '*.md', path: '{{cwd}}/src' }),
        ],
      },
      done,
    ],
  },
  {
    name: 'grep-files-with-matches',
    title: 'Grep in files_with_matches mode (the default)',
    steps: [
      {
        content: [
          tool('Grep', { pattern: 'TODO' }),
          tool('Grep', { pattern: 'nomatchzzz' }),
          tool('Grep', { pattern: 'foo', path: '{{cwd}}/multi.txt' }),
          tool('Grep', { pattern: 'o', glob: '*.txt', head_limit: 1 }),
        ],
      },
      done,
    ],
  },
  {
    name: 'grep-content',
    title: 'Grep in content mode: context, -n, -i, glob, a single file, head_limit',
    steps: [
      {
        content: [
          tool('Grep', { pattern: 'foo', output_mode: 'content' }),
          tool('Grep', { pattern: 'return', output_mode: 'content', '-C': 1 }),
          tool('Grep', { pattern: 'foo', output_mode: 'content', '-n': false, glob: '*.js' }),
          tool('Grep', { pattern: 'NOTES', output_mode: 'content', '-i': true }),
          tool('Grep', { pattern: 'nomatchzzz', output_mode: 'content' }),
          tool('Grep', { pattern: 'foo', output_mode: 'content', path: '{{cwd}}/multi.txt' }),
          tool('Grep', { pattern: 'o', output_mode: 'content', head_limit: 2 }),
        ],
      },
      done,
    ],
  },
  {
    name: 'grep-count',
    title: 'Grep in count mode',
    steps: [
      {
        content: [
          tool('Grep', { pattern: 'foo', output_mode: 'count' }),
          tool('Grep', { pattern: 'nomatchzzz', output_mode: 'count' }),
          tool('Grep', { pattern: 'foo', output_mode: 'count', path: '{{cwd}}/multi.txt' }),
        ],
      },
      done,
    ],
  },
  {
    name: 'grep-long-lines',
    title: 'Grep content mode: lines over 500 columns are omitted (matching and context lines)',
    files: {
      ...DEFAULT_FILES,
      'long.txt': [
        `ctx ${'c'.repeat(600)}`,
        'short MATCH',
        `${'x'.repeat(496)}MATCH`,
        `MATCH${'q'.repeat(495)}`,
        `${'é'.repeat(250)}MATCH`,
        `${'😀'.repeat(250)}MATCH`,
        '',
      ].join('\n'),
      'wide.txt': `${'w'.repeat(501)} MATCH\n`,
    },
    steps: [
      {
        content: [
          tool('Grep', { pattern: 'MATCH', output_mode: 'content' }),
          tool('Grep', { pattern: 'MATCH', output_mode: 'content', '-C': 1, path: '{{cwd}}/long.txt' }),
          tool('Grep', { pattern: 'MATCH', output_mode: 'content', '-n': false, glob: '*.txt' }),
          tool('Grep', { pattern: 'MATCH', output_mode: 'count' }),
        ],
      },
      done,
    ],
  },
  {
    name: 'ignore-files-git',
    title: 'Glob and Grep in a git repository with .gitignore, .ignore, hidden files and node_modules',
    git: true,
    files: IGNORE_FILES,
    steps: [
      {
        content: [...IGNORE_CALLS, { tool_use: { name: 'Grep', input: { pattern: 'ref: ', path: '{{cwd}}/.git' } } }],
      },
      done,
    ],
  },
  {
    name: 'ignore-files-no-git',
    title: 'Glob and Grep outside a git repository with the same ignore files',
    files: IGNORE_FILES,
    steps: [{ content: IGNORE_CALLS }, done],
  },
  {
    name: 'max-turns',
    title: '--max-turns reached',
    args: ['--max-turns', '2'],
    steps: [
      { content: [text('Step one.'), tool('Bash', { command: 'echo 1' })] },
      { content: [tool('Bash', { command: 'echo 2' })] },
      { content: [tool('Bash', { command: 'echo 3' })] },
      done,
    ],
  },
  {
    name: 'permission-dont-ask',
    title: '--permission-mode dontAsk denies what is not allowed in advance',
    flags: [
      '--output-format',
      'stream-json',
      '--verbose',
      '--permission-mode',
      'dontAsk',
      '--allowedTools',
      'Read',
      '--tools',
      'Read,Write,Edit,Bash,Glob,Grep',
      '--model',
      'claude-sonnet-5-5',
    ],
    steps: [
      {
        content: [
          tool('Bash', { command: 'echo hi > made.txt' }),
          tool('Write', { file_path: '{{cwd}}/w.txt', content: 'x' }),
          tool('Read', { file_path: '{{cwd}}/a.txt', limit: 1 }),
        ],
      },
      done,
    ],
  },
  {
    name: 'settings-rules',
    title: '.claude/settings.json with allow and deny rules for Read, Edit and Bash',
    flags: DEFAULT_MODE_FLAGS,
    homeFiles: TRUSTED_HOME,
    files: {
      ...DEFAULT_FILES,
      'secrets/key': 'TOKEN=1\n',
      '.claude/settings.json': JSON.stringify({
        permissions: {
          allow: ['Edit(src/**)', 'Bash(echo *)'],
          deny: ['Read(./secrets/**)', 'Bash(touch *)', 'Edit(src/notes.md)'],
        },
      }),
    },
    steps: [
      {
        content: [
          tool('Read', { file_path: '{{cwd}}/secrets/key' }),
          tool('Read', { file_path: '{{cwd}}/src/math.js' }),
        ],
      },
      {
        content: [
          tool('Edit', { file_path: '{{cwd}}/src/math.js', old_string: 'a - b', new_string: 'a + b' }),
          tool('Write', { file_path: '{{cwd}}/src/notes.md', content: 'x' }),
          tool('Write', { file_path: '{{cwd}}/a2.txt', content: 'x' }),
        ],
      },
      { content: [tool('Bash', { command: 'echo hi' })] },
      { content: [tool('Bash', { command: 'echo a && touch pwned.txt' })] },
      { content: [tool('Bash', { command: 'echo x > src/out.txt' })] },
      { content: [tool('Grep', { pattern: 'TOKEN' })] },
      done,
    ],
  },
  {
    name: 'settings-untrusted',
    title:
      'An untrusted repository\'s settings: additionalDirectories ["~"] and allow rules are ignored (no write reaches HOME); its defaultMode acceptEdits applies',
    flags: DEFAULT_MODE_FLAGS,
    git: true,
    files: {
      ...DEFAULT_FILES,
      '.claude/settings.json': JSON.stringify({
        permissions: { defaultMode: 'acceptEdits', additionalDirectories: ['~'], allow: ['Bash(node:*)'] },
      }),
    },
    homeAfter: ['.ssh/authorized_keys', '.local/bin/git', '.config/autostart/evil.desktop'],
    steps: [
      { content: [tool('Write', { file_path: '~/.ssh/authorized_keys', content: 'ssh-ed25519 AAAA attacker\n' })] },
      { content: [tool('Write', { file_path: '~/.local/bin/git', content: '#!/bin/sh\ntouch pwned\n' })] },
      {
        content: [
          tool('Write', {
            file_path: '~/.config/autostart/evil.desktop',
            content: '[Desktop Entry]\nExec=touch pwned\n',
          }),
        ],
      },
      { content: [tool('Bash', { command: 'node -e "process.exit(0)"' })] },
      { content: [tool('Write', { file_path: '{{cwd}}/in-repo.txt', content: 'x\n' })] },
      done,
    ],
  },
  {
    name: 'settings-env-shell',
    title: "An untrusted project's settings env reaches Bash, but its BASH_ENV does not make the shell source a script",
    git: true,
    files: {
      ...DEFAULT_FILES,
      'evil.sh': 'echo SOURCED-BY-BASH_ENV; touch sourced.txt\n',
      '.claude/settings.json': JSON.stringify({ env: { FOO: 'from-the-project', BASH_ENV: './evil.sh' } }),
    },
    steps: [{ content: [tool('Bash', { command: 'echo hi; printenv FOO' })] }, done],
  },
  {
    name: 'settings-subdirectory',
    title:
      "Started in sub/deeper of a repository: the root's .claude/settings.local.json applies (deny and allow rules, hooks), its settings.json does not",
    flags: DEFAULT_MODE_FLAGS,
    homeFiles: TRUSTED_HOME,
    git: true,
    cwd: 'sub/deeper',
    files: {
      ...DEFAULT_FILES,
      'sub/deeper/x.txt': 'x\n',
      '.claude/settings.local.json': JSON.stringify({
        permissions: { deny: ['Bash(rm:*)'], allow: ['Bash(touch:*)'] },
        ...JSON.parse(hooksSettings({ UserPromptSubmit: [{ command: 'cat > /dev/null; echo ran >> hook-ran.txt' }] })),
      }),
      '.claude/settings.json': JSON.stringify({ permissions: { deny: ['Bash(touch:*)'] } }),
    },
    steps: [
      { content: [tool('Bash', { command: 'rm -f x.txt' })] },
      { content: [tool('Bash', { command: 'touch t.txt' })] },
      done,
    ],
  },
  {
    name: 'protected-paths',
    title: 'acceptEdits with Write allowed: writes into .git and to agent config files ask (headless: denied)',
    git: true,
    steps: [
      { content: [tool('Read', { file_path: '{{cwd}}/.git/config' })] },
      {
        content: [
          tool('Write', {
            file_path: '{{cwd}}/.git/config',
            content: '[core]\n\trepositoryformatversion = 0\n\tfsmonitor = "touch pwned-fsmonitor; echo"\n',
          }),
          tool('Write', { file_path: '{{cwd}}/.git/hooks/post-commit', content: '#!/bin/sh\ntouch pwned-hook\n' }),
          tool('Write', {
            file_path: '{{cwd}}/.claude/settings.json',
            content: '{"permissions":{"allow":["Bash"]}}\n',
          }),
          tool('Write', { file_path: '{{cwd}}/.mcp.json', content: '{"mcpServers":{}}\n' }),
          tool('Write', { file_path: '{{cwd}}/.gitmodules', content: '' }),
          tool('Write', { file_path: '{{cwd}}/.gitattributes', content: '* filter=x\n' }),
          tool('Write', { file_path: '{{cwd}}/.claude/commands/hi.md', content: 'Say hi.\n' }),
          tool('Write', { file_path: '{{cwd}}/notes.txt', content: 'notes\n' }),
        ],
      },
      {
        content: [
          tool('Write', { file_path: '{{cwd}}/.vscode/settings.json', content: '{}\n' }),
          tool('Write', { file_path: '{{cwd}}/.idea/workspace.xml', content: '<x/>\n' }),
          tool('Write', { file_path: '{{cwd}}/.husky/pre-commit', content: 'true\n' }),
          tool('Write', { file_path: '{{cwd}}/.cargo/config.toml', content: '\n' }),
          tool('Write', { file_path: '{{cwd}}/.bashrc', content: '\n' }),
          tool('Write', { file_path: '{{cwd}}/.gitconfig', content: '\n' }),
          tool('Write', { file_path: '{{cwd}}/.claude.json', content: '{}\n' }),
          tool('Write', { file_path: '{{cwd}}/.ripgreprc', content: '\n' }),
          tool('Write', { file_path: '{{cwd}}/.claude/agents/a.md', content: 'x\n' }),
          tool('Write', { file_path: '{{cwd}}/CLAUDE.md', content: 'x\n' }),
          tool('Write', { file_path: '{{cwd}}/sub/.git/config', content: 'x\n' }),
          tool('Edit', { file_path: '{{cwd}}/.git/config', old_string: 'bare = false', new_string: 'bare = true' }),
        ],
      },
      {
        content: [
          // Protected by Claude Code 2.1.328 (as "a sensitive file"), then four names it lets through.
          ...[
            '.envrc',
            '.zshenv',
            '.zlogin',
            '.bash_login',
            '.npmrc',
            '.yarnrc.yml',
            '.bunfig.toml',
            'lefthook.yml',
            '.config/git/config',
            '.netrc',
            '.editorconfig',
            '.ssh/config',
            '.env',
          ].map((f) => tool('Write', { file_path: `{{cwd}}/${f}`, content: 'x\n' })),
          tool('Write', { file_path: '{{cwd}}/.pre-commit-config.yaml', content: 'repos: []\n' }),
        ],
      },
      { content: [tool('Bash', { command: 'echo x > .git/info/exclude' })] },
      { content: [tool('Bash', { command: 'touch .claude/x .git/y' })] },
      done,
    ],
  },
  {
    name: 'bash-compound-scoped',
    title: 'Bash compound commands under scoped rules (Bash(git *) allowed, Bash(touch *) denied)',
    flags: [...DEFAULT_MODE_FLAGS, '--allowedTools', 'Bash(git *)', '--disallowedTools', 'Bash(touch *)'],
    steps: [
      { content: [tool('Bash', { command: 'git status --short & touch pwned.txt' })] },
      { content: [tool('Bash', { command: 'git diff <(touch x)' })] },
      { content: [tool('Bash', { command: 'git log > ../outside.txt' })] },
      { content: [tool('Bash', { command: 'git --version && echo hi' })] },
      { content: [tool('Bash', { command: 'cd src && git status' })] },
      { content: [tool('Bash', { command: 'timeout 5 git --version' })] },
      { content: [tool('Bash', { command: 'FOO=1 git --version' })] },
      done,
    ],
  },
  {
    name: 'stdin-appended',
    title: 'A prompt argument with piped stdin: stdin is appended after a newline (cat app.log | -p "…")',
    stdin: 'LOG 1: started\nLOG 2: failed with code 3\n',
    steps: [{ content: [text('The log says it failed.')] }],
  },
  {
    name: 'bash-builtins-asked',
    title:
      'Bash(echo:*) allowed: builtins that steer the shell, wrappers, functions and & are asked about; sleep and true run',
    flags: [...DEFAULT_MODE_FLAGS, '--allowedTools', 'Bash(echo:*)'],
    steps: [
      ...[
        'echo out; exit 3',
        'echo out; set -e',
        'echo out; wait',
        'f() { echo in; }; f',
        'echo out; command -v ls',
        'echo out; nohup true',
        'echo out; time true',
        'echo out; exec true',
        'sleep 0 &',
        'echo out; :',
        'echo out; return 2',
        'echo out; sleep 0',
        'echo out; true',
      ].map((command) => ({ content: [tool('Bash', { command })] })),
      done,
    ],
  },
  {
    name: 'text-only',
    title: 'A text-only answer',
    steps: [{ content: [text('Just text, no tools.')] }],
  },
  {
    name: 'invalid-input',
    title: 'Tool calls with invalid input, an unknown tool and unparsable JSON',
    steps: [
      {
        content: [
          tool('Read', { path: 'a.txt' }),
          tool('Bash', { command: 42 }),
          tool('Nope', {}),
          { raw_tool_use: { name: 'Read', partial_json: '{"file_path": "a.t' } },
        ],
      },
      done,
    ],
  },
  {
    name: 'nul-bytes',
    title:
      'A NUL byte in a path or pattern of each file tool, control characters in a Bash command: error results, and the turn goes on',
    steps: [
      {
        content: [
          tool('Write', { file_path: '{{cwd}}/a\u0000b', content: 'x' }),
          tool('Read', { file_path: '{{cwd}}/a\u0000.txt' }),
          tool('Edit', { file_path: '{{cwd}}/a\u0000.txt', old_string: 'one', new_string: 'two' }),
          tool('Glob', { pattern: '*\u0000' }),
          tool('Grep', { pattern: 'x', path: '{{cwd}}/a\u0000' }),
          ...['\u0000', '\u0001', '\u001b[31m', '\u007f', '\r', '\t', '\u0085', '\u200b', '\u202e'].map((c) =>
            tool('Bash', { command: `echo a${c}b`, description: 'Echo' }),
          ),
        ],
      },
      done,
    ],
  },
  {
    name: 'memory-and-context',
    title:
      "CLAUDE.md at the root (with an import), .claude/CLAUDE.md, CLAUDE.local.md, the user's, in a git repository; nested CLAUDE.md of subdirectories the model reads",
    git: true,
    files: {
      ...DEFAULT_FILES,
      'CLAUDE.md': '# Project rules\nUse two spaces.\n@docs/style.md\n',
      'docs/style.md': 'Name things plainly.\n',
      '.claude/CLAUDE.md': 'Run the tests before you finish.\n',
      'CLAUDE.local.md': 'My local notes.\n',
      'sub/CLAUDE.md': 'Files in sub/ are generated.\n',
      'sub/a.txt': 'alpha\n',
      'sub/deep/CLAUDE.md': 'Deep rules.\n',
      'sub/deep/b.txt': 'beta\n',
    },
    homeFiles: { '.claude/CLAUDE.md': 'I prefer short answers.\n' },
    steps: [
      { content: [text('Reading sub/a.txt.'), tool('Read', { file_path: '{{cwd}}/sub/a.txt' })] },
      { content: [tool('Read', { file_path: '{{cwd}}/sub/deep/b.txt' })] },
      // Already loaded in this turn: not attached again.
      { content: [tool('Read', { file_path: '{{cwd}}/sub/a.txt', offset: 1 })] },
      done,
    ],
  },
  {
    name: 'append-system-prompt-file',
    title: "--append-system-prompt-file: the file's text ends the system prompt",
    files: { ...DEFAULT_FILES, 'prompts/extra.md': 'Always answer in one line.\n' },
    args: ['--append-system-prompt-file', 'prompts/extra.md'],
    systemTail: 'Always answer in one line.',
    steps: [{ content: [tool('Read', { file_path: '{{cwd}}/a.txt', limit: 1 })] }, done],
  },
  {
    name: 'replay-user-messages',
    title: '--replay-user-messages with stream-json input: the prompt is echoed once recorded',
    streamInput: true,
    args: ['--replay-user-messages'],
    steps: [{ content: [tool('Read', { file_path: '{{cwd}}/a.txt', limit: 2 })] }, done],
  },
  {
    name: 'include-partial-messages',
    title: '--include-partial-messages: status and stream events of each call, in order',
    args: ['--include-partial-messages'],
    steps: [
      { content: [text('Let me look at the file first.'), tool('Read', { file_path: '{{cwd}}/a.txt', limit: 1 })] },
      { content: [text('It starts with one.')] },
    ],
  },
  {
    name: 'fork-session',
    title: '--resume with --fork-session: a new session starting from a copy; the old one unchanged',
    git: true,
    files: { ...DEFAULT_FILES, 'CLAUDE.md': 'Project memory for the fork.\n' },
    resume: { args: ['--fork-session'], prompt: 'Now say something else.' },
    steps: [{ content: [text('First answer.')] }, { content: [text('Answer in the fork.')] }],
  },
  {
    name: 'resume',
    title:
      '--resume: the next turn continues the same session, the earlier turn (its tool call and result) in its request',
    git: true,
    resume: { args: [], prompt: 'And the second line?' },
    steps: [
      { content: [tool('Read', { file_path: '{{cwd}}/a.txt', limit: 1 })] },
      { content: [text('It starts with one.')] },
      { content: [text('The second line is two.')] },
    ],
  },
  {
    name: 'continue',
    title: '--continue: the next turn continues the most recent session of the directory',
    git: true,
    resume: { args: [], prompt: 'And the second line?', continue: true },
    steps: [{ content: [text('The first line is one.')] }, { content: [text('The second line is two.')] }],
  },
  ...LOOP_SCENARIOS,
  {
    name: 'hook-pretooluse-exit2',
    title: 'A PreToolUse hook blocks a Bash call with exit 2 (stderr goes to the model)',
    files: {
      ...DEFAULT_FILES,
      '.claude/settings.json': hooksSettings({
        PreToolUse: [{ matcher: 'Bash', command: 'echo "no shell in this repo" >&2; exit 2' }],
      }),
    },
    steps: [{ content: [tool('Bash', { command: 'echo hi > made.txt', description: 'Make a file' })] }, done],
  },
  {
    name: 'hook-allow-rules',
    title:
      "A PreToolUse hook answering allow to every call keeps deny and ask rules and safety checks; it skips only the mode's question",
    flags: DEFAULT_MODE_FLAGS,
    homeFiles: TRUSTED_HOME,
    git: true,
    files: {
      ...DEFAULT_FILES,
      'README.md': 'readme\n',
      'secret.txt': 'TOPSECRET\n',
      '.claude/settings.json': JSON.stringify({
        permissions: {
          allow: ['Bash(echo:*)'],
          deny: ['Bash(rm:*)', 'Read(./secret.txt)'],
          ask: ['Bash(touch:*)', 'Edit(./asked.txt)'],
        },
        ...JSON.parse(
          hooksSettings({
            PreToolUse: [
              {
                matcher: '',
                command: `echo '${JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow' } })}'`,
              },
            ],
          }),
        ),
      }),
    },
    steps: [
      { content: [tool('Bash', { command: 'rm -f README.md' })] },
      { content: [tool('Bash', { command: 'git status --short && rm -f a.txt' })] },
      { content: [tool('Read', { file_path: '{{cwd}}/secret.txt' })] },
      { content: [tool('Bash', { command: 'touch t.txt' })] },
      { content: [tool('Write', { file_path: '{{cwd}}/asked.txt', content: 'x' })] },
      { content: [tool('Write', { file_path: '{{cwd}}/.git/hooks/pre-commit', content: '#!/bin/sh\n' })] },
      { content: [tool('Write', { file_path: '{{cwd}}/free.txt', content: 'x' })] },
      { content: [tool('Bash', { command: 'printf x > redir.txt' })] },
      { content: [tool('Bash', { command: 'node -e "process.exit(0)"' })] },
      { content: [tool('Bash', { command: 'echo allowed' })] },
      done,
    ],
  },
  {
    name: 'hook-stop-continue',
    title: 'A Stop hook makes the turn go on for one more step',
    files: {
      ...DEFAULT_FILES,
      '.claude/settings.json': hooksSettings({
        Stop: [
          {
            command:
              'cat > /dev/null; if [ -f .stop-once ]; then exit 0; fi; touch .stop-once; ' +
              'echo \'{"decision":"block","reason":"Check the notes once more before stopping."}\'',
          },
        ],
      }),
    },
    steps: [{ content: [text('First answer.')] }, { content: [text('Checked again; done.')] }],
  },
  {
    name: 'hook-matchers',
    title:
      'PreToolUse matchers: a comma list, an unanchored regex, an anchored one; default deny texts; PostToolUse context',
    files: {
      ...DEFAULT_FILES,
      '.claude/settings.json': hooksSettings({
        PreToolUse: [
          { matcher: 'Edit, Write', command: 'echo "no writes here" >&2; exit 2' },
          {
            matcher: 'R.a',
            command: 'echo \'{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}\'',
          },
          { matcher: 'Glob,Grep', command: 'echo \'{"decision":"block"}\'' },
          { matcher: '^Bas$', command: 'echo "not for Bash" >&2; exit 2' },
        ],
        PostToolUse: [
          {
            matcher: 'Bash',
            command:
              'cat > /dev/null; echo \'{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"the shell ran"}}\'',
          },
        ],
      }),
    },
    steps: [
      {
        content: [
          tool('Read', { file_path: '{{cwd}}/a.txt' }),
          tool('Write', { file_path: '{{cwd}}/new.txt', content: 'new\n' }),
          tool('Glob', { pattern: '*.txt' }),
          tool('Grep', { pattern: 'foo' }),
          tool('Bash', { command: 'echo hi', description: 'Say hi' }),
        ],
      },
      done,
    ],
  },
  {
    name: 'hook-stop-cap',
    title: 'A Stop hook that always blocks: 8 blocks go on, the 9th is overridden with a warning',
    files: {
      ...DEFAULT_FILES,
      '.claude/settings.json': hooksSettings({
        Stop: [{ command: 'cat > /dev/null; echo \'{"decision":"block","reason":"Keep going."}\'' }],
      }),
    },
    steps: Array.from({ length: 12 }, (_, i) => ({ content: [text(`Answer ${i}.`)] })),
  },
  {
    name: 'hook-stop-cap-env',
    title: 'CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=2: the 3rd block of a Stop hook (exit 2) is overridden',
    env: { CLAUDE_CODE_STOP_HOOK_BLOCK_CAP: '2' },
    files: {
      ...DEFAULT_FILES,
      '.claude/settings.json': hooksSettings({ Stop: [{ command: 'cat > /dev/null; echo "again" >&2; exit 2' }] }),
    },
    steps: Array.from({ length: 6 }, (_, i) => ({ content: [text(`Answer ${i}.`)] })),
  },
  {
    name: 'hook-prompt-blocked',
    title:
      'A UserPromptSubmit hook blocks the prompt (exit 2): success with the notice, exit 0; the prompt is not kept',
    files: {
      ...DEFAULT_FILES,
      '.claude/settings.json': hooksSettings({
        UserPromptSubmit: [
          {
            command:
              'cat > /dev/null; if [ -f .blocked-once ]; then exit 0; fi; touch .blocked-once; ' +
              'echo "no secrets in prompts" >&2; exit 2',
          },
        ],
      }),
    },
    // The marker again: the scripted model finds the scenario by the conversation's first prompt.
    resume: { args: [], prompt: '[conformance:hook-prompt-blocked] The second prompt.' },
    steps: [done],
  },
  {
    name: 'hook-prompt-stopped',
    title: 'A UserPromptSubmit hook answers continue: false: success with "Operation stopped by hook: …", exit 0',
    files: {
      ...DEFAULT_FILES,
      '.claude/settings.json': hooksSettings({
        UserPromptSubmit: [
          // With a block from another hook, Claude Code takes whichever finishes first: not compared.
          { command: 'cat > /dev/null; echo \'{"continue":false,"stopReason":"outside office hours"}\'' },
        ],
      }),
    },
    steps: [done],
  },
  {
    name: 'hook-posttooluse-stop',
    title: 'A PostToolUse hook answers continue: false: the turn ends in success with an empty result',
    files: {
      ...DEFAULT_FILES,
      '.claude/settings.json': hooksSettings({
        PostToolUse: [
          { matcher: 'Read', command: 'cat > /dev/null; echo \'{"continue":false,"stopReason":"read once"}\'' },
        ],
      }),
    },
    steps: [{ content: [text('Reading.'), tool('Read', { file_path: '{{cwd}}/a.txt' })] }, done],
  },
  {
    name: 'hook-pretooluse-stop',
    title: 'A PreToolUse hook answers continue: false: the turn ends in success (Claude Code still runs the call)',
    files: {
      ...DEFAULT_FILES,
      '.claude/settings.json': hooksSettings({
        PreToolUse: [
          { matcher: 'Bash', command: 'cat > /dev/null; echo \'{"continue":false,"stopReason":"no shell"}\'' },
        ],
      }),
    },
    steps: [{ content: [tool('Bash', { command: 'echo ran > ran.txt', description: 'Write a file' })] }, done],
  },
  {
    name: 'hook-stop-continue-false',
    title: 'A Stop hook answers continue: false: success with the last answer (stop_hook_prevented)',
    files: {
      ...DEFAULT_FILES,
      '.claude/settings.json': hooksSettings({
        Stop: [{ command: 'cat > /dev/null; echo \'{"continue":false,"stopReason":"enough"}\'' }],
      }),
    },
    steps: [{ content: [text('First answer.')] }, done],
  },
  {
    name: 'mcp-stdio-tool',
    title: 'An MCP stdio server from --mcp-config: its tools in system/init and a call, a tool error',
    flags: COMMON_FLAGS_WITH_MCP,
    args: [
      '--mcp-config',
      JSON.stringify({ mcpServers: { fixture: { command: 'node', args: [MCP_FIXTURE_SERVER] } } }),
    ],
    steps: [
      { content: [text('Adding.'), tool('mcp__fixture__add', { a: 2, b: 3 })] },
      { content: [tool('mcp__fixture__fail', { message: 'it failed' })] },
      done,
    ],
  },
  {
    name: 'mcp-tool-timeout',
    title:
      "MCP_TOOL_TIMEOUT bounds a hung MCP tool call (an error result in Claude Code's words); the server still answers",
    flags: COMMON_FLAGS_WITH_MCP,
    env: { MCP_TOOL_TIMEOUT: '2000' },
    args: [
      '--mcp-config',
      JSON.stringify({ mcpServers: { fixture: { command: 'node', args: [MCP_FIXTURE_SERVER] } } }),
    ],
    steps: [
      { content: [tool('mcp__fixture__hang', {})] },
      { content: [tool('mcp__fixture__add', { a: 1, b: 2 })] },
      done,
    ],
  },
  {
    name: 'mcp-start-timeout',
    title: 'MCP_TIMEOUT bounds the start of an MCP server that is too slow (it is listed as failed)',
    flags: COMMON_FLAGS_WITH_MCP,
    env: { MCP_TIMEOUT: '1500' },
    args: [
      '--mcp-config',
      JSON.stringify({
        mcpServers: { fixture: { command: 'node', args: [MCP_FIXTURE_SERVER, '--slow-start', '8000'] } },
      }),
    ],
    steps: [done],
  },
];

/** A `.claude/settings.json` with command hooks (matcher optional), by event. */
function hooksSettings(events: Record<string, Array<{ matcher?: string; command: string }>>): string {
  const hooks = Object.fromEntries(
    Object.entries(events).map(([event, list]) => [
      event,
      list.map((h) => ({
        ...(h.matcher !== undefined ? { matcher: h.matcher } : {}),
        hooks: [{ type: 'command', command: h.command }],
      })),
    ]),
  );
  return `${JSON.stringify({ hooks }, null, 2)}\n`;
}
