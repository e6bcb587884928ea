import { MAX_ASK_REASON_CHARS, planToolCall } from '../../../src/engine/tool-call-plan';
import type { ToolCallFacts } from '../../../src/engine/tool-call-plan';

const ok: ToolCallFacts = { found: true, permission: { behavior: 'allow' }, askable: false, idempotent: true };
const deny = { behavior: 'deny' as const, message: 'Permission to use Bash has been denied.' };

describe('planToolCall', () => {
  test('planToolCall: a found, allowed call runs; a non-idempotent one writes its run marker first', () => {
    expect(planToolCall(ok)).toEqual({ kind: 'run', marked: false });
    expect(planToolCall({ ...ok, idempotent: false })).toEqual({ kind: 'run', marked: true });
  });

  test('planToolCall: the first fact decides, in order: skipped, not found, invalid JSON, input fault, fault, permission', () => {
    const all: ToolCallFacts = {
      ...ok,
      skipReason: 'Interrupted',
      invalidJson: '{"a":',
      inputFault: 'Read file_path cannot contain null bytes',
      fault: 'EISDIR',
      permission: deny,
      jsonSchemaKey: 'json-schema/x',
    };
    /** The facts with the named ones left out. */
    const without = (...keys: Array<keyof ToolCallFacts>): ToolCallFacts => {
      const f = { ...all };
      for (const k of keys) delete f[k];
      return f;
    };
    const plans = [
      planToolCall(all),
      planToolCall({ ...without('skipReason'), found: false }),
      planToolCall(without('skipReason')),
      planToolCall(without('skipReason', 'invalidJson')),
      planToolCall(without('skipReason', 'invalidJson', 'inputFault')),
      planToolCall(without('skipReason', 'invalidJson', 'inputFault', 'fault')),
    ];
    expect(plans).toEqual([
      { kind: 'skipped', reason: 'Interrupted' },
      { kind: 'not-found' },
      { kind: 'invalid-json', raw: '{"a":' },
      { kind: 'input-fault', message: 'Read file_path cannot contain null bytes' },
      { kind: 'fault', message: 'EISDIR' },
      { kind: 'denied', message: deny.message },
    ]);
  });

  test('planToolCall: an ask is returned to the workflow only when someone can answer; else it is a denial', () => {
    const ask = { ...deny, ask: true, message: 'x'.repeat(5000) };
    expect(planToolCall({ ...ok, permission: ask, askable: true })).toEqual({
      kind: 'ask',
      reason: 'x'.repeat(MAX_ASK_REASON_CHARS),
    });
    expect(planToolCall({ ...ok, permission: ask, askable: false })).toEqual({ kind: 'denied', message: ask.message });
    expect(planToolCall({ ...ok, permission: deny, askable: true })).toEqual({ kind: 'denied', message: deny.message });
  });

  test('planToolCall: a StructuredOutput call of a turn with a schema is checked, not run', () => {
    expect(planToolCall({ ...ok, jsonSchemaKey: 'json-schema/abc', idempotent: false })).toEqual({
      kind: 'structured-output',
      jsonSchemaKey: 'json-schema/abc',
    });
  });
});
