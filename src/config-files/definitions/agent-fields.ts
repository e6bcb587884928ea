/**
 * The run settings of an agent type, as `.claude/agents/*.md` frontmatter and `--agents` JSON give
 * them (Claude Code 2.1.328's keys): `permissionMode`, `maxTurns`, `effort` and `background` are
 * applied to the agent's runs; `skills`, `mcpServers` and `isolation` are kept but not applied
 * yet (docs/agents.md), and their loader warns once per key. A bad value is a problem the caller
 * reports (a warning for a file, a usage error for `--agents`); the key is then left out.
 */
import type { AgentDefinition } from '../../common/agents';
import { EFFORT_LEVELS, type EffortLevel } from '../../common/thinking';
import { PERMISSION_MODES, type PermissionMode } from '../../common/permissions';
import { flagField, textField, toolListField } from './frontmatter';

/** The run settings of an agent type (a subset of the common AgentDefinition). */
export type AgentRunFields = Pick<
  AgentDefinition,
  'permissionMode' | 'maxTurns' | 'effort' | 'background' | 'isolation' | 'skills' | 'mcpServers'
>;

/** Keys parsed and kept but not applied to the agent's runs (warned about once). */
export const UNAPPLIED_AGENT_KEYS = ['skills', 'mcpServers', 'isolation'] as const;

/** What {@link agentRunFields} read: the fields, the bad values, and the keys given but not applied. */
export interface AgentRunFieldsResult {
  fields: AgentRunFields;
  /** One line per bad value (`"maxTurns" must be a positive integer`). */
  problems: string[];
  /** Keys of {@link UNAPPLIED_AGENT_KEYS} the definition sets. */
  unapplied: string[];
}

/**
 * Reads the run settings of one definition (`data`: its frontmatter or `--agents` object).
 * Frontmatter values may be text (`maxTurns: "5"`, `background: "true"`); lists may be YAML lists
 * or comma-separated text.
 */
export function agentRunFields(data: Readonly<Record<string, unknown>>): AgentRunFieldsResult {
  const fields: AgentRunFields = {};
  const problems: string[] = [];
  const mode = data['permissionMode'];
  if (mode !== undefined) {
    const m = textField(mode);
    if ((PERMISSION_MODES as readonly string[]).includes(m)) fields.permissionMode = m as PermissionMode;
    else problems.push(`"permissionMode" must be one of ${PERMISSION_MODES.join(', ')}`);
  }
  const turns = data['maxTurns'];
  if (turns !== undefined) {
    const n = typeof turns === 'number' ? turns : Number(textField(turns));
    if (Number.isInteger(n) && n > 0) fields.maxTurns = n;
    else problems.push('"maxTurns" must be a positive integer');
  }
  const effort = data['effort'];
  if (effort !== undefined) {
    const e = textField(effort);
    if ((EFFORT_LEVELS as readonly string[]).includes(e)) fields.effort = e as EffortLevel;
    else problems.push(`"effort" must be one of ${EFFORT_LEVELS.join(', ')}`);
  }
  if (data['background'] !== undefined && flagField(data['background'])) fields.background = true;
  const unapplied: string[] = [];
  const isolation = data['isolation'];
  if (isolation !== undefined) {
    if (textField(isolation) === 'worktree') fields.isolation = 'worktree';
    else problems.push('"isolation" must be "worktree"');
    unapplied.push('isolation');
  }
  if (data['skills'] !== undefined) {
    fields.skills = toolListField(data['skills']);
    unapplied.push('skills');
  }
  const mcp = data['mcpServers'];
  if (mcp !== undefined) {
    fields.mcpServers = Array.isArray(mcp)
      ? [...(mcp as unknown[])]
      : typeof mcp === 'string'
        ? toolListField(mcp)
        : [mcp];
    unapplied.push('mcpServers');
  }
  return { fields, problems, unapplied };
}

const warned = new Set<string>();

/**
 * Warns once per process for each key of {@link UNAPPLIED_AGENT_KEYS} that some definition sets
 * (`where`: the first one that did), so that a setting is never silently ignored.
 */
export function warnUnappliedAgentKeys(unapplied: readonly string[], where: string, warn: (m: string) => void): void {
  for (const key of unapplied) {
    if (warned.has(key)) continue;
    warned.add(key);
    warn(`${where}: "${key}" is not applied to the agent's runs yet (docs/agents.md); ignored`);
  }
}
