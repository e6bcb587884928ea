/**
 * Limits the operating system puts on a Bash command, checked before spawning so that the model
 * gets an answer it can act on instead of `spawn E2BIG`.
 */
import { errorOutput } from './format';
import type { ToolOutput } from './types';

/**
 * Largest command in bytes the Bash tool runs on Linux. The command goes to `bash -c` as one
 * argument, and one argument may hold at most MAX_ARG_STRLEN = 32 pages of 4 KiB = 131,072 bytes
 * including its terminating NUL (linux/binfmts.h); 1 KiB of that is kept for the runner's own
 * wrapper around the command (`exec 2>&1`, …).
 */
export const BASH_MAX_COMMAND_BYTES = 131_071 - 1024;

/**
 * An error result for a command too long to pass to `bash -c` on this system (Linux only; other
 * systems have no per-argument limit), or null when it fits.
 */
export function commandTooLong(command: string, platform: NodeJS.Platform = process.platform): ToolOutput | null {
  if (platform !== 'linux') return null;
  const bytes = Buffer.byteLength(command, 'utf8');
  if (bytes <= BASH_MAX_COMMAND_BYTES) return null;
  return errorOutput(
    `The command is ${bytes.toLocaleString('en-US')} bytes; one Bash command can be at most ` +
      `${BASH_MAX_COMMAND_BYTES.toLocaleString('en-US')} bytes (the operating system's limit on one argument), so it was not run. ` +
      'Write the script or its data to a file with the Write tool, then run it (for example `bash script.sh`).',
  );
}
