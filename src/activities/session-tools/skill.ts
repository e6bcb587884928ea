/**
 * The Skill tool: loads a skill or custom command of the session (from its stored definitions)
 * into the conversation, as Claude Code 2.1.328 does: the tool_result `Launching skill: <name>`,
 * then, on the same line, the skill's text (its directory named first, arguments filled in, `!`
 * lines run, `@` files attached). The text is recorded in the store with the result, so a resumed
 * turn, or one that moved to another host, sees what was loaded even if the file changed since.
 * A skill's `allowed-tools` become allow rules of the turn from then on; in every mode but
 * `bypassPermissions`, loading one that has them needs an allow rule (`Skill` or `Skill(name)`).
 */
import type { ContentBlock } from '../../common/transcript';
import type { ToolPermission } from '../../common/tools';
import { MAX_SKILL_RULE_CHARS, MAX_SKILL_RULES } from '../../common/tools';
import {
  launchingSkillText,
  shellFailureText,
  skillNotInvocableText,
  skillPermissionText,
} from '../../common/command-text';
import type { CommandDefinition, Definitions } from '../../config-files/definitions/types';
import { findCommand } from '../../config-files/definitions/catalog';
import { ruleContent, ruleName } from '../../engine/permissions';
import { SKILL_TOOL } from '../../common/session-tools';
import { expandDefinition } from '../commands/expand';
import type { ToolOutput } from '../tools/types';

/** What a Skill call came to. */
export type SkillOutput = ToolOutput & { outcome: 'ok' | 'error' | 'denied' | 'invalid' };

function toolError(message: string): SkillOutput {
  return {
    content: `<tool_use_error>${message}</tool_use_error>`,
    isError: true,
    structured: `Error: ${message}`,
    outcome: 'error',
  };
}

/** Whether the rules let this skill load (a deny rule names it; a skill with allowed-tools needs an allow rule). */
function skillDecision(def: CommandDefinition, permission: ToolPermission): { deny?: string } {
  if (permission.behavior === 'allow') return {};
  if (permission.behavior !== 'check') return {};
  const names = (r: string): boolean => {
    if (ruleName(r) !== SKILL_TOOL) return false;
    const c = ruleContent(r);
    return c === null || c === def.name || (c.endsWith(':*') && def.name.startsWith(c.slice(0, -2)));
  };
  if (permission.rules.deny.some(names))
    return { deny: `Permission to use Skill(${def.name}) has been denied by a permission rule.` };
  if (def.allowedTools.length === 0) return {};
  if (permission.mode === 'bypassPermissions' || permission.rules.allow.some(names)) return {};
  return { deny: skillPermissionText(def.name) };
}

/**
 * How the loaded command's `!` lines are decided: as Bash calls of the turn, with its own
 * `allowed-tools` among the allow rules (the `Skill` rules say nothing about them).
 */
function shellPermission(def: CommandDefinition, permission: ToolPermission): ToolPermission {
  if (permission.behavior !== 'check') return permission;
  const notSkill = (r: string): boolean => ruleName(r) !== SKILL_TOOL;
  return {
    ...permission,
    rules: {
      allow: [...permission.rules.allow.filter(notSkill), ...def.allowedTools],
      deny: permission.rules.deny.filter(notSkill),
      ask: permission.rules.ask.filter(notSkill),
    },
  };
}

/** Runs one Skill call. */
export async function runSkill(
  rawInput: unknown,
  ctx: {
    defs: Definitions;
    cwd: string;
    permission: ToolPermission;
    env: NodeJS.ProcessEnv;
    signal: AbortSignal;
  },
): Promise<SkillOutput> {
  const rec = (rawInput ?? {}) as Record<string, unknown>;
  if (typeof rec['skill'] !== 'string' || rec['skill'].trim() === '') {
    return {
      content:
        '<tool_use_error>InputValidationError: Skill failed due to the following issue:\nThe required parameter `skill` is missing</tool_use_error>',
      isError: true,
      structured: 'InputValidationError: skill is required',
      outcome: 'invalid',
    };
  }
  const name = rec['skill'].trim().replace(/^\//, '');
  const args = typeof rec['args'] === 'string' ? rec['args'] : '';
  const def = findCommand(ctx.defs, name);
  if (!def) return toolError(`Unknown skill: ${name}`);
  if (def.disableModelInvocation) return toolError(skillNotInvocableText(name));
  const decision = skillDecision(def, ctx.permission);
  if (decision.deny !== undefined) {
    return { content: decision.deny, isError: true, structured: `Error: ${decision.deny}`, outcome: 'denied' };
  }
  const expansion = await expandDefinition(def, args, {
    cwd: ctx.cwd,
    permission: shellPermission(def, ctx.permission),
    env: ctx.env,
    signal: ctx.signal,
    style: 'skill',
  });
  if (expansion.failure) return toolError(shellFailureText(expansion.failure));
  const rules = def.allowedTools.slice(0, MAX_SKILL_RULES).filter((r) => r.length <= MAX_SKILL_RULE_CHARS);
  const followUp: ContentBlock[] = [{ type: 'text', text: expansion.text }];
  return {
    content: launchingSkillText(name),
    isError: false,
    structured: {
      success: true,
      commandName: name,
      ...(def.allowedTools.length ? { allowedTools: def.allowedTools } : {}),
    },
    outcome: 'ok',
    followUp,
    ...(expansion.files.length ? { attachments: expansion.files } : {}),
    ...(rules.length ? { allowedRules: rules } : {}),
  };
}
