/**
 * Custom slash commands and skills as the turn workflow sees them: which kind of prompt a turn
 * runs, and the input and output of the `prepareCommand` activity that expands one on the
 * workspace's host. JSON-safe and pure. The command's text, its arguments and what it expands to
 * are content: they stay in the transcript store (the prompt line and the line the activity
 * writes); history carries the command's name and uuids.
 */
import type { ToolPermission } from './tools';
import type { SettingsEnvRef } from './permissions';

/** Longest command name carried in workflow history (a Web UI label). */
export const MAX_COMMAND_NAME_CHARS = 100;

/** Input of `prepareCommand`. */
export interface PrepareCommandInput {
  sessionId: string;
  /** Working directory (on the workspace's host): `!` lines run and `@` files are read there. */
  cwd: string;
  /** The prompt line (`/name args`): the activity reads the arguments from it. */
  promptUuid: string;
  /** Parent of the line it writes (the end of the chain). */
  parentUuid: string;
  /** Uuid of the line it writes: the expansion, the unknown-command note, or the failed command's record. */
  uuid: string;
  /** Uuid of the answer it writes when the command ends the turn without a model call. */
  answerUuid: string;
  /** `custom`: expand a command or skill; `unknown`: tell the model no such command exists; `unavailable`: answer that it is not available (`--bare`). */
  kind: 'custom' | 'unknown' | 'unavailable';
  /** Content key of the session's stored definitions (src/config-files/definitions). */
  definitionsKey?: string;
  /** Permission of the command's `!` shell lines: the turn's decision for Bash (with the command's `allowed-tools`). */
  shellPermission: ToolPermission;
  /** Settings files whose `env` the shell lines get. */
  settingsEnv?: SettingsEnvRef;
}

/** Output of `prepareCommand` (small: the lines are in the store). */
export interface PrepareCommandSummary {
  /** `expanded`: the model is called next; `answered`: the turn ends with the answer line. */
  outcome: 'expanded' | 'answered';
  /** The line written (the end of the chain now), absent when none was (an `unavailable` command). */
  uuid?: string;
  /** The answer line, with `outcome: "answered"`. */
  answerUuid?: string;
  /** With `answered`: a custom command's `!` line stopped it (Claude Code's `local_command` result). */
  localCommand?: boolean;
  /** True when an earlier attempt had written the lines. */
  replayed: boolean;
}

/** The turn's result of a command that ended before a model call (Claude Code's `local_command`). */
export const LOCAL_COMMAND_RESULT = 'custom';
