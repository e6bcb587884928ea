/**
 * The permission decision for a Bash command. Every simple command bash can run from it (found by
 * `shell/`) must be allowed and none denied; every file it redirects to or names as an operand of
 * a read-only or file command must pass the path decision; anything that cannot be checked before
 * it runs is asked about (a denial in headless runs), never allowed. A deny rule always wins.
 */
import * as path from 'node:path';
import type { PermissionBasis, PermissionDecision } from '../../common/permissions';
import { matchesCertainly, matchesPossibly } from '../../config-files/command-patterns';
import type { PathContext } from './paths';
import { decidePath, resolveUserPath } from './paths';
import { parseRule } from '../../config-files/permission-rules';
import type { CheckedCommand, ScriptAnalysis } from './shell';
import { analyzeScript } from './shell';
import type { Word } from '../../config-files/shell-words';
import { DYNAMIC } from '../../config-files/shell-words';

/** Options of {@link decideBash}. */
export interface BashContext extends PathContext {
  /** Names of the variables in the environment Bash commands get (assigning one changes what children see). */
  exportedNames?: ReadonlySet<string>;
}

interface Patterns {
  allowAll: boolean;
  allow: string[];
  deny: string[];
  ask: string[];
}

function bashPatterns(ctx: PathContext): Patterns {
  const of = (list: readonly string[]): { all: boolean; patterns: string[] } => {
    const patterns: string[] = [];
    let all = false;
    for (const rule of list) {
      const r = parseRule(rule);
      if (r?.tool !== 'Bash') continue;
      if (r.content === null) all = true;
      else patterns.push(r.content);
    }
    return { all, patterns };
  };
  const allow = of(ctx.rules.allow);
  return {
    allowAll: allow.all || ctx.mode === 'bypassPermissions',
    allow: allow.patterns,
    deny: of(ctx.rules.deny).patterns,
    ask: of(ctx.rules.ask).patterns,
  };
}

function shown(text: string): string {
  return text.split(DYNAMIC).join('…');
}

/** Texts a deny rule is tried against: as written, without assignments in front, with `/bin/rm` as `rm`. */
function denyCandidates(c: CheckedCommand): string[] {
  const out = new Set([c.text, c.bareText]);
  const first = c.bareText.split(' ')[0] ?? '';
  if (first.includes('/') && !first.includes(DYNAMIC)) {
    out.add(path.posix.basename(first) + c.bareText.slice(first.length));
  }
  return [...out];
}

function deny(command: string, rule: string, multi: boolean): PermissionDecision {
  return {
    behavior: 'deny',
    reasonType: multi ? 'subcommandResults' : 'rule',
    basis: 'rule',
    rule: `Bash(${rule})`,
    message: `Permission to use Bash with command ${command} has been denied.`,
  };
}

function ask(
  reasonType: PermissionDecision['reasonType'],
  reason: string,
  basis: PermissionBasis,
  rule?: string,
): PermissionDecision {
  return { behavior: 'ask', reasonType, basis, reason, ...(rule !== undefined ? { rule } : {}), message: reason };
}

/**
 * What an ask about something that cannot be checked rests on: the deny and ask rules when there
 * are any (they cannot be enforced on it, so a hook's allow must not lift it), else the mode.
 */
function uncheckedBasis(ctx: PathContext): PermissionBasis {
  return ctx.rules.deny.length + ctx.rules.ask.length > 0 ? 'rule' : 'mode';
}

