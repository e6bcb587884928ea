/**
 * A turn's effort and thinking from the flags, the environment and the settings files, as Claude
 * Code 2.1.328 reads them (the `effort-thinking-matrix` and `sdk-thinking-options` recordings):
 * `--effort` (else `CLAUDE_CODE_EFFORT_LEVEL`, else settings `effortLevel`), `--max-thinking-tokens`
 * (else `MAX_THINKING_TOKENS`), `--thinking` (else settings `alwaysThinkingEnabled: false` as
 * `disabled`), `--thinking-display`, `CLAUDE_CODE_DISABLE_THINKING`, `DISABLE_INTERLEAVED_THINKING`.
 * The Agent SDK passes its `thinking`, `effort` and `maxThinkingTokens` options as these flags.
 */
import { envFlag } from '../config/provider';
import type { ThinkingOptions } from '../common/thinking';
import { EFFORT_LEVELS, THINKING_DISPLAYS, THINKING_MODES, isEffortLevel } from '../common/thinking';
import type { ThinkingDisplay, ThinkingMode } from '../common/thinking';
import { UsageError } from './usage-error';

/** The flags read here (as commander parses them). */
export interface ThinkingFlags {
  effort?: string;
  maxThinkingTokens?: string;
  thinking?: string;
  thinkingDisplay?: string;
}

/** What settings files say (merged: the highest source that sets a key wins). */
export interface ThinkingSettings {
  effortLevel?: unknown;
  alwaysThinkingEnabled?: unknown;
}

/** Sets `out.effort` from a given value (true), warning when it is not a level; false when none is given. */
function setEffort(out: ThinkingOptions, source: string, v: string | undefined, warn: (line: string) => void): boolean {
  if (v === undefined || v.trim() === '') return false;
  const level = v.trim().toLowerCase();
  if (isEffortLevel(level)) out.effort = level;
  else warn(unknownEffortWarning(source, v));
  return true;
}

function tokens(name: string, v: string | undefined): number | undefined {
  if (v === undefined || v.trim() === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0)
    throw new UsageError(`${name} must be a whole number of tokens (0 or more), got "${v}"`);
  return n;
}

/** Claude Code's warning for an effort it does not know (the run goes on with the default). */
export function unknownEffortWarning(source: string, value: string): string {
  return `Warning: Unknown ${source} value '${value}' — ignoring it and using the default effort. Valid values: ${EFFORT_LEVELS.join(', ')}.`;
}

/**
 * The turn's {@link ThinkingOptions}, or undefined when nothing is asked for (the model's
 * defaults apply). An unknown effort is ignored with Claude Code's warning, as it does.
 * @throws UsageError for a `--max-thinking-tokens`/`MAX_THINKING_TOKENS` that is not a whole
 *   number, a `--thinking` or `--thinking-display` Claude Code does not have
 */
export function thinkingOptionsFrom(
  flags: ThinkingFlags,
  env: Readonly<Record<string, string | undefined>>,
  warn: (line: string) => void = () => undefined,
): ThinkingOptions | undefined {
  const out: ThinkingOptions = {};
  if (!setEffort(out, '--effort', flags.effort, warn)) {
    setEffort(out, 'CLAUDE_CODE_EFFORT_LEVEL', env['CLAUDE_CODE_EFFORT_LEVEL'], warn);
  }
  const budget =
    tokens('--max-thinking-tokens', flags.maxThinkingTokens) ??
    tokens('MAX_THINKING_TOKENS', env['MAX_THINKING_TOKENS']);
  if (budget !== undefined) out.maxThinkingTokens = budget;
  if (flags.thinking !== undefined) {
    if (!(THINKING_MODES as readonly string[]).includes(flags.thinking)) {
      throw new UsageError(`--thinking must be one of ${THINKING_MODES.join(', ')}, got "${flags.thinking}"`);
    }
    out.mode = flags.thinking as ThinkingMode;
  }
  if (flags.thinkingDisplay !== undefined) {
    if (!(THINKING_DISPLAYS as readonly string[]).includes(flags.thinkingDisplay)) {
      throw new UsageError(
        `--thinking-display must be one of ${THINKING_DISPLAYS.join(', ')}, got "${flags.thinkingDisplay}"`,
      );
    }
    out.display = flags.thinkingDisplay as ThinkingDisplay;
  }
  if (envFlag(env['CLAUDE_CODE_DISABLE_THINKING'])) out.off = true;
  if (envFlag(env['DISABLE_INTERLEAVED_THINKING'])) out.noInterleaved = true;
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * `options` with the settings files' `effortLevel` (when neither `--effort` nor
 * `CLAUDE_CODE_EFFORT_LEVEL` gave one) and `alwaysThinkingEnabled: false` (as `--thinking
 * disabled`, when `--thinking` is not given).
 */
export function withThinkingSettings(
  options: ThinkingOptions | undefined,
  flags: ThinkingFlags,
  env: Readonly<Record<string, string | undefined>>,
  settings: ThinkingSettings,
  warn: (line: string) => void = () => undefined,
): ThinkingOptions | undefined {
  const out: ThinkingOptions = { ...options };
  const given = (v: string | undefined): boolean => v !== undefined && v.trim() !== '';
  if (typeof settings.effortLevel === 'string' && !given(flags.effort) && !given(env['CLAUDE_CODE_EFFORT_LEVEL'])) {
    setEffort(out, 'effortLevel', settings.effortLevel, warn);
  }
  if (settings.alwaysThinkingEnabled === false && flags.thinking === undefined) out.mode = 'disabled';
  return Object.keys(out).length > 0 ? out : undefined;
}
