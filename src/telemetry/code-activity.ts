/**
 * What a tool call did to the code, for `claude_code.lines_of_code.count`,
 * `claude_code.commit.count` and `claude_code.pull_request.count`: pure functions of the call's
 * input and structured result, by Claude Code 2.1.328's rules (read from its binary).
 */

/** A hunk of a structured patch (`structuredPatch` of an Edit or Write result). */
interface Hunk {
  lines: readonly string[];
}

/** Lines added and removed by a change (lines). */
export interface LinesChanged {
  added: number;
  removed: number;
}

/** Commands longer than this are not inspected (Claude Code's bound, characters). */
export const MAX_INSPECTED_COMMAND_CHARS = 10_000;

/**
 * Lines an Edit or Write result changed: the `+` and `-` lines of its `structuredPatch`; a
 * change without hunks (a file created whole) counts every line of the new content as added and
 * of the old as removed. Null for a result without a structured patch.
 */
export function linesChanged(toolUseResult: unknown): LinesChanged | null {
  if (toolUseResult === null || typeof toolUseResult !== 'object') return null;
  const r = toolUseResult as { structuredPatch?: unknown; content?: unknown; originalFile?: unknown };
  if (!Array.isArray(r.structuredPatch)) return null;
  const hunks = r.structuredPatch as Hunk[];
  const text = (v: unknown): string => (typeof v === 'string' ? v : '');
  const lineCount = (s: string): number => (s === '' ? 0 : s.split('\n').length);
  if (hunks.length === 0) return { added: lineCount(text(r.content)), removed: lineCount(text(r.originalFile)) };
  let added = 0;
  let removed = 0;
  for (const h of hunks) {
    for (const line of Array.isArray(h.lines) ? h.lines : []) {
      if (line.startsWith('+')) added++;
      else if (line.startsWith('-')) removed++;
    }
  }
  return { added, removed };
}

/** `git commit`, also with global options before the subcommand (`git -C dir commit`). */
const GIT_COMMIT = /\bgit(?:\s+-{1,2}[\w-]+(?:[=\s]+(?!commit\b)[^\s-]\S*)?)*\s+commit\b/;
/** Creating a pull request with GitHub's or GitLab's CLI. */
const PR_CREATE = [/\bgh\s+pr\s+create\b/, /\bglab\s+mr\s+create\b/];
/** A `curl` POST to a pulls / merge-requests endpoint (a pull request created through the API). */
function curlCreatesPullRequest(command: string): boolean {
  return (
    /\bcurl\b/.test(command) &&
    (/-X\s*POST\b/i.test(command) || /--request\s*=?\s*POST\b/i.test(command) || /\s-d\s/.test(command)) &&
    /https?:\/\/[^\s'"]*\/(?:pulls|pull-requests|merge[-_]requests)(?!\/\d)/i.test(command)
  );
}

/**
 * Commits and pull requests a Bash command that succeeded created (Claude Code counts a
 * foreground command with exit code 0; commands over {@link MAX_INSPECTED_COMMAND_CHARS} are not
 * inspected).
 */
export function gitActivity(command: string): { commits: number; pullRequests: number } {
  if (command.length > MAX_INSPECTED_COMMAND_CHARS) return { commits: 0, pullRequests: 0 };
  const byCli = PR_CREATE.filter((re) => re.test(command)).length;
  return {
    commits: GIT_COMMIT.test(command) ? 1 : 0,
    pullRequests: byCli + (curlCreatesPullRequest(command) ? 1 : 0),
  };
}
