/**
 * The `hooks` section of Claude Code settings files, and where each hook came from:
 * ```json
 * {"hooks": {"PreToolUse": [{"matcher": "Bash|Edit", "hooks": [{"type": "command", "command": "…", "timeout": 30}]}]}}
 * ```
 * Events supported here: PreToolUse, PostToolUse, UserPromptSubmit, Stop, SessionStart,
 * PreCompact, SubagentStart, SubagentStop (others are accepted and ignored, with a warning). `timeout` is in seconds. The
 * files are read by the shared settings loader (src/config-files/settings.ts), which keeps each `hooks`
 * section as written; this module gives it its schema.
 */
import { z } from 'zod';
import type { HookCommand, HookEvent, HooksConfig } from '../common/hooks';
import { HOOK_EVENTS, MATCHED_HOOK_EVENTS } from '../common/hooks';
import { AgentRunnerError } from '../common/errors';

/** One hook command of a settings file. */
export const HookCommandSchema = z.looseObject({
  type: z.literal('command', { error: 'expected "command" (the only hook type agent-runner runs)' }),
  command: z.string({ error: 'expected a non-empty string' }).min(1, { error: 'expected a non-empty string' }),
  timeout: z.number({ error: 'expected a positive number of seconds' }).positive().optional(),
});

/**
 * One matcher group: a matcher (a tool name for tool events, the source for SessionStart, the
 * trigger for PreCompact; see `hookMatcherMatches`) and its commands.
 */
export const HookMatcherSchema = z.looseObject({
  matcher: z.string({ error: 'expected a string (a tool name, "A|B", a regex, or "*")' }).optional(),
  hooks: z.array(HookCommandSchema, { error: 'expected an array of hooks' }),
});

/** The `hooks` section: matcher groups by event name. */
export const HooksSectionSchema = z.record(z.string(), z.array(HookMatcherSchema, { error: 'expected an array' }), {
  error: 'expected an object of events',
});

/** Thrown for a malformed `hooks` section; names the file and the field. The CLI exits 2. */
export class HooksConfigError extends AgentRunnerError {
  override readonly name = 'HooksConfigError';
  readonly kind = 'usage';
}

function issuePath(path: readonly PropertyKey[]): string {
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
    .join('')
    .replace(/^\./, '');
}

/**
 * Parses the `hooks` value of one settings file into commands with their sources
 * (`<file>: hooks.PreToolUse[0].hooks[1]`). Unknown events are skipped (`warn`).
 * @throws HooksConfigError naming the file and field
 */
export function parseHooksSection(
  raw: unknown,
  file: string,
  warn: (m: string) => void = () => undefined,
): HooksConfig {
  const parsed = HooksSectionSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue ? issuePath(['hooks', ...issue.path]) : 'hooks';
    throw new HooksConfigError(`${file}: ${at}: ${issue?.message ?? 'invalid'}`);
  }
  const out: HooksConfig = {};
  for (const [event, groups] of Object.entries(parsed.data)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      warn(`${file}: hooks.${event}: not an event agent-runner runs hooks for; ignored`);
      continue;
    }
    const list: HookCommand[] = [];
    groups.forEach((g, gi) => {
      const problem = matcherProblem(event as HookEvent, g.matcher);
      if (problem) warn(`${file}: hooks.${event}[${gi}].matcher: ${problem}`);
      g.hooks.forEach((h, hi) => {
        list.push({
          matcher: g.matcher ?? '',
          command: h.command,
          ...(h.timeout !== undefined ? { timeoutSec: h.timeout } : {}),
          source: `${file}: hooks.${event}[${gi}].hooks[${hi}]`,
        });
      });
    });
    if (list.length) out[event as HookEvent] = list;
  }
  return out;
}

/** Why a matcher will not do what it seems to (a warning), or undefined. */
function matcherProblem(event: HookEvent, matcher: string | undefined): string | undefined {
  if (matcher === undefined || matcher === '' || matcher === '*') return undefined;
  if (!MATCHED_HOOK_EVENTS.has(event))
    return `${event} hooks have no matcher; they run for every ${event === 'Stop' ? 'stop' : 'prompt'}`;
  if (/^[a-zA-Z0-9_|, -]+$/.test(matcher)) return undefined;
  try {
    new RegExp(matcher);
    return undefined;
  } catch (e) {
    return `not a valid regular expression (${(e as Error).message}); these hooks never run`;
  }
}

/** Concatenates hooks of several files (every file's hooks run, as in Claude Code). */
export function mergeHooks(configs: readonly HooksConfig[]): HooksConfig {
  const out: HooksConfig = {};
  for (const c of configs) {
    for (const [event, list] of Object.entries(c) as Array<[HookEvent, HookCommand[]]>) {
      out[event] = [...(out[event] ?? []), ...list];
    }
  }
  return out;
}
