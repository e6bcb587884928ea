import { contextWindowOf, DEFAULT_CONTEXT_WINDOW } from '../../../src/common/model-limits';

describe('model limits', () => {
  test("contextWindowOf: Claude Code's figures: 1M for the 5.x Opus and Sonnet, 200k for the 4.x and older", () => {
    expect(['claude-opus-5-5', 'claude-opus-5', 'claude-sonnet-5-5', 'claude-sonnet-5'].map(contextWindowOf)).toEqual([
      1_000_000, 1_000_000, 1_000_000, 1_000_000,
    ]);
    expect(
      ['claude-opus-4-6', 'claude-opus-4-5', 'claude-sonnet-4-5', 'claude-haiku-4-5', 'claude-3-5-haiku'].map(
        contextWindowOf,
      ),
    ).toEqual([200_000, 200_000, 200_000, 200_000, 200_000]);
  });

  test('contextWindowOf: a dated id is its model; an unknown or look-alike id gets the default 200k', () => {
    expect(contextWindowOf('claude-sonnet-5-5-20261001')).toBe(1_000_000);
    expect(contextWindowOf('claude-sonnet-50')).toBe(DEFAULT_CONTEXT_WINDOW);
    expect(contextWindowOf('claude-mystery-9')).toBe(DEFAULT_CONTEXT_WINDOW);
    expect(DEFAULT_CONTEXT_WINDOW).toBe(200_000);
  });
});
