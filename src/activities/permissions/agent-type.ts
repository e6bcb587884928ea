/**
 * The `Agent(<type>)` decision of one Agent call (the rules: src/engine/agent-rules.ts), with
 * Claude Code 2.1.328's text. As there, a denied type is a failed call (its tool_result is the
 * text, marked is_error), not a permission denial: `permission_denials` does not list it.
 */

/** Claude Code's refusal of an Agent call whose type a deny rule names (`source`: where the rule came from). */
export function agentTypeDeniedText(agentType: string, source: string | undefined): string {
  return `Agent type '${agentType}' has been denied by permission rule 'Agent(${agentType})' from ${source ?? 'settings'}.`;
}

/**
 * The refusal text of starting an agent of type `agentType` when deny rules name the types
 * `denied`, or undefined when none names it.
 * @param sources where each type's rule came from (TurnOptions.agentRuleSources)
 */
export function decideAgentType(
  agentType: string,
  denied: readonly string[],
  sources: Readonly<Record<string, string>> | undefined,
): string | undefined {
  return denied.includes(agentType) ? agentTypeDeniedText(agentType, sources?.[agentType]) : undefined;
}
