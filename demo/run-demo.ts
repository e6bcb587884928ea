/**
 * The main demo (`npm run demo`): takes a small real package from the npm registry (ms@2.1.3),
 * breaks one documented behaviour, adds a failing test, and lets the agent fix it through
 * `agent-runner -p … --output-format stream-json`, exactly as one would run `claude -p`.
 *
 * Without `ANTHROPIC_API_KEY` the model is the project's local model server, playing a scripted
 * but checked agent (see `demo/scenario.ts`); with a key, the real model does the work.
 *
 * stdout carries only the agent's stream-json messages, one per line, the last being the result
 * message; everything else (header, progress, summary) goes to stderr. Exit code: the agent's if
 * it is not 0, else 1 when the package's tests still fail, else 0; 2 when the demo could not be
 * set up (no registry, no git, runner not built, no Temporal CLI).
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { Command } from 'commander';
import { describeMessage } from '../src/cli/output';
import type { SDKMessage } from '../src/common/sdk-messages';
import { ConfigError, loadConfig } from '../src/config';
import type { Config } from '../src/config';
import { startFakeModelServer } from '../src/fake-model';
import type { FakeModelServer } from '../src/fake-model';
import { TemporalCliNotFoundError, findProjectRoot, findTemporalCli } from '../src/host/dev-server';
import {
  BREAKAGE,
  DEMO_PACKAGE,
  DEMO_PACKAGE_SPEC,
  DEMO_TEST_FILE,
  DEMO_TEST_SCRIPT,
  FAILURE_MARKER,
  TASK_PROMPT,
} from './package-under-test';
import { buildDemoScenario } from './scenario';

/** Options of {@link runDemo}. */
export interface DemoOptions {
  /** Keep the demo repository after the run (its path is printed either way). @default true */
  keep: boolean;
}

/** Directory under the OS temp dir holding the demo's repositories and default data dir. */
export const DEMO_BASE_DIR = path.join(os.tmpdir(), 'durable-agent-runner-demo');

/**
 * The data directory the demo of the checkout at `root` uses when `AGENT_RUNNER_DATA_DIR` is not
 * set: one per checkout, named by a hash of its real path
 * (`<tmp>/durable-agent-runner-demo/data-<12 hex>`), so that the demos of two checkouts never
 * share a background server (one restarting the other's) or each other's transcripts.
 */
export function defaultDemoDataDir(root: string): string {
  let real = path.resolve(root);
  try {
    real = fs.realpathSync(real);
  } catch {
    // a path that does not exist (yet) is named as given
  }
  const hash = createHash('sha256').update(real).digest('hex').slice(0, 12);
  return path.join(DEMO_BASE_DIR, `data-${hash}`);
}

/** API key given to the agent when it talks to the local model server. */
export const LOCAL_MODEL_API_KEY = 'demo-local-model';

/** Exit code when the demo could not be set up (nothing was run). */
const EXIT_SETUP = 2;

/** A problem that stops the demo before the agent runs; its message says what to do. */
class DemoSetupError extends Error {
  override readonly name = 'DemoSetupError';
}

const say = (line = ''): void => {
  process.stderr.write(line === '' ? '[demo]\n' : `[demo] ${line}\n`);
};

const indent = (text: string, prefix = '       '): string =>
  text
    .replace(/\s+$/, '')
    .split('\n')
    .map((l) => `${prefix}${l}`)
    .join('\n');

/** The last `n` lines of a text. */
const tail = (text: string, n = 25): string => text.replace(/\s+$/, '').split('\n').slice(-n).join('\n');

/** Environment for child processes: ours, minus what would make `node --test` act as a sub-run. */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env['NODE_TEST_CONTEXT'];
  return env;
}

interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
  /** Set when the program could not be started (e.g. `ENOENT`: not installed). */
  error: NodeJS.ErrnoException | undefined;
}

/** Runs a program to completion, capturing its output (nothing reaches our stdout). */
function run(cmd: string, args: readonly string[], cwd: string, timeoutMs = 120_000): RunResult {
  const r = spawnSync(cmd, args, {
    cwd,
    env: childEnv(),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
    // npm is npm.cmd on Windows, which only runs through a shell (its arguments here have no spaces).
    shell: process.platform === 'win32' && cmd === 'npm',
  });
  return {
    status: r.status,
    stdout: r.stdout ?? '',
    stderr: r.stderr ?? '',
    error: r.error as NodeJS.ErrnoException | undefined,
  };
}

