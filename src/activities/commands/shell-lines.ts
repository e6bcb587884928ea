/**
 * The `` !`command` `` lines of a custom command or skill: each runs before the model is asked,
 * in the working directory, under the turn's permission rules for Bash (the command's
 * `allowed-tools` among them), and its output takes its place. The first one refused or failing
 * stops the expansion (Claude Code 2.1.328: the command then answers with the error).
 */
import { spawn } from 'node:child_process';
import type { ShellLineFailure } from '../../common/command-text';
import type { ToolPermission } from '../../common/tools';
import { resolveToolPermission } from '../tool-permission';

/** Timeout of one shell line, ms (Claude Code's Bash default). */
export const SHELL_LINE_TIMEOUT_MS = 120_000;
/** Output kept of one shell line (characters per stream). */
const MAX_OUTPUT_CHARS = 100_000;

const PATTERN = /!`([^`]+)`/g;

/** The shell lines of a body, in order (`pattern` as written, `command` inside the backticks). */
export function shellLinesOf(body: string): Array<{ pattern: string; command: string }> {
  return [...body.matchAll(PATTERN)].map((m) => ({ pattern: m[0], command: m[1] ?? '' }));
}

/** How one shell line ran. */
interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  error?: string;
}

function runShell(command: string, cwd: string, env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn('/bin/bash', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    const kill = (): void => {
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
    };
    const timer = setTimeout(kill, SHELL_LINE_TIMEOUT_MS);
    signal?.addEventListener('abort', kill, { once: true });
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      if (stdout.length < MAX_OUTPUT_CHARS) stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      if (stderr.length < MAX_OUTPUT_CHARS) stderr += d;
    });
    child.once('error', (e) => {
      clearTimeout(timer);
      resolve({ code: null, stdout, stderr, error: e.message });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', kill);
      resolve({ code, stdout, stderr });
    });
  });
}

function failureMessage(r: RunResult): string {
  if (r.error !== undefined) return r.error;
  const parts = [
    ...(r.stdout.trim() !== '' ? [`[stdout]\n${r.stdout.trimEnd()}`] : []),
    ...(r.stderr.trim() !== '' ? [`[stderr]\n${r.stderr.trimEnd()}`] : []),
  ];
  return parts.length ? parts.join('\n') : `Exit code ${r.code ?? 'unknown (killed)'}`;
}

/** What running a body's shell lines came to: the body with their output, or the first failure. */
export type ShellLinesResult = { body: string; failure?: undefined } | { body?: undefined; failure: ShellLineFailure };

/** Runs the shell lines of `body` in order and puts each one's output (trailing newlines cut) in its place. */
export async function runShellLines(
  body: string,
  ctx: { cwd: string; permission: ToolPermission; env: NodeJS.ProcessEnv; signal?: AbortSignal },
): Promise<ShellLinesResult> {
  const lines = shellLinesOf(body);
  if (lines.length === 0) return { body };
  const outputs: string[] = [];
  for (const line of lines) {
    const decision = await resolveToolPermission(ctx.permission, {
      toolName: 'Bash',
      input: { command: line.command },
      cwd: ctx.cwd,
      exportedNames: new Set(Object.keys(ctx.env)),
    });
    if (decision.behavior === 'deny') {
      return { failure: { kind: 'permission', pattern: line.pattern, message: decision.message } };
    }
    const r = await runShell(line.command, ctx.cwd, ctx.env, ctx.signal);
    if (r.code !== 0) return { failure: { kind: 'failed', pattern: line.pattern, message: failureMessage(r) } };
    outputs.push(r.stdout.replace(/\n+$/, ''));
  }
  let i = 0;
  return { body: body.replace(PATTERN, () => outputs[i++] ?? '') };
}
