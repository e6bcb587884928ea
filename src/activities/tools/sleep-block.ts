/**
 * Claude Code 2.1.328's block of a long foreground `sleep` (recording bash-sleep-blocked, its
 * bundle): a foreground Bash command whose first subcommand is `sleep N` with N of at least
 * {@link SLEEP_BLOCK_SECONDS} is refused, with a pointer to Monitor and `run_in_background`.
 */

/** Seconds from which a leading foreground `sleep` is refused (2.1.328's). */
export const SLEEP_BLOCK_SECONDS = 25;

/** The text before the first unquoted `;`, `&`, `|` or newline (the first subcommand). */
function firstSubcommand(command: string): string {
  let quote: string | null = null;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = null;
    } else if (c === '\\') i++;
    else if (c === '"' || c === "'") quote = c;
    else if (c === ';' || c === '&' || c === '|' || c === '\n') return command.slice(0, i);
  }
  return command;
}

/**
 * Why a foreground command is blocked (`standalone sleep 30`, `sleep 30 followed by: make`), or
 * null when it may run.
 */
export function blockedSleep(command: string): string | null {
  const first = firstSubcommand(command);
  const m = /^sleep\s+(\d+(?:\.\d*)?)\s*$/.exec(first.trim());
  if (!m) return null;
  const seconds = parseFloat(m[1]!);
  if (seconds < SLEEP_BLOCK_SECONDS) return null;
  const rest = command
    .slice(first.length)
    .replace(/^[\s;&|]+/, '')
    .trim();
  return rest ? `sleep ${seconds} followed by: ${rest}` : `standalone sleep ${seconds}`;
}

/** The refusal's message (inside `<tool_use_error>`). */
export function sleepBlockedMessage(reason: string): string {
  return `Blocked: ${reason}. To wait for a condition, use Monitor with an until-loop (e.g. \`until <check>; do sleep 2; done\`). To wait for a command you started, use run_in_background: true. Do not chain shorter sleeps to work around this block.`;
}
