import type { HookVerdict, RuleVerdict } from '../../../src/engine/permission-precedence';
import {
  HOOK_VERDICTS,
  RULE_VERDICTS,
  permissionPrecedence,
  ruleVerdictOf,
} from '../../../src/engine/permission-precedence';
import { PERMISSION_MODES } from '../../../src/common/permissions';
import type { PermissionMode } from '../../../src/common/permissions';

/**
 * Every (rule verdict × mode × hook verdict), as `claude -p` 2.1.328 decides it (recorded with
 * the `hook-allow-rules` conformance scenario and by hand in every mode but bypassPermissions,
 * which Claude Code refuses as root). Each cell is `outcome/whose words`; columns are the hook's
 * verdict: deny, ask, allow, none.
 */
const TABLE: Record<PermissionMode, Record<RuleVerdict, string>> = {
  default: {
    deny: /*      */ 'deny/hook  deny/rules  deny/rules  deny/rules',
    ask: /*       */ 'deny/hook  ask/rules   ask/rules   ask/rules',
    allow: /*     */ 'deny/hook  ask/hook    allow/rules allow/rules',
    unmatched: /* */ 'deny/hook  ask/hook    allow/hook  ask/mode',
  },
  acceptEdits: {
    deny: /*      */ 'deny/hook  deny/rules  deny/rules  deny/rules',
    ask: /*       */ 'deny/hook  ask/rules   ask/rules   ask/rules',
    allow: /*     */ 'deny/hook  ask/hook    allow/rules allow/rules',
    unmatched: /* */ 'deny/hook  ask/hook    allow/hook  ask/mode',
  },
  bypassPermissions: {
    deny: /*      */ 'deny/hook  deny/rules  deny/rules  deny/rules',
    ask: /*       */ 'deny/hook  ask/rules   ask/rules   ask/rules',
    allow: /*     */ 'deny/hook  ask/hook    allow/rules allow/rules',
    unmatched: /* */ 'deny/hook  ask/hook    allow/hook  allow/mode',
  },
  plan: {
    deny: /*      */ 'deny/hook  deny/rules  deny/rules  deny/rules',
    ask: /*       */ 'deny/hook  ask/rules   ask/rules   ask/rules',
    allow: /*     */ 'deny/hook  ask/hook    allow/rules allow/rules',
    unmatched: /* */ 'deny/hook  ask/hook    deny/mode   deny/mode',
  },
  dontAsk: {
    deny: /*      */ 'deny/hook  deny/rules  deny/rules  deny/rules',
    ask: /*       */ 'deny/hook  deny/rules  deny/rules  deny/rules',
    allow: /*     */ 'deny/hook  deny/hook   allow/rules allow/rules',
    unmatched: /* */ 'deny/hook  deny/hook   allow/hook  deny/mode',
  },
};
const COLUMNS: readonly HookVerdict[] = ['deny', 'ask', 'allow', 'none'];

const rows = PERMISSION_MODES.flatMap((mode) =>
  RULE_VERDICTS.flatMap((rule) => {
    const cells = TABLE[mode][rule].trim().split(/\s+/);
    return COLUMNS.map((hook, i) => [mode, rule, hook, cells[i] as string] as const);
  }),
);

describe('permissionPrecedence: the one order of precedence of rules, mode and hook', () => {
  test('permissionPrecedence: the table covers every combination', () => {
    expect(rows).toHaveLength(PERMISSION_MODES.length * RULE_VERDICTS.length * HOOK_VERDICTS.length);
    expect(new Set(COLUMNS)).toEqual(new Set(HOOK_VERDICTS));
  });

  test.each(rows)('permissionPrecedence: rules %s, mode %s, hook %s → %s', (mode, rule, hook, expected) => {
    const [behavior, by] = expected.split('/');
    expect(permissionPrecedence(rule, mode, hook)).toEqual({ behavior, by });
  });

  test("permissionPrecedence: a hook's allow never lifts a deny or ask rule, in any mode", () => {
    for (const mode of PERMISSION_MODES) {
      expect(permissionPrecedence('deny', mode, 'allow').behavior).toBe('deny');
      expect(permissionPrecedence('ask', mode, 'allow').behavior).not.toBe('allow');
    }
  });
});

describe('ruleVerdictOf: a decision against the input as a rule verdict', () => {
  test('ruleVerdictOf: what a refusal rests on decides what a hook can lift', () => {
    expect(ruleVerdictOf({ behavior: 'allow' })).toBe('allow');
    expect(ruleVerdictOf({ behavior: 'deny', basis: 'rule' })).toBe('deny');
    expect(ruleVerdictOf({ behavior: 'ask', basis: 'rule' })).toBe('ask');
    expect(ruleVerdictOf({ behavior: 'ask', basis: 'safety' })).toBe('ask');
    expect(ruleVerdictOf({ behavior: 'deny', basis: 'safety' })).toBe('deny');
    expect(ruleVerdictOf({ behavior: 'ask', basis: 'mode' })).toBe('unmatched');
    expect(ruleVerdictOf({ behavior: 'deny', basis: 'mode' })).toBe('unmatched');
  });
  test('ruleVerdictOf: a refusal that does not say what it rests on is a safety check (nothing lifts it)', () => {
    expect(ruleVerdictOf({ behavior: 'deny' })).toBe('deny');
    expect(ruleVerdictOf({ behavior: 'ask' })).toBe('ask');
  });
});