/** Decides a Bash command. */
export async function decideBash(command: string, ctx: BashContext): Promise<PermissionDecision> {
  const p = bashPatterns(ctx);
  const a = await analyzeScript(command);
  const multi = a.commands.length > 1;

  // 1. Deny rules, certain matches first: they win over everything.
  for (const c of a.commands) {
    for (const pattern of p.deny) {
      if (denyCandidates(c).some((t) => matchesCertainly(t, pattern))) return deny(command, pattern, multi);
    }
  }
  // 2. Paths: a denied read or write anywhere denies the command.
  const pathDecisions = await decidePaths(a, ctx, p);
  const deniedPath = pathDecisions.find((d) => d.decision.behavior === 'deny' && d.decision.reasonType === 'rule');
  if (deniedPath) return deniedPath.decision;

  // 3. What cannot be proven harmless is asked about.
  for (const c of a.commands) {
    for (const pattern of p.deny) {
      if (denyCandidates(c).some((t) => matchesPossibly(t, pattern))) {
        return ask(
          'other',
          `\`${shown(c.text)}\` could run a command the rule Bash(${pattern}) denies; it can't be checked before it runs`,
          'rule',
          `Bash(${pattern})`,
        );
      }
    }
  }
  const relevantRules = p.deny.length + p.ask.length > 0 || ctx.rules.deny.length + ctx.rules.ask.length > 0;
  const mustProve = !p.allowAll || relevantRules;
  const unchecked = uncheckedBasis(ctx);
  if (mustProve && a.tooComplex.length > 0) {
    const first = a.tooComplex[0] as ScriptAnalysis['tooComplex'][number];
    return ask('other', `This command can't be checked before it runs: ${first.reason}`, unchecked);
  }
  if (mustProve) {
    const opaque = a.commands.find((c) => c.opaque !== undefined);
    if (opaque && p.deny.length > 0) {
      return ask('other', `${opaque.opaque}, so the deny rules cannot be enforced on it`, 'rule');
    }
    const steering = a.assigned.find((v) => ctx.exportedNames?.has(v.name));
    if (steering) {
      return ask(
        'other',
        `The command assigns ${steering.name}, a variable the commands it starts inherit, so what they do can't be checked before it runs`,
        unchecked,
      );
    }
    const cd = a.commands.find((c) => c.kind === 'cd');
    if (cd && a.commands.some((c) => c.offset > cd.offset && /^(git|hg|svn)( |$)/.test(c.bareText))) {
      return ask(
        'safetyCheck',
        'This command changes directory before running a version-control command, which can pick up untrusted hooks or repository configuration from the target directory',
        unchecked,
      );
    }
  }
  // 4. Ask rules.
  for (const c of a.commands) {
    for (const pattern of p.ask) {
      if (denyCandidates(c).some((t) => matchesPossibly(t, pattern))) {
        return ask(
          'rule',
          `The rule Bash(${pattern}) asks before \`${shown(c.text)}\` runs, and no one can be asked in this run`,
          'rule',
          `Bash(${pattern})`,
        );
      }
    }
  }
  // 5. Every command allowed, every path allowed. What a hook's allow cannot lift comes first: a
  // protected path (named first), then any other path a rule or a safety check stops.
  const refused = pathDecisions.filter((d) => d.decision.behavior !== 'allow');
  const guarded =
    refused.find((d) => d.decision.namesPath === true) ?? refused.find((d) => d.decision.basis !== 'mode');
  if (guarded) return fallback(ctx, guarded.decision);
  const notAllowedPath = refused[0];
  for (const c of a.commands) {
    const byRule = p.allowAll || p.allow.some((pattern) => matchesCertainly(c.text, pattern));
    if (byRule || !c.needsRule) continue;
    if (
      c.kind === 'fileWrite' &&
      ctx.mode === 'acceptEdits' &&
      pathsOf(pathDecisions, c).every((d) => d.behavior === 'allow')
    )
      continue;
    return notAllowed(ctx, c, multi);
  }
  if (notAllowedPath) return fallback(ctx, notAllowedPath.decision);
  return { behavior: 'allow', reasonType: p.allowAll ? 'mode' : 'rule', message: '' };
}

function notAllowed(ctx: BashContext, c: CheckedCommand, multi: boolean): PermissionDecision {
  const text = shown(c.text);
  const reason = multi
    ? `\`${text}\` in this command is not allowed by any permission rule`
    : `\`${text}\` is not allowed by any permission rule`;
  const behavior = ctx.mode === 'dontAsk' || ctx.mode === 'plan' ? 'deny' : 'ask';
  return {
    behavior,
    reasonType: ctx.mode === 'dontAsk' || ctx.mode === 'plan' ? 'mode' : multi ? 'subcommandResults' : 'other',
    basis: 'mode',
    reason,
    message:
      `Claude requested permissions to use Bash, but you haven't granted it yet: ${reason}. ` +
      `Allow it with --allowedTools "Bash(${c.bareText.split(' ')[0] ?? ''} *)" (or a narrower rule) or a permission mode that covers it.`,
  };
}

function fallback(ctx: BashContext, d: PermissionDecision): PermissionDecision {
  if (ctx.mode === 'dontAsk' || ctx.mode === 'plan')
    return { ...d, behavior: 'deny', reasonType: d.reasonType === 'rule' ? 'rule' : 'mode' };
  return d;
}

interface PathDecision {
  offset: number;
  /** The command whose operand it is (undefined for a redirection). */
  command?: CheckedCommand;
  decision: PermissionDecision;
}

