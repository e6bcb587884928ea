import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { existsSync, statSync } from 'node:fs';
import type { Config } from '../../config';
import type { SDKMessage, SDKResultMessage } from '../../common/sdk-messages';
import { QueryEngine } from '../../client/query-engine';
import { openRuntime } from '../../client/runtime';
import type { Runtime } from '../../client/runtime';
import type { OutputFormat } from '../output';
import { EXIT, describeMessage, exitCodeFor, textOutput } from '../output';
import type { TurnFlags } from '../turn-options';
import { UsageError, turnOptionsFrom } from '../turn-options';
import { readPromptFromStdin } from '../stdin';

/** Flags of `agent-runner -p`. */
export interface PrintFlags extends TurnFlags {
  outputFormat: OutputFormat;
  cwd?: string;
  sessionId?: string;
  resume?: string | boolean;
  continue?: boolean;
  verbose?: boolean;
}

/** Where `-p` writes; injectable for tests. */
export interface PrintIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function pickSessionId(rt: Runtime, flags: PrintFlags, cwd: string): Promise<string> {
  if (typeof flags.resume === 'string') {
    if (!(await rt.store.exists(flags.resume))) {
      throw new UsageError(`--resume: no conversation found with session id ${flags.resume}`);
    }
    return flags.resume;
  }
  if (flags.continue) {
    const sessions = await rt.store.listSessions();
    const here = sessions.find((s) => s.cwd === cwd) ?? null;
    if (!here) throw new UsageError(`--continue: no earlier conversation found in ${cwd}`);
    return here.sessionId;
  }
  if (flags.sessionId) {
    if (!UUID_RE.test(flags.sessionId)) throw new UsageError(`--session-id must be a UUID, got "${flags.sessionId}"`);
    if (await rt.store.exists(flags.sessionId)) {
      throw new UsageError(`--session-id ${flags.sessionId} is already in use; continue it with --resume`);
    }
    return flags.sessionId;
  }
  return randomUUID();
}

/**
 * `agent-runner -p`: runs one turn and prints it. Returns the exit code (0 success, 1 error
 * result or failed run, 2 usage/config error). The first Ctrl-C interrupts the turn cleanly
 * (the result still prints); a second one exits at once.
 */
export async function runPrint(
  config: Config,
  promptArg: string | undefined,
  flags: PrintFlags,
  io: PrintIo,
): Promise<number> {
  const cwd = resolve(flags.cwd ?? process.cwd());
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw new UsageError(`--cwd: ${cwd} is not a directory`);
  if (flags.resume === true) throw new UsageError('--resume needs a session id in print mode');
  const options = turnOptionsFrom(config, flags);
  const prompt = promptArg ?? (await readPromptFromStdin());
  const log = flags.verbose || flags.outputFormat === 'text' ? (l: string) => io.stderr(l) : () => undefined;
  const rt = await openRuntime({ config, log: flags.verbose ? log : () => undefined, quiet: flags.verbose !== true });
  let result: SDKResultMessage | undefined;
  let interrupts = 0;
  let engine: QueryEngine | undefined;
  const onSigint = (): void => {
    interrupts++;
    if (interrupts > 1 || !engine) {
      void rt.close().finally(() => process.exit(130));
      return;
    }
    io.stderr('interrupting the turn (Ctrl-C again to quit at once)…');
    void engine.interrupt('Interrupted by user (Ctrl-C)').catch(() => undefined);
  };
  process.on('SIGINT', onSigint);
  try {
    if (rt.worker && !process.env[config.model.apiKeyEnv]) {
      throw new UsageError(
        `${config.model.apiKeyEnv} is not set: the in-process worker cannot call the model ` +
          '(set it, or point ANTHROPIC_BASE_URL at a local Messages API server with any key)',
      );
    }
    const sessionId = await pickSessionId(rt, flags, cwd);
    engine = new QueryEngine({
      client: rt.client,
      store: rt.store,
      taskQueue: rt.taskQueue,
      cwd,
      defaults: options,
      sessionId,
      apiKeySource: process.env[config.model.apiKeyEnv] ? 'user' : 'none',
    });
    for await (const msg of engine.submitMessage(prompt, options)) {
      emit(msg, flags, io);
      if (msg.type === 'result') result = msg;
    }
    await engine.end().catch(() => undefined);
  } finally {
    process.off('SIGINT', onSigint);
    await rt.close();
  }
  if (result && flags.outputFormat === 'json') io.stdout(JSON.stringify(result));
  if (result && flags.outputFormat === 'text') {
    const out = textOutput(result);
    if (out.stdout) io.stdout(out.stdout);
    if (out.stderr) io.stderr(out.stderr);
  }
  return result ? exitCodeFor(result) : EXIT.error;
}

function emit(msg: SDKMessage, flags: PrintFlags, io: PrintIo): void {
  if (flags.outputFormat === 'stream-json') {
    io.stdout(JSON.stringify(msg));
    return;
  }
  if (flags.verbose) {
    const line = describeMessage(msg);
    if (line) io.stderr(line);
  }
}
