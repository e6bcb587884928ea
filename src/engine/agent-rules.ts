/**
 * `Agent(<type>)` permission rules, as Claude Code 2.1.328 reads them: a deny rule naming a type
 * (`Agent(Explore)`, or `Task(Explore)`, Agent's other name) refuses Agent calls of that type and
 * drops the type from the agent listing and from the "Available agents" of an unknown-type error.
 * A whole-tool rule (`Agent`) is the ordinary tool denial (src/engine/permissions.ts). Allow rules
 * naming a type change nothing: Agent calls run without asking, as in Claude Code. Pure: used by
 * the workflow (the listing) and the `planAgent` activity (the call).
 */
import { ruleContent, ruleName } from './permissions';

/** The agent types `rules` (deny rules) name, in rule order, without repeats. */
export function deniedAgentTypes(rules: readonly string[] | undefined): string[] {
  const out: string[] = [];
  for (const r of rules ?? []) {
    const type = ruleName(r) === 'Agent' ? ruleContent(r) : null;
    if (type !== null && !out.includes(type)) out.push(type);
  }
  return out;
}
