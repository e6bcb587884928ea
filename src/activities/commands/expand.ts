/**
 * A command's or skill's text as the model gets it when it runs: its arguments filled in, its
 * `!` shell lines run (under the permission rules) and replaced by their output, a skill's
 * directory named first, and the files its `@` references name read and attached.
 */
import type { ContextAttachment } from '../../common/context';
import type { ShellLineFailure } from '../../common/command-text';
import { skillText } from '../../common/command-text';
import type { ToolPermission } from '../../common/tools';
import type { CommandDefinition } from '../../config-files/definitions/types';
import { substituteArguments } from '../../config-files/definitions/arguments';
import { readFileRefs } from './file-refs';
import { runShellLines } from './shell-lines';

/** What running a definition came to. */
export type Expansion =
  | { text: string; files: ContextAttachment[]; failure?: undefined }
  | { failure: ShellLineFailure; text?: undefined; files?: undefined };

/** Runs one definition with its arguments (see the module comment). */
export async function expandDefinition(
  def: CommandDefinition,
  args: string,
  ctx: {
    cwd: string;
    /** Permission of `!` lines (Bash) and `@` reads. */
    permission: ToolPermission;
    env: NodeJS.ProcessEnv;
    signal: AbortSignal;
    style: 'command' | 'skill';
  },
): Promise<Expansion> {
  const filled = substituteArguments(def.body, args);
  const shell = await runShellLines(filled, {
    cwd: ctx.cwd,
    permission: ctx.permission,
    env: ctx.env,
    signal: ctx.signal,
  });
  if (shell.failure) return { failure: shell.failure };
  const files = await readFileRefs(shell.body, {
    cwd: ctx.cwd,
    style: ctx.style,
    readPermission: ctx.permission,
    signal: ctx.signal,
  });
  return { text: skillText(def.kind === 'skill' ? def.baseDir : undefined, shell.body), files };
}
