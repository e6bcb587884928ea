/**
 * The texts the model and the stream get for commands and skills, byte for byte as Claude Code
 * 2.1.328 sends them (docs/reference/claude-code-commands-skills-model.md). Pure.
 */

/** The block that stands for a typed command: `<command-message>`, `<command-name>`, `<command-args>` (absent without arguments), each on its line. */
export function commandMessageText(name: string, args: string): string {
  const lines = [`<command-message>${name}</command-message>`, `<command-name>/${name}</command-name>`];
  if (args !== '') lines.push(`<command-args>${args}</command-args>`);
  return `${lines.join('\n')}\n`;
}

/** The same block as the replayed user message (`--replay-user-messages`) shows it: no newline at the end. */
export function commandReplayText(name: string, args: string): string {
  return commandMessageText(name, args).replace(/\n$/, '');
}

/** A skill's text as the model gets it: its directory, then its body. */
export function skillText(baseDir: string | undefined, body: string): string {
  return baseDir === undefined ? body : `Base directory for this skill: ${baseDir}\n\n${body}`;
}

/** The tool_result of a Skill call that loaded the skill. */
export function launchingSkillText(name: string): string {
  return `Launching skill: ${name}`;
}

/** Why a `!` shell line stopped a command: it was not allowed, or it failed. */
export type ShellLineFailure = { kind: 'permission' | 'failed'; pattern: string; message: string };

/** The answer of a command whose `!` shell line was refused or failed (also the turn's result). */
export function shellFailureText(f: ShellLineFailure): string {
  const what = f.kind === 'permission' ? 'Shell command permission check failed' : 'Shell command failed';
  return `${what} for pattern "${f.pattern}": ${f.message}`;
}

const CAVEAT =
  "<local-command-caveat>The command below was run directly in Claude Code, not sent to you as a request, and its output goes straight to the user. It's recorded here as context for later messages.</local-command-caveat>\n";

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The `<local-command-stderr>` block of a command that failed (HTML-escaped, as Claude Code writes it). */
export function localCommandStderr(text: string): string {
  return `<local-command-stderr>${escapeHtml(text)}</local-command-stderr>\n`;
}

/**
 * What the model gets in a later request for a command that failed before any model call: the
 * caveat, the command (in Claude Code's indentation) and its error.
 */
export function failedCommandBlocks(name: string, args: string, error: string): string[] {
  return [
    CAVEAT,
    `<command-name>/${name}</command-name>\n            <command-message>${name}</command-message>\n            <command-args>${args}</command-args>\n`,
    localCommandStderr(error),
  ];
}

/** The answer to a skill typed under `--bare`, which loads no skills. */
export function unavailableCommandText(name: string): string {
  return `/${name} isn't available in this environment.`;
}

/** Names shown in the unknown-command note before it says how many more there are. */
export const UNKNOWN_COMMAND_LISTED = 23;

/** The note before a prompt whose `/name` is no command of the session. */
export function unknownCommandText(command: string, available: readonly string[]): string {
  const shown = available.slice(0, UNKNOWN_COMMAND_LISTED).map((n) => `/${n}`);
  const more = available.length - shown.length;
  const list = shown.length === 0 ? '(none)' : `${shown.join(', ')}${more > 0 ? `, and ${more} more` : ''}`;
  return (
    `<system-reminder>\nThe user's message starts with the slash command /${command}, but no command with that name is available in this session, so it did not run. ` +
    `Slash commands available in this session: ${list}. ` +
    'Treat the message as a plain request and do the task with the tools you have. If the task needs that command, tell the user it is not installed in this session. ' +
    'The user can add it as an organization plugin or a project skill. Do not give installation steps you are not sure of. Do not say the command ran.\n</system-reminder>'
  );
}

/** A Skill call for a skill the model may not invoke. */
export function skillNotInvocableText(name: string): string {
  return `Skill ${name} cannot be used with Skill tool due to disable-model-invocation. Ask the user to run /${name} themselves — it cannot be invoked via the Skill tool. Do not replicate this skill's workflow by other means — it is reserved for explicit user invocation.`;
}

/** A Skill call denied for want of an allow rule (a skill with `allowed-tools`, in default mode). */
export function skillPermissionText(name: string): string {
  return `Execute skill: ${name}. The user can add the allow rule Skill(${name}) to .claude/settings.local.json to let it run without asking.`;
}

/** The `@path` read of a command: the call, as its own message (typed command) or a block (Skill). */
export function fileReadCallText(path: string, style: 'command' | 'skill'): string {
  const t = `<system-reminder>\nCalled the Read tool with the following input: ${JSON.stringify({ file_path: path })}\n</system-reminder>`;
  return style === 'skill' ? `${t}\n` : t;
}

/** The `@path` read's result block. */
export function fileReadResultText(content: string, style: 'command' | 'skill'): string {
  const t = `<system-reminder>\nResult of calling the Read tool:\n${content}\n</system-reminder>`;
  return style === 'skill' ? `${t}\n` : t;
}
