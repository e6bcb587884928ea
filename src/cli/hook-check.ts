/**
 * Checks, before a run starts, that every hook command can be found: a hook whose program does
 * not exist is a configuration error (exit 2, naming the settings file and field), not something
 * to discover when the first tool call is already waiting on it.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { resolve } from 'node:path';
import type { HookCommand, HooksConfig } from '../common/hooks';

/** The program a simple command starts (its first word, quotes removed), or null when the command is not that simple. */
export function programOf(command: string, projectDir: string): string | null {
  const expanded = command.replace(/\$\{CLAUDE_PROJECT_DIR\}|\$CLAUDE_PROJECT_DIR\b/g, projectDir).trim();
  const m = /^(?:"([^"]+)"|'([^']+)'|([^\s;|&<>()$`"'\\]+))(?=$|[\s;|&<>])/.exec(expanded);
  const word = m?.[1] ?? m?.[2] ?? m?.[3];
  if (!word || /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) return null; // `VAR=x cmd …`: not checked
  return word;
}

function found(program: string, cwd: string, env: NodeJS.ProcessEnv): boolean {
  if (program.includes('/')) {
    try {
      accessSync(resolve(cwd, program), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  }
  // Builtins, functions and PATH lookups, as the shell that runs the hook sees them.
  const r = spawnSync('/bin/sh', ['-c', 'command -v -- "$1" >/dev/null 2>&1', 'sh', program], { cwd, env });
  return r.status === 0;
}

/**
 * Hooks whose program cannot be found, each as `<file>: hooks.<Event>[i].hooks[j].command: …`.
 * Commands that are not simple (pipes first, variables, subshells) are left to run time.
 */
export function missingHookCommands(hooks: HooksConfig, cwd: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const out: string[] = [];
  const all = Object.values(hooks).flat() as HookCommand[];
  for (const h of all) {
    const program = programOf(h.command, cwd);
    if (program !== null && !found(program, cwd, { ...env, CLAUDE_PROJECT_DIR: cwd })) {
      out.push(`${h.source}.command: command not found: ${program}`);
    }
  }
  return out;
}
