/**
 * The permission decision for one file access (a Read, Glob or Grep target, an Edit or Write
 * target, a Bash redirection or a path operand of a Bash command), made on real paths.
 */
import { lstatSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { PermissionDecision, ScopedRules } from '../../common/permissions';
import type { PermissionMode } from '../../common/permissions';
import { canonicalPathPattern, pathMatches, pathPatternReachesInto } from '../../config-files/path-rules';
import { protectedPath, protectedPathMessage } from './protected-paths';
import { isInsideDir, realPathOf } from './real-path';
import { EDIT_RULE_TOOLS, READ_RULE_TOOLS, parseRule } from '../../config-files/permission-rules';

/** What the path decisions of one tool call share. */
export interface PathContext {
  cwd: string;
  mode: PermissionMode;
  rules: ScopedRules;
  additionalDirectories: readonly string[];
  /** Home directory for `~` (tool paths and `~/` patterns). @default os.homedir() */
  home?: string;
}

/** Files that are not files: writing to them changes nothing on disk. */
const HARMLESS_DEVICES = new Set([
  '/dev/null',
  '/dev/stdout',
  '/dev/stderr',
  '/dev/tty',
  '/dev/zero',
  '/dev/random',
  '/dev/urandom',
]);

/** A path access, with the rule tools that govern it (`Read…` for reads, `Edit…` for writes). */
export interface PathAccess {
  access: 'read' | 'write';
  /** Absolute path as written (normalized, links not followed). */
  absPath: string;
  /** Extra tool names whose scoped rules also apply (e.g. `Glob` for a Glob call). */
  ruleTools?: readonly string[];
  /** For a read that covers the directory's contents (Glob, Grep, `ls`): deny if a deny rule reaches inside. */
  recursive?: boolean;
  /** When set, an allow rule of this tool for the whole tool (`Write`) allows the path anywhere. */
  tool?: string;
}

/** Resolves a path as tools do: `~` and `~/…` are home, relative paths are against `cwd`. */
export function resolveUserPath(cwd: string, p: string, home: string = os.homedir()): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return path.join(home, p.slice(2));
  return path.resolve(cwd, p);
}

interface Matched {
  rule: string;
}

function findRule(
  list: readonly string[],
  tools: readonly string[],
  ctx: PathContext,
  paths: readonly string[],
  opts: { recursive?: boolean; wholeTool?: string } = {},
): Matched | undefined {
  for (const rule of list) {
    const r = parseRule(rule);
    if (!r || !tools.includes(r.tool)) continue;
    if (r.content === null) {
      if (opts.wholeTool !== undefined && r.tool === opts.wholeTool) return { rule };
      continue;
    }
    const canonical = canonicalPathPattern(r.content, ctx.cwd, ctx.cwd);
    for (const p of paths) {
      if (pathMatches(canonical, p, ctx.home)) return { rule };
      if (opts.recursive && pathPatternReachesInto(canonical, p, ctx.home)) return { rule };
    }
  }
  return undefined;
}

/** Real paths of the working directories (cwd first), cached per context. */
const dirCache = new WeakMap<PathContext, Promise<string[]>>();

export function workingDirectories(ctx: PathContext): Promise<string[]> {
  let dirs = dirCache.get(ctx);
  if (!dirs) {
    dirs = Promise.all([ctx.cwd, ...ctx.additionalDirectories].map((d) => realPathOf(d)));
    dirCache.set(ctx, dirs);
  }
  return dirs;
}

/**
 * Decides one file access: deny rules (on the path as written and as resolved), then ask rules,
 * then, for a write, the protected paths (asked about in every mode but `bypassPermissions`, see
 * protected-paths.ts), then allow rules (on the resolved path), then the mode and the working
 * directories (resolved).
 */
export async function decidePath(a: PathAccess, ctx: PathContext): Promise<PermissionDecision> {
  const literal = path.resolve(a.absPath);
  if (a.access === 'write' && HARMLESS_DEVICES.has(literal)) return allow();
  if (/^\/dev\/fd\/\d+$/.test(literal) || /^\/proc\/self\/fd\/\d+$/.test(literal)) return allow();
  const real = await realPathOf(literal);

  const decision = await decideResolvedPath(a, literal, real, ctx);
  // What the file tools write is the path decided on (src/activities/tools/safe-write.ts).
  return a.tool === undefined ? decision : { ...decision, resolvedPath: real };
}

