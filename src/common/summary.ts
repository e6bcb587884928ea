/**
 * Short, single-line labels of what a turn does, for the Temporal Web UI (workflow summaries,
 * activity summaries, current details) and `agent-runner status`. Pure; used by workflows and
 * activities. Labels carry at most a short first line of a command, pattern or path: never
 * content (DESIGN.md rule 1).
 */

/** Longest label, in characters (a summary is kept in history once per activity: small on purpose). */
export const LABEL_CHARS = 60;

/** The first non-empty line of `text`, trimmed and cut to `max` characters (with `…`). */
export function firstLine(text: string, max = LABEL_CHARS): string {
  const line =
    text
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim() ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** `path` relative to `cwd` when inside it (`src/x.ts`), else as given. */
export function relativeTo(cwd: string, path: string): string {
  const base = cwd.endsWith('/') ? cwd : `${cwd}/`;
  return path.startsWith(base) ? path.slice(base.length) : path;
}

/**
 * The label of a tool call: `Bash: npm test`, `Edit src/x.ts`, `Read src/a.ts`,
 * `Grep "TODO" in src`, `Glob **\/*.ts`, or the tool name alone for anything else.
 */
export function toolUseLabel(name: string, input: unknown, cwd: string): string {
  const i = (input && typeof input === 'object' ? input : {}) as Record<string, unknown>;
  const str = (k: string): string | undefined =>
    typeof i[k] === 'string' && i[k] !== '' ? (i[k] as string) : undefined;
  const path = (k: string): string | undefined => {
    const p = str(k);
    return p === undefined ? undefined : relativeTo(cwd, p);
  };
  let label: string;
  switch (name) {
    case 'Bash':
      label = str('command') !== undefined ? `Bash: ${firstLine(str('command') as string)}` : 'Bash';
      break;
    case 'Read':
    case 'Write':
    case 'Edit':
      label = path('file_path') !== undefined ? `${name} ${path('file_path')}` : name;
      break;
    case 'Grep':
      label =
        `Grep ${str('pattern') !== undefined ? JSON.stringify(firstLine(str('pattern') as string, 40)) : ''}` +
        (path('path') !== undefined ? ` in ${path('path')}` : '');
      break;
    case 'Glob':
      label = `Glob ${str('pattern') ?? ''}${path('path') !== undefined ? ` in ${path('path')}` : ''}`;
      break;
    default:
      label = name;
  }
  return firstLine(label);
}

/** The label of the n-th model call of a turn, once its answer is known: `model call 3 → tool_use Edit, Read`. */
export function modelCallLabel(n: number, toolNames: readonly string[], stopReason: string | null): string {
  const what =
    toolNames.length > 0
      ? `tool_use ${[...new Set(toolNames)].join(', ')}`
      : stopReason === 'end_turn' || stopReason === null
        ? 'answer'
        : stopReason;
  return firstLine(`model call ${n} → ${what}`);
}
