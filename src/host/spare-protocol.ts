/**
 * The spare-client protocol: how a `bin/agent-runner` process hands its run to a spare client
 * process that a shared server keeps loaded (see `src/host/spare-pool.ts`), so that a warm run
 * skips loading the client code (about 400 ms: the Temporal client, its protobuf root, zod, the
 * config and MCP modules).
 *
 * One connection per run, over the Unix socket `<dataDir>/client.sock` (mode 0600). Both sides
 * write newline-delimited JSON frames ({@link ClientFrame}, {@link SpareFrame}). The client sends a
 * {@link RunHeader} first; the spare answers `decline` (the client runs the command itself) or
 * `start`; the client answers `go` (or, having waited too long, closes and runs it itself), and
 * only then does the spare run `main(argv)` with the client's cwd, environment, umask and terminal
 * flags, so the run behaves as if it ran in the client. No module here does I/O at import.
 */
import * as path from 'node:path';
import { StringDecoder } from 'node:string_decoder';

/** Version of the frames below; a spare declines a header of another version. */
export const SPARE_PROTOCOL_VERSION = 1;

/** Longest Unix socket path Linux and macOS accept (sun_path is 108 and 104 bytes), with margin. */
export const MAX_SOCKET_PATH = 100;

/**
 * The socket a shared server's spare clients listen on: `<dataDir>/client.sock`, or null when the
 * path is too long for a Unix socket (then no spare is offered and runs load their own code).
 */
export function spareSocketPath(dataDir: string): string | null {
  const p = path.join(dataDir, 'client.sock');
  return Buffer.byteLength(p) <= MAX_SOCKET_PATH ? p : null;
}

/** The first frame of a run: everything that makes a process's run what it is. */
export interface RunHeader {
  t: 'run';
  v: number;
  /** `RUNNER_VERSION` of the client; a spare of another version declines. */
  version: string;
  /** Real path of the client's package root; a spare of another install declines. */
  root: string;
  /** `process.argv` of the client (node, script, arguments). */
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  umask: number;
  /** Whether each of the client's standard streams is a terminal. */
  tty: { stdin: boolean; stdout: boolean; stderr: boolean };
  /** Terminal width of stdout, when it is a terminal. */
  columns: number | null;
}

/** Frames the client sends: the header, then stdin bytes (when asked for) and signals. */
export type ClientFrame =
  | RunHeader
  /** Bytes read from the client's stdin, base64. */
  | { t: 'in'; b: string }
  /** The client's stdin ended. */
  | { t: 'eof' }
  /** A signal the client received (SIGINT, SIGTERM, SIGHUP). */
  | { t: 'sig'; s: 'SIGINT' | 'SIGTERM' | 'SIGHUP' }
  /**
   * After `start`: run it. Until the spare has this, the client may still give up (no answer in
   * time) and run the command itself, so that a command never runs twice.
   */
  | { t: 'go' };

/** Frames a spare sends back. */
export type SpareFrame =
  /** The spare will run the command once the client says `go` (its pid, for diagnostics). */
  | { t: 'start'; pid: number }
  /** The spare will not run it (why); the client runs the command itself. */
  | { t: 'decline'; why: string }
  /** The run reads stdin: start sending it. */
  | { t: 'stdin' }
  /** Bytes for the client's stdout (`o`) or stderr (`e`), base64. */
  | { t: 'o' | 'e'; b: string }
  /**
   * The run ended with this exit code; or it was ended by this signal (forwarded, with no handler
   * for it), which the client then raises on itself, as a process killed by it ends.
   */
  | { t: 'exit'; code: number; signal?: 'SIGINT' | 'SIGTERM' | 'SIGHUP' };

/** Messages between a spare and the server that started it (over their IPC channel). */
export type SpareIpcMessage =
  /** Spare → server: loaded, waiting for a run. */
  | { type: 'ready' }
  /** Spare → server: took a run (start another spare). */
  | { type: 'taken' }
  /** Spare → server: declined a run; still waiting. */
  | { type: 'free' }
  /** Server → spare: run the client on the socket handed with this message. */
  | { type: 'run' };

/**
 * Splits a byte stream into JSON frames, one per line. Returns a push function; `onFrame` gets
 * each parsed frame, `onBad` a line that is not JSON (the connection is then useless).
 */
export function frameReader(onFrame: (frame: unknown) => void, onBad: (line: string) => void): (chunk: Buffer) => void {
  let pending = '';
  const decoder = new StringDecoder('utf8'); // a character may be split between chunks
  return (chunk) => {
    pending += decoder.write(chunk);
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      if (line === '') continue;
      let frame: unknown;
      try {
        frame = JSON.parse(line);
      } catch {
        onBad(line);
        return;
      }
      onFrame(frame);
    }
  };
}

/** One frame as a line. */
export function frameLine(frame: ClientFrame | SpareFrame): string {
  return `${JSON.stringify(frame)}\n`;
}
