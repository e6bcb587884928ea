import { REFUSAL_NOTE, afterRefusal, refusalNotice, refusedAgainError } from '../../../src/engine/refusal';

describe('refusal', () => {
  test('afterRefusal: the first refused response of a turn is noted and the turn goes on; the next ends it', () => {
    expect(afterRefusal(false)).toBe('note');
    expect(afterRefusal(true)).toBe('stop');
  });
  test("refusal texts: Claude Code 2.1.328's note to the model; the notice and the error name the model", () => {
    expect(REFUSAL_NOTE).toBe(
      'Your response above was stopped by a safety classifier — this is not a tool or API error. The rest of it was withheld, and tool calls in it that had not finished did not run. Do not produce that content again, even reworded.',
    );
    expect(refusalNotice('claude-sonnet-5-5')).toBe(
      "claude-sonnet-5-5's safeguards stopped the response above · continuing once with that noted",
    );
    expect(refusedAgainError('claude-sonnet-5-5')).toMatch(/^API Error: claude-sonnet-5-5's safeguards flagged/);
  });
});