function pathsOf(all: readonly PathDecision[], c: CheckedCommand): PermissionDecision[] {
  return all.filter((d) => d.command === c).map((d) => d.decision);
}

/** Directories relative paths may resolve against at `offset`: the cwd and every `cd` before it. */
function candidateDirs(a: ScriptAnalysis, offset: number, ctx: BashContext): string[] | null {
  let dirs = [path.resolve(ctx.cwd)];
  for (const c of a.commands) {
    if (c.kind !== 'cd' || c.offset >= offset) continue;
    const target = c.paths[0]?.word;
    if (!target || target.dynamic) return null;
    const next = dirs.map((d) => resolveUserPath(d, target.value, ctx.home));
    dirs = [...new Set([...dirs, ...next])];
    if (dirs.length > 32) return null;
  }
  return dirs;
}

async function decidePaths(a: ScriptAnalysis, ctx: BashContext, p: Patterns): Promise<PathDecision[]> {
  const out: PathDecision[] = [];
  const one = async (
    word: Word,
    access: 'read' | 'write',
    offset: number,
    what: string,
    command?: CheckedCommand,
    recursive = false,
  ): Promise<void> => {
    const base = command ? { offset, command } : { offset };
    if (word.dynamic || word.value.includes(DYNAMIC) || /^~[^/]/.test(word.value)) {
      out.push({
        ...base,
        decision: ask(
          'other',
          `${what} \`${shown(word.value)}\` is only known at run time, so it can't be checked`,
          uncheckedBasis(ctx),
        ),
      });
      return;
    }
    const dirs = word.value.startsWith('/') || word.value.startsWith('~') ? [ctx.cwd] : candidateDirs(a, offset, ctx);
    if (!dirs) {
      out.push({
        ...base,
        decision: ask(
          'other',
          `${what} \`${word.value}\` follows a change of directory that can't be followed`,
          uncheckedBasis(ctx),
        ),
      });
      return;
    }
    for (const d of dirs) {
      const abs = resolveUserPath(d, word.value, ctx.home);
      let decision = await decidePath({ access, absPath: abs, recursive }, ctx);
      // Bash allowed wholesale (or bypass): only rules and safety checks (symlink escapes, paths
      // that cannot be checked against the rules) stop a path.
      if (
        decision.behavior === 'ask' &&
        p.allowAll &&
        decision.basis === 'mode' &&
        decision.reasonType !== 'safetyCheck'
      ) {
        decision = { behavior: 'allow', reasonType: 'rule', message: '' };
      }
      // An allowed command may change files inside the working directories (not only in acceptEdits).
      if (
        decision.behavior === 'ask' &&
        decision.reasonType === 'mode' &&
        command?.kind === 'fileWrite' &&
        ruleAllows(p, command)
      ) {
        decision = { behavior: 'allow', reasonType: 'rule', message: '' };
      }
      if (decision.behavior !== 'allow' && decision.namesPath !== true) {
        decision = {
          ...decision,
          message: `${what} ${abs}: ${decision.reason ?? decision.message}`,
          reason: `${what} ${abs}: ${decision.reason ?? ''}`,
        };
      }
      out.push({ ...base, decision });
    }
  };
  for (const r of a.redirects) {
    await one(r.target, r.access, r.offset, r.access === 'write' ? 'Output redirection to' : 'Input redirection from');
  }
  for (const c of a.commands) {
    const words = c.bareText.split(' ');
    const name = words[0] ?? '';
    // A recursive read covers what is inside its directories (grep -r, ls -R).
    const recursive =
      c.kind === 'readOnly' &&
      /^(grep|egrep|fgrep|ls)$/.test(name) &&
      words.some((w) => /^-[a-zA-Z]*[rR]/.test(w) || w === '--recursive' || w === '--dereference-recursive');
    const operands =
      c.paths.length === 0 && recursive && name !== 'ls'
        ? [{ word: { value: '.', dynamic: false }, access: 'read' as const }]
        : c.paths;
    for (const op of operands) {
      await one(op.word, op.access, c.offset, `${name} in`, c, recursive);
      // What a file command copies or moves is also read (cp secrets/key out/).
      if (c.kind === 'fileWrite' && /^(cp|mv|ln)$/.test(name))
        await one(op.word, 'read', c.offset, `${name} in`, c, true);
    }
  }
  return out;
}

function ruleAllows(p: Patterns, c: CheckedCommand): boolean {
  return p.allowAll || p.allow.some((pattern) => matchesCertainly(c.text, pattern));
}