/** Fails with a clear message when `cmd` is not installed. */
function requireProgram(cmd: string, why: string): void {
  const r = run(cmd, ['--version'], process.cwd(), 30_000);
  if (r.error?.code === 'ENOENT')
    throw new DemoSetupError(`\`${cmd}\` is not installed or not on PATH; the demo needs it to ${why}.`);
  if (r.error !== undefined || r.status !== 0) {
    throw new DemoSetupError(
      `\`${cmd} --version\` failed (${r.error?.message ?? `exit ${String(r.status)}`}); the demo needs ${cmd} to ${why}.`,
    );
  }
}

/** Runs git in the demo repository with a fixed identity and no hooks or signing; throws on failure. */
function git(repo: string, args: readonly string[]): string {
  const r = run(
    'git',
    [
      '-c',
      'user.name=durable-agent-runner demo',
      '-c',
      'user.email=demo@durable-agent-runner.invalid',
      '-c',
      'commit.gpgsign=false',
      '-c',
      'init.defaultBranch=main',
      '-c',
      'core.autocrlf=false',
      ...args,
    ],
    repo,
  );
  if (r.error !== undefined || r.status !== 0) {
    throw new DemoSetupError(
      `git ${args.join(' ')} failed in ${repo}: ${r.error?.message ?? tail(r.stderr || r.stdout, 10)}`,
    );
  }
  return r.stdout;
}

/** The root of this project (holding `bin/agent-runner.js`). */
function projectRoot(): string {
  return findProjectRoot(__dirname) ?? path.resolve(__dirname, '..', '..');
}

interface Prerequisites {
  config: Config;
  /** `bin/agent-runner.js` of this project. */
  agentBin: string;
  /** How the runner reaches Temporal, for the header. */
  temporal: string;
}

/** Checks everything the demo needs before it touches the network. */
function checkPrerequisites(root: string): Prerequisites {
  const agentBin = path.join(root, 'bin', 'agent-runner.js');
  const cliEntry = path.join(root, 'dist', 'src', 'cli', 'main.js');
  if (!fs.existsSync(agentBin))
    throw new DemoSetupError(`${agentBin} is missing: is ${root} a checkout of durable-agent-runner?`);
  if (!fs.existsSync(cliEntry)) {
    throw new DemoSetupError(
      `the agent-runner CLI is not built (${cliEntry} is missing): run \`npm run build\`, or \`npm run demo\`, which builds first.`,
    );
  }
  requireProgram('npm', `download ${DEMO_PACKAGE_SPEC} (npm pack) and run its tests`);
  requireProgram('git', 'turn the package into a repository and show the fix (git diff)');
  requireProgram('tar', 'extract the packed package');

  let config: Config;
  try {
    // The agent runs with the project root as its working directory, so it reads the same file.
    config = loadConfig({ cwd: root });
  } catch (e) {
    if (e instanceof ConfigError) throw new DemoSetupError(e.message);
    throw e;
  }
  let temporal: string;
  if (config.temporal.address !== null) {
    temporal = `Temporal server at ${config.temporal.address}`;
  } else {
    try {
      const cli = findTemporalCli({ configured: config.devServer.cliPath, projectRoot: root });
      temporal = `embedded Temporal dev server (${cli})`;
    } catch (e) {
      if (e instanceof TemporalCliNotFoundError) throw new DemoSetupError(e.message);
      throw e;
    }
  }
  return { config, agentBin, temporal };
}

