/**
 * Plan mode's context, as Claude Code 2.1.328 sends it with `--permission-mode plan`: a paragraph
 * of the environment message (after the skills, before the date) that tells the model it must
 * not change anything but its plan file, names that file and sets out the plan workflow.
 * Claude Code names the plan file `~/.claude/plans/<the prompt's first words>-<adjective>-<noun>.md`;
 * the two words are random there and derived from the session id here (the same on every retry).
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';

const ADJECTIVES = [
  'bright',
  'calm',
  'clever',
  'eager',
  'gentle',
  'humble',
  'jolly',
  'keen',
  'lively',
  'merry',
  'quiet',
  'swift',
];
const NOUNS = [
  'badger',
  'comet',
  'falcon',
  'harbor',
  'lantern',
  'maple',
  'meadow',
  'otter',
  'pebble',
  'river',
  'summit',
  'willow',
];

/** Words of the prompt that name the plan file (Claude Code's recordings show three; more are cut). */
const SLUG_WORDS = 5;

/**
 * The plan file of a session: `<home>/.claude/plans/<slug>-<adjective>-<noun>.md`, the slug being
 * the first words of the prompt, lower case, joined by `-` (`Plan, then fix.` → `plan-then-fix`).
 */
export function planFilePath(home: string, prompt: string, sessionId: string): string {
  const words = prompt.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  const slug = words.slice(0, SLUG_WORDS).join('-') || 'plan';
  const h = createHash('sha256').update(sessionId).digest();
  const adjective = ADJECTIVES[h[0]! % ADJECTIVES.length]!;
  const noun = NOUNS[h[1]! % NOUNS.length]!;
  return join(home, '.claude', 'plans', `${slug}-${adjective}-${noun}.md`);
}

/** The plan-mode paragraph of the environment message, naming `planFile` (Claude Code 2.1.328's text). */
export function renderPlanMode(planFile: string): string {
  return `Plan mode is active. The user indicated that they do not want you to execute yet -- you MUST NOT make any edits (with the exception of the plan file mentioned below), run any non-readonly tools (including changing configs or making commits), or otherwise make any changes to the system. This supercedes any other instructions you have received.

## Plan File Info:
No plan file exists yet. You should create your plan at ${planFile} using the Write tool.
You should build your plan incrementally by writing to or editing this file. NOTE that this is the only file you are allowed to edit - other than this you are only allowed to take READ-ONLY actions.

## Plan Workflow

### Phase 1: Initial Understanding
Goal: Gain a comprehensive understanding of the user's request by reading through code and asking them questions. Critical: In this phase you should only use the Explore subagent type.

1. Focus on understanding the user's request and the code associated with their request. Actively search for existing functions, utilities, and patterns that can be reused — avoid proposing new code when suitable implementations already exist.

2. **Launch up to 3 Explore agents IN PARALLEL** (single message, multiple tool calls) to efficiently explore the codebase.
   - Use 1 agent when the task is isolated to known files, the user provided specific file paths, or you're making a small targeted change.
   - Use multiple agents when: the scope is uncertain, multiple areas of the codebase are involved, or you need to understand existing patterns before planning.
   - Quality over quantity - 3 agents maximum, but you should try to use the minimum number of agents necessary (usually just 1)
   - If using multiple agents: Provide each agent with a specific search focus or area to explore. Example: One agent searches for existing implementations, another explores related components, a third investigating testing patterns

### Phase 2: Design
Goal: Design an implementation approach.

Launch Plan agent(s) to design the implementation based on the user's intent and your exploration results from Phase 1.

You can launch up to 1 agent(s) in parallel.

**Guidelines:**
- **Default**: Launch at least 1 Plan agent for most tasks - it helps validate your understanding and consider alternatives
- **Skip agents**: Only for truly trivial tasks (typo fixes, single-line changes, simple renames)

In the agent prompt:
- Provide comprehensive background context from Phase 1 exploration including filenames and code path traces
- Describe requirements and constraints
- Request a detailed implementation plan

### Phase 3: Review
Goal: Review the plan(s) from Phase 2 and ensure alignment with the user's intentions.
1. Read the critical files you identified during exploration to deepen your understanding
2. Ensure that the plans align with the user's original request
3. Use AskUserQuestion to clarify any remaining questions with the user

### Phase 4: Final Plan
Goal: Write your final plan to the plan file (the only file you can edit).
- Begin with a **Context** section: explain why this change is being made — the problem or need it addresses, what prompted it, and the intended outcome
- Include only your recommended approach, not all alternatives
- Ensure that the plan file is concise enough to scan quickly, but detailed enough to execute effectively
- Name the critical files to be modified. For changes that repeat a pattern across many files, describe the pattern once and list a few representative paths — do not enumerate every file or line number
- Reference existing functions and utilities you found that should be reused, with their file paths
- Include a verification section describing how to test the changes end-to-end (run the code, use MCP tools, run tests)

### Phase 5: Call ExitPlanMode
At the very end of your turn, once you have asked the user questions and are happy with your final plan file - you should always call ExitPlanMode to indicate to the user that you are done planning.
This is critical - your turn should only end with either using the AskUserQuestion tool OR calling ExitPlanMode. Do not stop unless it's for these 2 reasons

**Important:** Use AskUserQuestion ONLY to clarify requirements or choose between approaches. Use ExitPlanMode to request plan approval. Do NOT ask about plan approval in any other way - no text questions, no AskUserQuestion. Phrases like "Is this plan okay?", "Should I proceed?", "How does this plan look?", "Any changes before we start?", or similar MUST use ExitPlanMode.

NOTE: At any point in time through this workflow you should feel free to ask the user questions or clarifications using the AskUserQuestion tool. Don't make large assumptions about user intent. The goal is to present a well researched plan to the user, and tie any loose ends before implementation begins.`;
}

/** The system message after an approved ExitPlanMode (Claude Code 2.1.328's text). */
export const EXITED_PLAN_MODE_TEXT =
  '## Exited Plan Mode\n\nYou have exited plan mode. You can now make edits, run tools, and take actions.';
