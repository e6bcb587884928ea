import type { ToolPermission } from '../common/tools';

/**
 * Scoped Bash rules (`--allowedTools "Bash(git *)"`, `--disallowedTools "Bash(rm *)"`), decided
 * against the actual command. The workflow does not see tool inputs, so it passes the patterns
 * to the `runTool` activity (a `checkCommand` permission) and this pure code decides there.
 *
 * Pattern syntax, as in Claude Code: `prefix:*` matches commands starting with `prefix`; `*`
 * elsewhere matches any characters; anything else must match the whole command. A compound
 * command (`&&`, `||`, `;`, `|`, newlines) is allowed only if every part is allowed, and denied if
 * any part matches a deny pattern. Command substitution (`$(…)`, backticks) cannot be checked
 * statically: with allow patterns in play it is denied.
 */

/** The pattern inside `Name(...)`, or null for an unscoped rule. */
export function ruleContent(rule: string): string | null {
  const open = rule.indexOf('(');
  if (open === -1 || !rule.trimEnd().endsWith(')')) return null;
  return rule.slice(open + 1, rule.trimEnd().length - 1).trim();
}

function escapeRegExp(s: string): string {
  return s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

/** True when one simple command matches one pattern. */
export function matchesCommandPattern(command: string, pattern: string): boolean {
  const cmd = command.trim();
  if (pattern.endsWith(':*')) return cmd.startsWith(pattern.slice(0, -2).trim());
  if (pattern.includes('*')) {
    const re = new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`, 's');
    return re.test(cmd);
  }
  return cmd === pattern.trim();
}

/** The simple commands of a compound command line. */
export function splitCommand(command: string): string[] {
  return command
    .split(/&&|\|\||;|\||\n/)
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
}

/** Decides a `checkCommand` permission for a Bash command line. */
export function resolveCommandPermission(
  command: string,
  perm: Extract<ToolPermission, { behavior: 'checkCommand' }>,
): Extract<ToolPermission, { behavior: 'allow' | 'deny' }> {
  const parts = splitCommand(command);
  const denied = parts.find((p) => perm.deny.some((pat) => matchesCommandPattern(p, pat)));
  if (denied !== undefined) {
    return {
      behavior: 'deny',
      message: `Permission to run \`${denied}\` has been denied by a disallowedTools rule (Bash(${perm.deny.join(') Bash(')})).`,
      reason: 'rule',
    };
  }
  if (perm.allow === null) return { behavior: 'allow' };
  const substitution = /\$\(|`/.test(command);
  const unmatched = parts.find((p) => !perm.allow?.some((pat) => matchesCommandPattern(p, pat)));
  if (!substitution && parts.length > 0 && unmatched === undefined) return { behavior: 'allow' };
  return {
    behavior: 'deny',
    message:
      `${perm.message} The allowed Bash commands are: Bash(${perm.allow.join('), Bash(')})` +
      (substitution
        ? '; command substitution cannot be checked and is not allowed.'
        : `; \`${unmatched ?? command}\` is not one of them.`),
    reason: 'rule',
  };
}
