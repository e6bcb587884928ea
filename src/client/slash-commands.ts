/**
 * What a typed prompt is, given the session's definitions (Claude Code 2.1.328's rules,
 * docs/reference/claude-code-commands-skills-model.md): the runner's own `/compact` and `/clear`;
 * a custom command or skill (`/fix-ci src/math.js`), whose `model` and `allowed-tools` apply to
 * the turn it starts; a `/name` the session has no command for (the model is told so); under
 * `--bare` a skill name (answered as unavailable); or a plain message (a path such as
 * `/usr/bin/env …` is one).
 */
import type { PromptCommand } from '../common/prompt-command';
import { MAX_COMMAND_NAME_CHARS } from '../common/commands';
import { commandReplayText } from '../common/command-text';
import { promptCommandOf, slashCommandOf } from '../common/prompt-command';
import type { TurnOptions } from '../common/turn';
import type { Definitions } from '../config-files/definitions/types';
import { findCommand } from '../config-files/definitions/catalog';
import { canonicalRule } from '../config-files/settings';
import { ruleSyntaxError } from '../config-files/permission-rules';
import { resolveModelAlias } from '../config/model-aliases';

/** The session's definitions as the client sees them. */
export interface SessionDefinitions {
  definitions: Definitions;
  /** `--bare`: no command runs; these skill names are answered as unavailable. */
  bare?: { skillNames: readonly string[] };
}

/** A prompt, resolved. */
export interface ResolvedPrompt {
  command?: PromptCommand;
  /** Options of this turn only (a command's `model`, its `allowed-tools` added to the turn's rules). */
  overrides?: Partial<Pick<TurnOptions, 'model' | 'allowedTools'>>;
  /** The user message `--replay-user-messages` echoes (the command block for a command). */
  replayText?: string;
  /** Problems with the command's frontmatter (a rule that cannot be parsed), for stderr. */
  warnings: string[];
}

/**
 * Resolves a prompt against the session's definitions.
 * @param turn the turn's options so far (its allow rules and working directory), to add to
 */
export function resolvePrompt(
  prompt: string,
  defs: SessionDefinitions | undefined,
  turn: { allowedTools?: readonly string[]; cwd: string },
): ResolvedPrompt {
  const runner = promptCommandOf(prompt);
  if (runner) return { command: runner, warnings: [] };
  const typed = slashCommandOf(prompt);
  if (!typed || !defs) return { warnings: [] };
  const name = typed.name.slice(0, MAX_COMMAND_NAME_CHARS);
  if (defs.bare) {
    return defs.bare.skillNames.includes(typed.name)
      ? { command: { name: 'unavailable', command: name }, warnings: [] }
      : { warnings: [] };
  }
  const def = findCommand(defs.definitions, typed.name);
  if (!def) return { command: { name: 'unknown', command: name }, warnings: [] };
  const warnings: string[] = [];
  const rules = def.allowedTools.filter((r) => {
    const e = ruleSyntaxError(r);
    if (e !== null) warnings.push(`${def.path}: allowed-tools: ${e}; ignored`);
    return e === null;
  });
  const allowed = [...(turn.allowedTools ?? [])];
  for (const r of rules.map((x) => canonicalRule(x, turn.cwd, turn.cwd))) if (!allowed.includes(r)) allowed.push(r);
  const overrides: ResolvedPrompt['overrides'] = {
    ...(def.model !== undefined ? { model: resolveModelAlias(def.model) } : {}),
    ...(rules.length ? { allowedTools: allowed } : {}),
  };
  return {
    command: { name: 'custom', command: name },
    ...(Object.keys(overrides).length ? { overrides } : {}),
    replayText: commandReplayText(typed.name, typed.args),
    warnings,
  };
}
