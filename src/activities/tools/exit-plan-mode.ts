/**
 * The `ExitPlanMode` tool, with Claude Code 2.1.328's schema, description and result text, for a
 * turn with an approver (the SDK's `canUseTool`, `--wait-for-approval`): its call always waits for
 * an approval (src/engine/permissions.ts); once approved the run reports it, and the workflow
 * takes the rest of the turn out of plan mode (src/workflows/tool-runs.ts). Headless (`-p`
 * without an approver) it stays disabled, as in 2.1.328.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { EXIT_PLAN_MODE_TOOL } from '../../common/tools';
import type { ToolContext, ToolDefinition, ToolOutput } from './types';

/** The tool_result of an approved call (Claude Code 2.1.328's words). */
export const PLAN_APPROVED_TEXT = 'User has approved exiting plan mode. You can now proceed.';

/** Input of ExitPlanMode (2.1.328's schema: a deprecated `allowedPrompts`, other keys accepted). */
export const ExitPlanModeInputSchema = z
  .object({
    allowedPrompts: z
      .array(
        z.strictObject({
          tool: z.enum(['Bash']).describe('The tool this prompt applies to'),
          prompt: z.string().describe('Semantic description of the action, e.g. "run tests", "install dependencies"'),
        }),
      )
      .optional()
      .describe('Deprecated: no longer used.'),
  })
  .catchall(z.unknown());

/** Input of ExitPlanMode. */
export type ExitPlanModeInput = z.infer<typeof ExitPlanModeInputSchema>;

const DESCRIPTION =
  'Use this tool when you are in plan mode and have finished writing your plan to the plan file and are ready for user approval.\n\n## How This Tool Works\n- You should have already written your plan to the plan file specified in the plan mode system message\n- This tool does NOT take the plan content as a parameter - it will read the plan from the file you wrote\n- This tool simply signals that you\'re done planning and ready for the user to review and approve\n- The user will see the contents of your plan file when they review it\n\n## When to Use This Tool\nIMPORTANT: Only use this tool when the task requires planning the implementation steps of a task that requires writing code. For research tasks where you\'re gathering information, searching files, reading files or in general trying to understand the codebase - do NOT use this tool.\n\n## Before Using This Tool\nEnsure your plan is complete and unambiguous:\n- If you have unresolved questions about requirements or approach, use AskUserQuestion first (in earlier phases)\n- Once your plan is finalized, use THIS tool to request approval\n\n**Important:** Do NOT use AskUserQuestion to ask "Is this plan okay?" or "Should I proceed?" - that\'s exactly what THIS tool does. ExitPlanMode inherently requests user approval of your plan.\n\n## Examples\n\n1. Initial task: "Search for and understand the implementation of vim mode in the codebase" - Do not use the exit plan mode tool because you are not planning the implementation steps of a task.\n2. Initial task: "Help me implement yank mode for vim" - Use the exit plan mode tool after you have finished planning the implementation steps of the task.\n3. Initial task: "Add a new feature to handle user authentication" - If unsure about auth method (OAuth, JWT, etc.), use AskUserQuestion first, then use exit plan mode tool after clarifying the approach.\n';

async function run(_input: ExitPlanModeInput, ctx: ToolContext): Promise<ToolOutput> {
  // tool_use_result as Claude Code's: the plan file's text (null without one: nothing here writes
  // it), not a subagent's call, and the plan file's path.
  const filePath = await ctx.planFile?.();
  const plan = filePath === undefined ? null : await readFile(filePath, 'utf8').catch(() => null);
  return {
    content: PLAN_APPROVED_TEXT,
    isError: false,
    structured: { plan, isAgent: false, ...(filePath !== undefined ? { filePath } : {}) },
  };
}

/** ExitPlanMode: reports the approval its call waited for (never asks itself). */
export const ExitPlanModeTool: ToolDefinition<ExitPlanModeInput> = {
  name: EXIT_PLAN_MODE_TOOL,
  description: DESCRIPTION,
  inputSchema: ExitPlanModeInputSchema,
  readOnly: true,
  idempotent: true,
  run,
};
