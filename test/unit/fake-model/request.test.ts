import type { ParsedRequest } from '../../../src/fake-model';
import { checkToolPairing, conversationKey, workingDirectory } from '../../../src/fake-model/request';
import { splitJson, splitText } from '../../../src/fake-model/sse';

function req(partial: Partial<ParsedRequest>): ParsedRequest {
  return { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }], ...partial };
}

test('fake model: {{cwd}} comes from the system prompt or a system message', () => {
  expect(workingDirectory(req({ system: 'x\nWorking directory: /a/b \ny' }))).toBe('/a/b');
  expect(workingDirectory(req({ system: [{ type: 'text', text: 'Primary working directory: /c' }] }))).toBe('/c');
  const viaMessage = req({
    messages: [
      { role: 'system', content: 'Working directory: /d' },
      { role: 'user', content: 'hi' },
    ],
  });
  expect(workingDirectory(viaMessage)).toBe('/d');
  expect(workingDirectory(req({ system: 'nothing here' }))).toBeUndefined();
});

test('fake model: conversation key is metadata.user_id, else a hash of the first user text', () => {
  expect(conversationKey(req({ metadata: { user_id: 'u1' } }))).toBe('u1');
  const a = conversationKey(req({}));
  expect(a).toMatch(/^h:[0-9a-f]{16}$/);
  expect(conversationKey(req({ messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] }))).toBe(a);
});

test('fake model: tool pairing check skips system messages and names the message', () => {
  const use = { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: {} };
  const result = { type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' };
  const paired = req({
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [use] },
      { role: 'system', content: 'note' },
      { role: 'user', content: [result] },
    ],
  });
  expect(checkToolPairing(paired)).toBeUndefined();
  const orphan = req({
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'user', content: [result] },
    ],
  });
  expect(checkToolPairing(orphan)).toMatch(/^messages\.1\.content\.0: unexpected `tool_use_id`/);
});

test('fake model: tool input JSON is split into several partial_json chunks', () => {
  const json = JSON.stringify({ command: 'ls -la', cwd: '/tmp' });
  const chunks = splitJson(json);
  expect(chunks.length).toBeGreaterThan(1);
  expect(chunks.join('')).toBe(json);
  expect(splitJson('{}')).toEqual(['{', '}']);
  expect(splitJson('')).toEqual([]);
});

test('fake model: text is split into short deltas, a long block into at most 1024, never inside a code point', () => {
  expect(splitText('a'.repeat(50))).toEqual(['a'.repeat(24), 'a'.repeat(24), 'aa']);
  const long = 'x'.repeat(5_000_000);
  const chunks = splitText(long);
  expect(chunks.length).toBeLessThanOrEqual(1024);
  expect(chunks.join('')).toBe(long);
  const emoji = '😀'.repeat(30);
  const parts = splitText(emoji);
  expect(parts.join('')).toBe(emoji);
  expect(parts.every((p) => !/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/.test(p))).toBe(true);
  expect(splitJson(JSON.stringify({ content: long })).length).toBeLessThanOrEqual(1024);
});