async function decideResolvedPath(
  a: PathAccess,
  literal: string,
  real: string,
  ctx: PathContext,
): Promise<PermissionDecision> {
  const tools = [...(a.access === 'read' ? READ_RULE_TOOLS : EDIT_RULE_TOOLS), ...(a.ruleTools ?? [])];
  const verb = a.access === 'read' ? 'read' : 'write to';
  const both = real === literal ? [literal] : [literal, real];
  const denied = findRule(ctx.rules.deny, tools, ctx, both, { recursive: a.recursive === true });
  if (denied) {
    const fileTool = a.tool === 'Read' || a.tool === 'Edit' || a.tool === 'Write' || a.tool === 'NotebookEdit';
    return {
      behavior: 'deny',
      reasonType: 'rule',
      basis: 'rule',
      rule: denied.rule,
      reason: `${denied.rule} denies ${a.access === 'read' ? 'reading' : 'changing'} ${literal}`,
      // Claude Code's words for a file tool; a path inside a Bash command names the rule.
      message: fileTool
        ? '<tool_use_error>File is in a directory that is denied by your permission settings.</tool_use_error>'
        : `Permission to ${verb} ${literal} has been denied by the permission rule ${denied.rule}.`,
      ...(fileTool ? { silent: true } : {}),
    };
  }
  if (
    a.access === 'write' &&
    (a.tool === 'Edit' || a.tool === 'Write' || a.tool === 'NotebookEdit') &&
    isSymlink(literal)
  ) {
    // As Claude Code: a file tool never writes through a link at the file's own name, in any mode.
    return {
      behavior: 'deny',
      reasonType: 'other',
      basis: 'safety',
      reason: 'Write target is a symbolic link',
      message: `Refusing to write ${literal}: it is a symbolic link. Write to the link's target path instead: ${real}.`,
      namesPath: true,
    };
  }
  const asked = findRule(ctx.rules.ask, tools, ctx, both);
  if (asked) {
    return {
      behavior: 'ask',
      reasonType: 'rule',
      basis: 'rule',
      rule: asked.rule,
      message: `Claude requested permissions to ${verb} ${literal}, which the rule ${asked.rule} says to ask about, and no one can be asked in this run.`,
    };
  }
  if (a.access === 'write' && ctx.mode !== 'bypassPermissions') {
    const guarded = await protectedWrite(a, literal, real, ctx);
    if (guarded) return guarded;
  }
  const allowed = findRule(ctx.rules.allow, tools, ctx, [real], a.tool !== undefined ? { wholeTool: a.tool } : {});
  if (allowed) return { behavior: 'allow', reasonType: 'rule', rule: allowed.rule, message: '' };
  if (ctx.mode === 'bypassPermissions') return { behavior: 'allow', reasonType: 'mode', message: '' };

  const dirs = await workingDirectories(ctx);
  const inside = dirs.some((d) => isInsideDir(d, real));
  if (inside && (a.access === 'read' || ctx.mode === 'acceptEdits')) {
    return { behavior: 'allow', reasonType: 'mode', message: '' };
  }
  const literalInside = dirs.some((d) => isInsideDir(d, literal)) || isInsideDir(path.resolve(ctx.cwd), literal);
  const throughLink = !inside && literalInside && real !== literal;
  const reason = throughLink
    ? `${literal} resolves through a symlink to ${real}, which is outside the allowed working directories`
    : inside
      ? `${ctx.mode} mode asks before files are changed`
      : 'Path is outside allowed working directories';
  const behavior = ctx.mode === 'dontAsk' || ctx.mode === 'plan' ? 'deny' : 'ask';
  return {
    behavior,
    reasonType: throughLink ? 'safetyCheck' : inside ? 'mode' : 'workingDir',
    // A link out of the working directories is a safety check no hook lifts (as in Claude Code).
    basis: throughLink ? 'safety' : 'mode',
    reason,
    message:
      `Claude requested permissions to ${verb} ${literal}, but you haven't granted it yet. ${reason}.` +
      (behavior === 'ask'
        ? ` Allow it with a permission rule (e.g. --allowedTools "${a.access === 'read' ? 'Read' : 'Edit'}(${ruleHint(literal, ctx.cwd)})") or --add-dir.`
        : ''),
  };
}

/** The decision for a write to a protected path (see protected-paths.ts), or null when the path is not protected. */
async function protectedWrite(
  a: PathAccess,
  literal: string,
  real: string,
  ctx: PathContext,
): Promise<PermissionDecision | null> {
  const workingDirs = await workingDirectories(ctx);
  const claudeConfigDir = await realPathOf(path.join(ctx.home ?? os.homedir(), '.claude'));
  const p = protectedPath(literal, real, { workingDirs, claudeConfigDir });
  if (!p) return null;
  const fileTool = a.tool === 'Edit' || a.tool === 'Write' || a.tool === 'NotebookEdit';
  const message = protectedPathMessage(literal, p, fileTool);
  return {
    behavior: ctx.mode === 'dontAsk' || ctx.mode === 'plan' ? 'deny' : 'ask',
    reasonType: 'safetyCheck',
    basis: 'safety',
    reason: message,
    message,
    namesPath: true,
  };
}

function isSymlink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

function ruleHint(abs: string, cwd: string): string {
  const rel = path.relative(cwd, abs);
  return rel.startsWith('..') || path.isAbsolute(rel) ? `/${abs}` : `./${rel}`;
}

function allow(): PermissionDecision {
  return { behavior: 'allow', reasonType: 'other', message: '' };
}
