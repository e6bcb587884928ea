/**
 * WebFetch's domain rules, as Claude Code reads them: `WebFetch(domain:example.com)` names a host
 * (`*.example.com` also its subdomains). A deny rule for the URL's host denies
 * (`WebFetch denied access to domain:<host>.`), an allow rule allows, a whole-tool allow rule or
 * bypassPermissions allows; otherwise the call needs a person (`ask`).
 */
import type { PermissionDecision, ScopedRules } from '../../common/permissions';
import type { PermissionMode } from '../../common/permissions';
import { notGrantedMessage, ruleContent, ruleName } from '../../engine/permissions';

/** The host of a `domain:` rule's content, or null for another kind of content. */
function ruleDomain(rule: string): string | null {
  if (ruleName(rule) !== 'WebFetch') return null;
  const c = ruleContent(rule);
  if (c === null || !c.startsWith('domain:')) return null;
  return c.slice('domain:'.length).trim().toLowerCase();
}

/** Whether a `domain:` rule's host pattern covers `host`. */
export function domainMatches(pattern: string, host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  if (pattern.startsWith('*.')) return h.endsWith(pattern.slice(1)) || h === pattern.slice(2);
  return h === pattern;
}

/** The host of a WebFetch call's `url` (lower-case), or undefined when it has none. */
function hostOf(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase() || undefined;
  } catch {
    return undefined;
  }
}

/** Decides one WebFetch call by its URL's host. */
export function decideWebFetch(input: unknown, mode: PermissionMode, rules: ScopedRules): PermissionDecision {
  const host = hostOf((input as { url?: unknown } | null)?.url);
  // No usable URL: the tool's own validation answers.
  if (host === undefined) return { behavior: 'allow', reasonType: 'other', message: '' };
  const find = (list: readonly string[]): string | undefined =>
    list.find((r) => {
      const d = ruleDomain(r);
      return d !== null && domainMatches(d, host);
    });
  const denied = find(rules.deny);
  if (denied) {
    return {
      behavior: 'deny',
      reasonType: 'rule',
      basis: 'rule',
      rule: denied,
      message: `WebFetch denied access to domain:${host}.`,
    };
  }
  const asked = find(rules.ask);
  if (asked) {
    return { behavior: 'ask', reasonType: 'rule', basis: 'rule', rule: asked, message: notGrantedMessage('WebFetch') };
  }
  const allowed = find(rules.allow) ?? rules.allow.find((r) => r === 'WebFetch');
  if (allowed || mode === 'bypassPermissions') {
    return {
      behavior: 'allow',
      reasonType: allowed ? 'rule' : 'mode',
      ...(allowed ? { rule: allowed } : {}),
      message: '',
    };
  }
  return {
    behavior: mode === 'dontAsk' ? 'deny' : 'ask',
    reasonType: 'mode',
    // Nothing allows the call: the mode decides (a PreToolUse hook's allow lifts it, except in plan).
    basis: 'mode',
    message: notGrantedMessage('WebFetch'),
  };
}
