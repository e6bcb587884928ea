/**
 * `decideToolPermission`: the permission decision for one tool call against its input, the rules
 * that matter for it, the permission mode and the real files. It answers `allow`, `deny` or `ask`
 * (with the rule and a reason type); a caller that cannot ask a person treats `ask` as a denial.
 * It does file-system reads (real paths) but nothing else, so any activity can call it.
 */
import * as os from 'node:os';
import type { PermissionDecision, ScopedRules } from '../../common/permissions';
import type { PermissionMode } from '../../common/permissions';
import { decideBash } from './bash';
import { decideWebFetch } from './web-fetch';
import type { PathContext } from './paths';
import { decidePath, resolveUserPath } from './paths';
import { SymlinkLoopError } from './real-path';

/** What {@link decideToolPermission} needs to know about the call. */
export interface ToolPermissionRequest {
  toolName: string;
  /** The tool's input as the model sent it. */
  input: unknown;
  /** Working directory of the turn (absolute). */
  cwd: string;
  mode: PermissionMode;
  /** The rules relevant to this tool (see {@link ScopedRules}). */
  rules: ScopedRules;
  /** More directories the tools may work in (`--add-dir`, `permissions.additionalDirectories`). */
  additionalDirectories?: readonly string[];
  /** Names of the variables Bash commands inherit (assignments to them are not provably harmless). */
  exportedNames?: ReadonlySet<string>;
  /** Home directory for `~`. @default os.homedir() */
  home?: string;
}

function str(input: unknown, key: string): string | undefined {
  if (input === null || typeof input !== 'object') return undefined;
  const v = (input as Record<string, unknown>)[key];
  return typeof v === 'string' ? v : undefined;
}

function optionalPath(p: string | undefined): string | undefined {
  return p === undefined || p === '' || p === 'undefined' || p === 'null' ? undefined : p;
}

/**
 * Decides one tool call. Never throws for bad input: a call whose input has no usable target is
 * allowed here and fails in the tool's own validation.
 */
export async function decideToolPermission(req: ToolPermissionRequest): Promise<PermissionDecision> {
  const home = req.home ?? os.homedir();
  const ctx: PathContext = {
    cwd: req.cwd,
    mode: req.mode,
    rules: req.rules,
    additionalDirectories: req.additionalDirectories ?? [],
    home,
  };
  try {
    switch (req.toolName) {
      // A monitor's command is checked as a Bash command is (Bash rules with a command apply to it).
      case 'Monitor':
      case 'Bash': {
        const command = str(req.input, 'command');
        if (command === undefined) return allowForValidation();
        return await decideBash(command, {
          ...ctx,
          ...(req.toolName === 'Monitor' ? { rules: monitorRulesAsBash(ctx.rules) } : {}),
          ...(req.exportedNames ? { exportedNames: req.exportedNames } : {}),
        });
      }
      case 'Read':
      case 'Edit':
      case 'Write':
      case 'NotebookEdit': {
        const p = str(req.input, 'file_path') ?? str(req.input, 'notebook_path');
        if (p === undefined) return allowForValidation();
        const access = req.toolName === 'Read' ? 'read' : 'write';
        return await decidePath({ access, absPath: resolveUserPath(req.cwd, p, home), tool: req.toolName }, ctx);
      }
      case 'Glob':
      case 'Grep': {
        const p = optionalPath(str(req.input, 'path'));
        const abs = p === undefined ? req.cwd : resolveUserPath(req.cwd, p, home);
        return await decidePath({ access: 'read', absPath: abs, ruleTools: [req.toolName], tool: req.toolName }, ctx);
      }
      case 'WebFetch':
        return decideWebFetch(req.input, req.mode, req.rules);
      default:
        return { behavior: 'allow', reasonType: 'rule', message: '' };
    }
  } catch (err) {
    if (err instanceof SymlinkLoopError) {
      return {
        behavior: 'deny',
        reasonType: 'safetyCheck',
        basis: 'safety',
        reason: err.message,
        message: `Permission denied: ${err.message}.`,
      };
    }
    throw err;
  }
}

/** A monitor's rules for its Bash decision: `Monitor` and `Monitor(cmd)` rules count as Bash's. */
function monitorRulesAsBash(rules: PathContext['rules']): PathContext['rules'] {
  const asBash = (list: readonly string[]): string[] => list.map((r) => r.replace(/^Monitor(?=\(|$)/, 'Bash'));
  return { allow: asBash(rules.allow), deny: asBash(rules.deny), ask: asBash(rules.ask) };
}

function allowForValidation(): PermissionDecision {
  return { behavior: 'allow', reasonType: 'other', message: '' };
}