/** Test counts from `node --test` output (tap `# fail 1` or spec `ℹ fail 1`). */
function testCounts(output: string): { tests?: number; pass?: number; fail?: number } {
  const counts: { tests?: number; pass?: number; fail?: number } = {};
  for (const m of output.matchAll(/^(?:#|ℹ) (tests|pass|fail) (\d+)\s*$/gm)) {
    const key = m[1] as 'tests' | 'pass' | 'fail';
    counts[key] = Number(m[2]);
  }
  return counts;
}

interface NpmTestResult {
  passed: boolean;
  output: string;
  summary: string;
}

/** Runs `npm test` in the demo repository. */
function npmTest(repo: string): NpmTestResult {
  const r = run('npm', ['test'], repo, 300_000);
  const output = `${r.stdout}${r.stderr}`;
  const c = testCounts(output);
  const counts =
    c.tests !== undefined
      ? `${c.tests} tests, ${c.pass ?? '?'} passed, ${c.fail ?? '?'} failed`
      : 'no test counts in the output';
  const how = r.error !== undefined ? r.error.message : `exit ${String(r.status)}`;
  return { passed: r.error === undefined && r.status === 0, output, summary: `${how}; ${counts}` };
}

/** The first lines of npm's error output, before any stack trace. */
function npmErrorSummary(text: string): string {
  const lines = text.replace(/\s+$/, '').split('\n');
  const stack = lines.findIndex((l) => /^npm (?:error|ERR!)\s+at /.test(l));
  const head = (stack === -1 ? lines : lines.slice(0, stack)).slice(0, 8);
  return head.join('\n') || '(no output)';
}

interface DemoRepo {
  /** Commit with the injected bug and the failing test: the agent's starting point. */
  brokenCommit: string;
}

/** Packs, verifies and extracts the package into `repo`, commits it, breaks it and commits again. */
function prepareRepository(workDir: string, repo: string): DemoRepo {
  // 1. The package, as published.
  say(`npm pack ${DEMO_PACKAGE_SPEC} …`);
  const pack = run('npm', ['pack', DEMO_PACKAGE_SPEC, '--loglevel=error'], workDir, 180_000);
  const tarball = path.join(workDir, `${DEMO_PACKAGE.name}-${DEMO_PACKAGE.version}.tgz`);
  if (pack.error !== undefined || pack.status !== 0 || !fs.existsSync(tarball)) {
    throw new DemoSetupError(
      `\`npm pack ${DEMO_PACKAGE_SPEC}\` failed (${pack.error?.message ?? `exit ${String(pack.status)}`}). ` +
        'The demo downloads its package from the npm registry: check the network and `npm config get registry`.\n' +
        indent(npmErrorSummary(pack.stderr || pack.stdout)),
    );
  }
  const integrity = `sha512-${createHash('sha512').update(fs.readFileSync(tarball)).digest('base64')}`;
  if (integrity !== DEMO_PACKAGE.integrity) {
    throw new DemoSetupError(
      `${tarball} does not match the registry's integrity for ${DEMO_PACKAGE_SPEC} (got ${integrity}, expected ${DEMO_PACKAGE.integrity}).`,
    );
  }
  const untar = run('tar', ['-xzf', tarball, '-C', workDir], workDir);
  if (untar.error !== undefined || untar.status !== 0) {
    throw new DemoSetupError(`tar -xzf ${tarball} failed: ${untar.error?.message ?? tail(untar.stderr, 10)}`);
  }
  fs.renameSync(path.join(workDir, 'package'), repo);
  fs.rmSync(tarball);
  git(repo, ['init', '-q']);
  git(repo, ['add', '-A']);
  git(repo, ['commit', '-q', '--no-verify', '-m', `${DEMO_PACKAGE_SPEC} as published on npm (npm pack, unmodified)`]);

  // 2. The bug, the test, and the test script.
  const sourcePath = path.join(repo, BREAKAGE.file);
  const source = fs.readFileSync(sourcePath, 'utf8');
  const occurrences = source.split(BREAKAGE.original).length - 1;
  if (occurrences !== 1) {
    throw new DemoSetupError(
      `expected the text to break exactly once in ${BREAKAGE.file} of ${DEMO_PACKAGE_SPEC}, found it ${occurrences} times.`,
    );
  }
  fs.writeFileSync(
    sourcePath,
    source.replace(BREAKAGE.original, () => BREAKAGE.broken),
  );
  fs.mkdirSync(path.dirname(path.join(repo, DEMO_TEST_FILE.path)), { recursive: true });
  fs.writeFileSync(path.join(repo, DEMO_TEST_FILE.path), DEMO_TEST_FILE.content);
  const pkgPath = path.join(repo, 'package.json');
  const pkg = JSON.parse(fs.readFileSync(pkgPath, 'utf8')) as Record<string, unknown>;
  const scripts =
    typeof pkg['scripts'] === 'object' && pkg['scripts'] !== null ? (pkg['scripts'] as Record<string, unknown>) : {};
  pkg['scripts'] = { ...scripts, test: DEMO_TEST_SCRIPT };
  fs.writeFileSync(pkgPath, `${JSON.stringify(pkg, null, 2)}\n`);
  git(repo, ['add', '-A']);
  git(repo, [
    'commit',
    '-q',
    '--no-verify',
    '-m',
    `demo: change one line of ${BREAKAGE.file}, add ${DEMO_TEST_FILE.path} (npm test = ${DEMO_TEST_SCRIPT})`,
  ]);
  const brokenCommit = git(repo, ['rev-parse', 'HEAD']).trim();

  // 3. The tests must fail now, and on the injected bug.
  const before = npmTest(repo);
  if (before.passed) {
    throw new DemoSetupError(
      `\`npm test\` passes in ${repo} although the bug was injected: the demo cannot show a fix.\n${indent(tail(before.output))}`,
    );
  }
  if (!before.output.includes(FAILURE_MARKER)) {
    throw new DemoSetupError(
      `\`npm test\` fails in ${repo}, but not on the injected bug (no ${FAILURE_MARKER} in its output):\n${indent(tail(before.output))}`,
    );
  }
  say(`npm test fails as intended (${before.summary}): ${FAILURE_MARKER}`);
  return { brokenCommit };
}

/** Quotes an argument for display in a POSIX shell command line. */
function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

interface AgentRun {
  /** Exit code of `agent-runner` (1 when it died from a signal). */
  code: number;
  /** The last line it printed on stdout (the result message when all went well). */
  lastLine: string | undefined;
}

/** Runs `agent-runner -p` on the repository, relaying its stdout lines and its stderr as they come. */
function runAgent(agentBin: string, root: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<AgentRun> {
  return new Promise<AgentRun>((resolve, reject) => {
    const child = spawn(process.execPath, [agentBin, ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let lastLine: string | undefined;
    let interrupts = 0;
    const onSigint = (): void => {
      // The terminal sends Ctrl-C to the agent too: it ends the turn and prints its result.
      interrupts++;
      if (interrupts === 1) say('Ctrl-C: waiting for the agent to stop (Ctrl-C again to stop it at once)');
      else child.kill('SIGKILL');
    };
    const onSigterm = (): void => {
      child.kill('SIGTERM');
    };
    process.on('SIGINT', onSigint);
    process.on('SIGTERM', onSigterm);

    child.stderr.pipe(process.stderr, { end: false });
    const lines = readline.createInterface({ input: child.stdout, crlfDelay: Infinity });
    lines.on('line', (line) => {
      if (line.trim() === '') return;
      process.stdout.write(`${line}\n`);
      lastLine = line;
      let msg: SDKMessage;
      try {
        msg = JSON.parse(line) as SDKMessage;
      } catch {
        return;
      }
      try {
        const described = describeMessage(msg);
        if (described) process.stderr.write(`${indent(described, '[agent] ')}\n`);
      } catch {
        // A message of a shape we do not know: it is relayed on stdout all the same.
      }
    });
    child.once('error', (e) => {
      process.off('SIGINT', onSigint);
      process.off('SIGTERM', onSigterm);
      reject(e);
    });
    child.once('close', (code, signal) => {
      process.off('SIGINT', onSigint);
      process.off('SIGTERM', onSigterm);
      if (signal !== null) say(`agent-runner was killed by ${signal}`);
      resolve({ code: code ?? 1, lastLine });
    });
  });
}

/** Prints the outcome on stderr and returns the demo's exit code. */
function report(
  repo: string,
  demo: DemoRepo,
  agent: AgentRun,
  keep: boolean,
  workDir: string,
  dataDir: string,
): number {
  say();
  say('──────────────── outcome ────────────────');
  let result: Record<string, unknown> | undefined;
  try {
    const parsed = agent.lastLine !== undefined ? (JSON.parse(agent.lastLine) as unknown) : undefined;
    if (typeof parsed === 'object' && parsed !== null && (parsed as Record<string, unknown>)['type'] === 'result') {
      result = parsed as Record<string, unknown>;
    }
  } catch {
    // reported below
  }
  say(
    `agent-runner exited with ${agent.code}; ` +
      (result !== undefined
        ? `result: ${String(result['subtype'])} after ${String(result['num_turns'])} model calls, session ${String(result['session_id'])}`
        : 'its last stdout line is not a result message'),
  );

  const testTouched: string[] = [];
  try {
    // Mark new files so that `git diff` shows them too.
    git(repo, ['add', '-A', '--intent-to-add']);
    const stat = git(repo, ['diff', '--stat', demo.brokenCommit]).trim();
    say(`the fix (git diff --stat ${demo.brokenCommit.slice(0, 12)}):`);
    process.stderr.write(`${stat === '' ? '       (no changes)' : indent(stat)}\n`);
    const sourceDiff = git(repo, ['diff', demo.brokenCommit, '--', BREAKAGE.file]).trim();
    if (sourceDiff !== '') {
      const lines = sourceDiff.split('\n');
      process.stderr.write(`${indent(lines.slice(0, 40).join('\n'))}\n`);
      if (lines.length > 40) say(`  … ${lines.length - 40} more diff lines`);
    }
    const changedTest = git(repo, ['diff', '--name-only', demo.brokenCommit, '--', DEMO_TEST_FILE.path]).trim();
    if (changedTest !== '') testTouched.push(changedTest);
  } catch (e) {
    say(`cannot show the fix: ${e instanceof Error ? e.message : String(e)}`);
  }
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8')) as {
      scripts?: { test?: unknown };
    };
    if (pkg.scripts?.test !== DEMO_TEST_SCRIPT) testTouched.push('scripts.test of package.json');
  } catch {
    testTouched.push('package.json (unreadable)');
  }

  const after = npmTest(repo);
  if (after.passed) say(`npm test PASSES in ${repo} (${after.summary})`);
  else {
    say(`npm test FAILS in ${repo} (${after.summary}):`);
    process.stderr.write(`${indent(tail(after.output))}\n`);
  }
  if (testTouched.length > 0) {
    say(`the agent changed the tests or the test script (${testTouched.join(', ')}): that does not count as a fix`);
  }

  if (keep) {
    say(`repository: ${repo} (git log, git diff ${demo.brokenCommit.slice(0, 12)})`);
  } else {
    fs.rmSync(workDir, { recursive: true, force: true });
    say(`removed ${workDir} (--no-keep)`);
  }
  say(`transcripts and Temporal state: ${dataDir}`);

  const fixed = after.passed && testTouched.length === 0;
  const exitCode = agent.code !== 0 ? agent.code : fixed ? 0 : 1;
  say(exitCode === 0 ? 'demo succeeded: the agent fixed the bug' : `demo failed (exit ${exitCode})`);
  return exitCode;
}

/**
 * Runs the demo end to end and returns its exit code (see the file comment). Never writes to
 * stdout except the agent's stream-json lines.
 */
export async function runDemo(opts: DemoOptions): Promise<number> {
  process.stdout.on('error', () => undefined);
  const root = projectRoot();
  const dataDir = path.resolve(process.env['AGENT_RUNNER_DATA_DIR'] || defaultDemoDataDir(root));
  fs.mkdirSync(DEMO_BASE_DIR, { recursive: true });
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const workDir = fs.realpathSync(fs.mkdtempSync(path.join(DEMO_BASE_DIR, 'run-')));
  const repo = path.join(workDir, DEMO_PACKAGE.name);

  say('durable-agent-runner demo: an agent fixes a real bug in a real npm package');
  say(
    `package:    ${DEMO_PACKAGE_SPEC} from the npm registry (${DEMO_PACKAGE.license}, ${DEMO_PACKAGE.repository}), not written by this project`,
  );
  say(
    `broken:     ${BREAKAGE.file}, ${BREAKAGE.functionName}(): \`${BREAKAGE.originalLine}\` → \`${BREAKAGE.brokenLine}\``,
  );
  say(`            so ${BREAKAGE.effect}`);
  say(`test:       ${DEMO_TEST_FILE.path} (node:test, readme examples); npm test = ${DEMO_TEST_SCRIPT}`);
  say(`repository: ${repo}`);
  say(`data dir:   ${dataDir} (AGENT_RUNNER_DATA_DIR)`);

  let prereq: Prerequisites;
  let demo: DemoRepo;
  try {
    prereq = checkPrerequisites(root);
    say(`temporal:   ${prereq.temporal}`);
    demo = prepareRepository(workDir, repo);
  } catch (e) {
    if (!fs.existsSync(repo)) fs.rmSync(workDir, { recursive: true, force: true });
    if (e instanceof DemoSetupError) {
      say(`cannot set up the demo: ${e.message}`);
      return EXIT_SETUP;
    }
    throw e;
  }

  const apiKeyEnv = prereq.config.model.apiKeyEnv;
  const env: Record<string, string> = { AGENT_RUNNER_DATA_DIR: dataDir };
  let server: FakeModelServer | undefined;
  if (process.env[apiKeyEnv]) {
    const api = prereq.config.model.baseUrl ?? 'the Anthropic API';
    say(
      `model:      ${prereq.config.model.name} via ${api}, because ${apiKeyEnv} is set: the real model does the work`,
    );
  } else {
    server = await startFakeModelServer({
      scenario: buildDemoScenario(),
      onRequest: (entry) => {
        if (entry.outcome !== 'completed')
          say(
            `local model server: request ${entry.seq} (step ${entry.step}) → ${entry.outcome} ${entry.status}: ${entry.error ?? ''}`,
          );
      },
    });
    env['ANTHROPIC_BASE_URL'] = server.baseUrl;
    env[apiKeyEnv] = LOCAL_MODEL_API_KEY;
    say(`model:      the local model server at ${server.baseUrl}, because ${apiKeyEnv} is not set;`);
    say('            it plays a scripted agent whose every step checks the tool result it gets (demo/scenario.ts).');
    say(`            Set ${apiKeyEnv} to let the real model do the work.`);
  }

  const args = [
    '-p',
    TASK_PROMPT,
    '--cwd',
    repo,
    '--output-format',
    'stream-json',
    '--verbose',
    '--permission-mode',
    'acceptEdits',
    '--allowedTools',
    'Bash',
  ];
  say(`running:    agent-runner ${args.map(shellQuote).join(' ')}`);
  say();

  let agent: AgentRun;
  try {
    agent = await runAgent(prereq.agentBin, root, args, childEnv(env));
  } finally {
    await server?.close();
  }
  return report(repo, demo, agent, opts.keep, workDir, dataDir);
}

/** Command line of the demo (`node dist/demo/run-demo.js --help`). */
export function buildDemoProgram(onRun: (opts: DemoOptions) => Promise<void>): Command {
  return new Command('run-demo')
    .description(
      `Downloads ${DEMO_PACKAGE_SPEC} from the npm registry, breaks one line of ${BREAKAGE.functionName}() in ` +
        `${BREAKAGE.file} so that ${BREAKAGE.effect},\nadds a failing test and lets agent-runner fix it.\n` +
        "stdout: the agent's stream-json messages (the last line is the result); stderr: everything else.\n" +
        'Without ANTHROPIC_API_KEY the local model server plays the agent; with it, the real model does.',
    )
    .option('--keep', 'keep the demo repository afterwards (the default; its path is printed)')
    .option('--no-keep', 'delete the demo repository afterwards')
    .addHelpText(
      'after',
      `
Exit codes: 0 the tests pass after the agent's fix; 1 they still fail; the agent's exit code
if it is not 0; 2 the demo could not be set up (no registry, git, build or Temporal CLI).

Environment: ANTHROPIC_API_KEY (use the real model), AGENT_RUNNER_DATA_DIR (default
${defaultDemoDataDir(projectRoot())}, one per checkout), TEMPORAL_CLI_PATH, TEMPORAL_ADDRESS.`,
    )
    .action(async (flags: { keep?: boolean }) => {
      await onRun({ keep: flags.keep ?? true });
    });
}

/** Entry point: parses `argv`, runs the demo, returns the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  let code = 0;
  const program = buildDemoProgram(async (opts) => {
    code = await runDemo(opts);
  });
  program.exitOverride();
  try {
    await program.parseAsync([...argv]);
  } catch (e) {
    const ce = e as { code?: string; exitCode?: number };
    if (ce.code === 'commander.helpDisplayed' || ce.code === 'commander.help' || ce.code === 'commander.version')
      return 0;
    if (typeof ce.code === 'string' && ce.code.startsWith('commander.')) return EXIT_SETUP;
    throw e;
  }
  return code;
}

if (require.main === module) {
  main(process.argv).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`[demo] failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exitCode = 1;
    },
  );
}
