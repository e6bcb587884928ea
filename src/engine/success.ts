/**
 * The seeds' `isResultSuccessful`: a turn succeeded when the model ended with `end_turn` (or
 * `stop_sequence`) and the last message is an assistant message with text, or a user message
 * (tool results are a valid terminal state). Otherwise the result is `error_during_execution`
 * whose first error is the diagnostic line built here.
 */
export interface SuccessInput {
  /** `assistant`, `user` or `none` (nothing after the prompt). */
  lastMessageType: 'assistant' | 'user' | 'none';
  /** Content block types of the last assistant message. */
  lastContentTypes: readonly string[];
  stopReason: string | null;
}

export function isResultSuccessful(s: SuccessInput): boolean {
  if (s.stopReason !== 'end_turn' && s.stopReason !== 'stop_sequence') return false;
  if (s.lastMessageType === 'user') return true;
  return s.lastMessageType === 'assistant' && s.lastContentTypes.includes('text');
}

/** The `[ede_diagnostic]` line that explains why a result was judged an error. */
export function edeDiagnostic(s: SuccessInput): string {
  const lastContent =
    s.lastMessageType === 'assistant'
      ? (s.lastContentTypes.at(-1) ?? 'none')
      : s.lastMessageType === 'user'
        ? 'tool_result'
        : 'none';
  return `[ede_diagnostic] result_type=${s.lastMessageType} last_content_type=${lastContent} stop_reason=${s.stopReason ?? 'null'}`;
}
