/**
 * The `AskUserQuestion` tool, with Claude Code 2.1.328's schema, description and result texts.
 * The question itself is asked before the tool runs: its call always waits for an approval
 * (src/engine/permissions.ts), and the answer's `updatedInput` carries the person's choices in
 * `answers` (question text → the chosen label, several joined by ", "), as the Agent SDK's
 * `canUseTool` gives them. The run only reports those answers to the model.
 */
import { z } from 'zod';
import type { ToolDefinition, ToolOutput } from './types';

/** The tool's name (Claude Code's). */
export const ASK_USER_QUESTION_TOOL = 'AskUserQuestion';

const OptionSchema = z.strictObject({
  label: z
    .string()
    .describe(
      'The display text for this option that the user will see and select. Should be concise (1-5 words) and clearly describe the choice.',
    ),
  description: z
    .string()
    .describe(
      'Explanation of what this option means or what will happen if chosen. Useful for providing context about trade-offs or implications.',
    ),
  preview: z
    .string()
    .optional()
    .describe(
      'Optional preview content rendered when this option is focused. Use for mockups, code snippets, or visual comparisons that help users compare options. See the tool description for the expected content format.',
    ),
});

const QuestionSchema = z.strictObject({
  question: z
    .string()
    .describe(
      'The complete question to ask the user. Should be clear, specific, and end with a question mark. Example: "Which library should we use for date formatting?" If multiSelect is true, phrase it accordingly, e.g. "Which features do you want to enable?"',
    ),
  header: z
    .string()
    .describe(
      'Very short label displayed as a chip/tag (max 12 chars). Examples: "Auth method", "Library", "Approach".',
    ),
  options: z
    .array(OptionSchema)
    .min(2)
    .max(4)
    .describe(
      "The available choices for this question. Must have 2-4 options. Each option should be a distinct, mutually exclusive choice (unless multiSelect is enabled). There should be no 'Other' option, that will be provided automatically.",
    ),
  multiSelect: z
    .boolean()
    .default(false)
    .describe(
      'Set to true to allow the user to select multiple options instead of just one. Use when choices are not mutually exclusive.',
    ),
});

/** Input of AskUserQuestion (Claude Code 2.1.328's schema). */
export const AskUserQuestionInputSchema = z.strictObject({
  questions: z.array(QuestionSchema).min(1).max(4).describe('Questions to ask the user (1-4 questions)'),
  answers: z.record(z.string(), z.string()).optional().describe('User answers collected by the permission component'),
  annotations: z
    .record(
      z.string(),
      z.strictObject({
        preview: z
          .string()
          .optional()
          .describe('The preview content of the selected option, if the question used previews.'),
        notes: z.string().optional().describe('Free-text notes the user added to their selection.'),
      }),
    )
    .optional()
    .describe(
      'Optional per-question annotations from the user (e.g., notes on preview selections). Keyed by question text.',
    ),
  metadata: z
    .strictObject({
      source: z
        .string()
        .optional()
        .describe(
          'Optional identifier for the source of this question (e.g., "remember" for /remember command). Used for analytics tracking.',
        ),
    })
    .optional()
    .describe('Optional metadata for tracking and analytics purposes. Not displayed to user.'),
});
/** Parsed AskUserQuestion input. */
export type AskUserQuestionInput = z.infer<typeof AskUserQuestionInputSchema>;

const DESCRIPTION =
  'Use this tool only when you are blocked on a decision that is genuinely the user\'s to make: one you cannot resolve from the request, the code, or sensible defaults.\n\nUsage notes:\n- Users will always be able to select "Other" to provide custom text input\n- Use multiSelect: true to allow multiple answers to be selected for a question\n- If you recommend a specific option, make that the first option in the list and add "(Recommended)" at the end of the label\n\nPlan mode note: To switch into plan mode, use EnterPlanMode (not this tool). Once in plan mode, use this tool to clarify requirements or choose between approaches BEFORE finalizing your plan. Do NOT use this tool to ask "Is my plan ready?", "Should I proceed?", or otherwise reference "the plan" in questions \u2014 the user cannot see the plan until you call ExitPlanMode for approval.\n\nReserve this for decisions where the user\'s answer changes what you do next \u2014 not for choices with a conventional default or facts you can verify in the codebase yourself. In those cases pick the obvious option, mention it in your response, and proceed.\n\nThe user may see only the question dialog: tool results and text you wrote earlier in this turn may not be on their screen while it is open. Make each question stand on its own: if it depends on something you found, say so briefly, and name the items you are asking about in the question itself.\n';

/** The tool_result text when the call was allowed without answers (our words). */
export const NO_ANSWERS_TEXT =
  'The user did not answer these questions (the call was allowed without answers). Go on with sensible defaults and say which you chose.';

/**
 * The tool_result text of answered questions, in Claude Code 2.1.328's words:
 * `Your questions have been answered: "<question>"="<answer>", …. You can now continue with these answers in mind.`
 * A question's annotation notes follow its answer (` user notes: …`).
 */
export function answeredText(input: AskUserQuestionInput): string {
  // Approved without answers (or by `--approval-default allow` at the timeout): said plainly, where
  // headless Claude Code reports empty answers as answered (claude-code#50728).
  if (Object.keys(input.answers ?? {}).length === 0) return NO_ANSWERS_TEXT;
  const parts = Object.entries(input.answers ?? {}).map(([question, answer]) => {
    const notes = input.annotations?.[question]?.notes;
    return `"${question}"="${answer}"${notes ? ` user notes: ${notes}` : ''}`;
  });
  return `Your questions have been answered: ${parts.join(', ')}. You can now continue with these answers in mind.`;
}

function run(input: AskUserQuestionInput): Promise<ToolOutput> {
  // tool_use_result as Claude Code's: the questions and the answers (and annotations when given).
  const structured = {
    questions: input.questions,
    answers: input.answers ?? {},
    ...(input.annotations ? { annotations: input.annotations } : {}),
  };
  return Promise.resolve({ content: answeredText(input), isError: false, structured });
}

/** AskUserQuestion: reports the answers an approval brought (never asks itself). */
export const AskUserQuestionTool: ToolDefinition<AskUserQuestionInput> = {
  name: ASK_USER_QUESTION_TOOL,
  description: DESCRIPTION,
  inputSchema: AskUserQuestionInputSchema,
  readOnly: true,
  idempotent: true,
  run,
};
