/**
 * Screenshots of the Temporal Web UI as a user sees a batch run: `node dist/demo/ui-screenshots.js
 * [--out docs/ui]` after `npm run build`. Not part of CI: it needs Debian's `chromium`
 * (`/usr/bin/chromium`, or CHROMIUM_PATH) and starts its own `agent-runner server` (Web UI on) and
 * local model server in a temporary data directory.
 *
 * It runs a small batch (two tasks that succeed, one that stops at its turn limit), then takes:
 * the batch's workflows (sessions and turns, with their summaries), the "failed agents" query,
 * and one turn's history (every activity with its summary).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { startFakeModelServer } from '../src/fake-model';
import { firstUserText } from '../src/fake-model/request';

const ROOT = resolve(__dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'agent-runner.js');
/** Columns of the workflow list in the screenshots. */
const WORKFLOW_COLUMNS = ['Status', 'AgentStatus', 'AgentTaskId', 'Type', 'AgentCostUsd', 'Workflow ID', 'Start'];

const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

function say(line: string): void {
  process.stderr.write(`[ui-screenshots] ${line}\n`);
}

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

async function main(): Promise<void> {
  const outIdx = process.argv.indexOf('--out');
  const outDir = resolve(outIdx > 0 ? (process.argv[outIdx + 1] ?? 'docs/ui') : join(ROOT, 'docs', 'ui'));
  mkdirSync(outDir, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'dar-ui-'));
  const repo = join(work, 'repo');
  mkdirSync(join(repo, 'src'), { recursive: true });
  writeFileSync(join(repo, 'src', 'parser.ts'), 'export function parse(s: string) {\n  return s.split(",");\n}\n');
  writeFileSync(join(repo, 'README.md'), '# demo repo\n');

  const fake = await startFakeModelServer({
    responder: (req, ctx) => {
      const task = /task (\S+):/.exec(firstUserText(req))?.[1] ?? '?';
      if (task === 'loops') return { content: [{ tool_use: { name: 'Glob', input: { pattern: '**/*.ts' } } }] };
      if (ctx.step === 0)
        return { content: [{ tool_use: { name: 'Read', input: { file_path: '{{cwd}}/src/parser.ts' } } }] };
      if (ctx.step === 1)
        return { content: [{ tool_use: { name: 'Bash', input: { command: 'git status --short' } } }] };
      return { content: [{ text: `${task}: done` }], usage: { output_tokens: 20 } };
    },
  });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    AGENT_RUNNER_DATA_DIR: join(work, 'data'),
    ANTHROPIC_BASE_URL: fake.baseUrl,
    ANTHROPIC_API_KEY: 'ui-demo',
  };
  delete env['TEMPORAL_ADDRESS'];
  let server: ChildProcess | undefined;
  try {
    say('starting agent-runner server (Web UI on)');
    server = spawn(process.execPath, [BIN, 'server'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    let uiUrl: string | null = null;
    for (let i = 0; i < 240 && !uiUrl; i++) {
      const s = await run(['server', 'status', '--json'], env);
      if (s.code === 0) uiUrl = (JSON.parse(s.stdout) as { uiUrl: string | null }).uiUrl;
      else await new Promise((r) => setTimeout(r, 500));
    }
    if (!uiUrl) throw new Error('the server did not come up with a Web UI');
    say(`Web UI at ${uiUrl}`);

    const tasks = join(work, 'tasks.jsonl');
    writeFileSync(
      tasks,
      [
        {
          id: 'fix-parser',
          prompt: 'task fix-parser: make parse() trim every field\nSee the issue for details.',
          cwd: repo,
        },
        { id: 'readme', prompt: 'task readme: add a usage section to the README', cwd: repo },
        { id: 'loops', prompt: 'task loops: find every TypeScript file, forever', cwd: repo, maxTurns: 3 },
      ]
        .map((t) => JSON.stringify({ ...t, allowedTools: ['Bash'] }))
        .join('\n') + '\n',
    );
    say('running a batch of three tasks');
    const batch = await run(['batch', tasks, '--batch-id', 'ui-demo', '--progress', 'none'], env);
    say(`batch exited ${batch.code}`);

    const browser = await chromium.launch({
      executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
      args: CHROMIUM_FLAGS,
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1600, height: 900 } });
      // The workflow list's columns, as a user would pick them (the UI keeps them in localStorage):
      // the runner's search attributes beside Temporal's status.
      const columns = JSON.stringify({ default: WORKFLOW_COLUMNS.map((label) => ({ label })) });
      await page.addInitScript(`localStorage.setItem('namespace-workflow-table-columns', ${JSON.stringify(columns)});`);
      const list = async (query: string, file: string): Promise<void> => {
        await page.goto(`${uiUrl}/namespaces/default/workflows?query=${encodeURIComponent(query)}`);
        await page.waitForSelector('text=turnWorkflow', { timeout: 60_000 });
        await page.waitForTimeout(1500);
        await page.screenshot({ path: join(outDir, file) });
        say(`wrote ${join(outDir, file)}`);
      };
      await list(`AgentBatchId = 'ui-demo'`, 'batch-sessions.png');
      await list(
        `WorkflowType = 'turnWorkflow' AND AgentStatus != 'success' AND AgentStatus != 'running'`,
        'failed-agents.png',
      );
      const turn = await run(['list', '--batch', 'ui-demo', '--json'], env);
      const fixParser = turn.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { task_id: string; workflow_id: string })
        .find((r) => r.task_id === 'fix-parser');
      if (!fixParser) throw new Error('no fix-parser session');
      await page.setViewportSize({ width: 1600, height: 1700 });
      await page.goto(`${uiUrl}/namespaces/default/workflows/${encodeURIComponent(`${fixParser.workflow_id}-turn-1`)}`);
      await page.waitForSelector('text=Event History', { timeout: 60_000 });
      await page.click('text=Event History');
      await page.waitForSelector('text=model call 1', { timeout: 60_000 });
      await page.waitForTimeout(1500);
      await page.screenshot({ path: join(outDir, 'turn-history.png') });
      say(`wrote ${join(outDir, 'turn-history.png')}`);
    } finally {
      await browser.close();
    }
  } finally {
    server?.kill('SIGTERM');
    await new Promise((r) => server?.once('exit', r) ?? r(undefined));
    await fake.close();
    rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`ui-screenshots failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
