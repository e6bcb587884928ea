import { edeDiagnostic, isResultSuccessful } from '../../../src/engine/success';

describe('result success', () => {
  test('isResultSuccessful: end_turn with text succeeds', () => {
    expect(
      isResultSuccessful({ lastMessageType: 'assistant', lastContentTypes: ['text'], stopReason: 'end_turn' }),
    ).toBe(true);
  });
  test('isResultSuccessful: max_tokens fails with a diagnostic naming the three inputs', () => {
    const s = { lastMessageType: 'assistant' as const, lastContentTypes: ['text'], stopReason: 'max_tokens' };
    expect(isResultSuccessful(s)).toBe(false);
    expect(edeDiagnostic(s)).toBe(
      '[ede_diagnostic] result_type=assistant last_content_type=text stop_reason=max_tokens',
    );
  });
  test('isResultSuccessful: an assistant message without text fails', () => {
    expect(
      isResultSuccessful({ lastMessageType: 'assistant', lastContentTypes: ['thinking'], stopReason: 'end_turn' }),
    ).toBe(false);
  });
});
