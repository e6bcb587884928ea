/**
 * The `EnterPlanMode` tool, with Claude Code 2.1.328's schema, description and result text, for a
 * turn with an approver (offered, deferred to ToolSearch, as 2.1.328's SDK offers it). A call in
 * a turn that is in plan mode runs (Claude Code leaves the mode as it is and says it entered it);
 * out of plan mode it is refused (src/engine/permissions.ts): the runner does not enter plan mode
 * in the middle of a turn.
 */
import { z } from 'zod';
import { ENTER_PLAN_MODE_TOOL } from '../../common/tools';
import type { ToolDefinition, ToolOutput } from './types';

/** The tool_result of a call (Claude Code 2.1.328's words). */
export const ENTERED_PLAN_MODE_TEXT =
  'Entered plan mode. You should now focus on exploring the codebase and designing an implementation approach.\n\n' +
  'In plan mode, you should:\n' +
  '1. Thoroughly explore the codebase to understand existing patterns\n' +
  '2. Identify similar features and architectural approaches\n' +
  '3. Consider multiple approaches and their trade-offs\n' +
  '4. Use AskUserQuestion if you need to clarify the approach\n' +
  '5. Design a concrete implementation strategy\n' +
  '6. When ready, use ExitPlanMode to present your plan for approval\n\n' +
  'Remember: DO NOT write or edit any files yet. This is a read-only exploration and planning phase.';

/** Input of EnterPlanMode: none (2.1.328's schema, `additionalProperties: false`). */
export const EnterPlanModeInputSchema = z.strictObject({});

/** Input of EnterPlanMode. */
export type EnterPlanModeInput = z.infer<typeof EnterPlanModeInputSchema>;

const DESCRIPTION =
  'Use this tool proactively when you\'re about to start a non-trivial implementation task. Getting user sign-off on your approach before writing code prevents wasted effort and ensures alignment. This tool transitions you into plan mode where you can explore the codebase and design an implementation approach for user approval.\n\n## When to Use This Tool\n\n**Prefer using EnterPlanMode** for implementation tasks unless they\'re simple. Use it when ANY of these conditions apply:\n\n1. **New Feature Implementation**: Adding meaningful new functionality\n   - Example: "Add a logout button" - where should it go? What should happen on click?\n   - Example: "Add form validation" - what rules? What error messages?\n\n2. **Multiple Valid Approaches**: The task can be solved in several different ways\n   - Example: "Add caching to the API" - could use Redis, in-memory, file-based, etc.\n   - Example: "Improve performance" - many optimization strategies possible\n\n3. **Code Modifications**: Changes that affect existing behavior or structure\n   - Example: "Update the login flow" - what exactly should change?\n   - Example: "Refactor this component" - what\'s the target architecture?\n\n4. **Architectural Decisions**: The task requires choosing between patterns or technologies\n   - Example: "Add real-time updates" - WebSockets vs SSE vs polling\n   - Example: "Implement state management" - Redux vs Context vs custom solution\n\n5. **Multi-File Changes**: The task will likely touch more than 2-3 files\n   - Example: "Refactor the authentication system"\n   - Example: "Add a new API endpoint with tests"\n\n6. **Unclear Requirements**: You need to explore before understanding the full scope\n   - Example: "Make the app faster" - need to profile and identify bottlenecks\n   - Example: "Fix the bug in checkout" - need to investigate root cause\n\n7. **User Preferences Matter**: The implementation could reasonably go multiple ways\n   - If you would use AskUserQuestion to clarify the approach, use EnterPlanMode instead\n   - Plan mode lets you explore first, then present options with context\n\n## When NOT to Use This Tool\n\nOnly skip EnterPlanMode for simple tasks:\n- Single-line or few-line fixes (typos, obvious bugs, small tweaks)\n- Adding a single function with clear requirements\n- Tasks where the user has given very specific, detailed instructions\n- Pure research/exploration tasks (use the Agent tool instead)\n\n## What Happens in Plan Mode\n\nIn plan mode, you\'ll:\n1. Thoroughly explore the codebase using `find`/Glob, `grep`/Grep, and Read\n2. Understand existing patterns and architecture\n3. Design an implementation approach\n4. Present your plan to the user for approval\n5. Use AskUserQuestion if you need to clarify approaches\n6. Exit plan mode with ExitPlanMode when ready to implement\n\n## Examples\n\n### GOOD - Use EnterPlanMode:\nUser: "Add user authentication to the app"\n- Requires architectural decisions (session vs JWT, where to store tokens, middleware structure)\n\nUser: "Optimize the database queries"\n- Multiple approaches possible, need to profile first, significant impact\n\nUser: "Implement dark mode"\n- Architectural decision on theme system, affects many components\n\nUser: "Add a delete button to the user profile"\n- Seems simple but involves: where to place it, confirmation dialog, API call, error handling, state updates\n\nUser: "Update the error handling in the API"\n- Affects multiple files, user should approve the approach\n\n### BAD - Don\'t use EnterPlanMode:\nUser: "Fix the typo in the README"\n- Straightforward, no planning needed\n\nUser: "Add a console.log to debug this function"\n- Simple, obvious implementation\n\nUser: "What files handle routing?"\n- Research task, not implementation planning\n\n## Important Notes\n\n- This tool REQUIRES user approval - they must consent to entering plan mode\n- If unsure whether to use it, err on the side of planning - it\'s better to get alignment upfront than to redo work\n- Users appreciate being consulted before significant changes are made to their codebase\n';

function run(): Promise<ToolOutput> {
  return Promise.resolve({
    content: ENTERED_PLAN_MODE_TEXT,
    isError: false,
    structured: { message: ENTERED_PLAN_MODE_TEXT },
  });
}

/** EnterPlanMode: reports that the turn is in plan mode (it runs only there). */
export const EnterPlanModeTool: ToolDefinition<EnterPlanModeInput> = {
  name: ENTER_PLAN_MODE_TOOL,
  description: DESCRIPTION,
  inputSchema: EnterPlanModeInputSchema,
  readOnly: true,
  idempotent: true,
  run,
};
