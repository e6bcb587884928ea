/** Test helpers for the built-in tools: temp dirs and a session-like ToolContext. */
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { FileReadState } from '../../../../src/common/tools';
import { executeTool, type ExecutedToolOutput } from '../../../../src/activities/tools/execute';
import type { ToolContext } from '../../../../src/activities/tools/types';

/** A ToolContext backed by an in-memory read-file state map, like a session's. */
export interface TestSession {
  dir: string;
  ctx: ToolContext;
  states: Map<string, FileReadState>;
  heartbeats: () => number;
  abort: AbortController;
  /** Runs a tool through executeTool and records its fileState, as the session would. */
  run(name: string, input: unknown): Promise<ExecutedToolOutput>;
  /** Absolute path of `rel` inside the temp dir. */
  p(rel: string): string;
  write(rel: string, content: string | Buffer): Promise<string>;
  cleanup(): Promise<void>;
}

export async function makeSession(): Promise<TestSession> {
  const dir = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'tools-test-')));
  const states = new Map<string, FileReadState>();
  const abort = new AbortController();
  let beats = 0;
  const ctx: ToolContext = {
    cwd: dir,
    signal: abort.signal,
    readState: (abs) => states.get(abs),
    heartbeat: () => {
      beats += 1;
    },
  };
  const p = (rel: string): string => path.join(dir, rel);
  return {
    dir,
    ctx,
    states,
    abort,
    heartbeats: () => beats,
    p,
    async run(name, input) {
      const out = await executeTool(name, input, ctx);
      if (out.fileState) states.set(out.fileState.path, out.fileState.state);
      return out;
    },
    async write(rel, content) {
      const abs = p(rel);
      await fsp.mkdir(path.dirname(abs), { recursive: true });
      await fsp.writeFile(abs, content);
      return abs;
    },
    cleanup: () => fsp.rm(dir, { recursive: true, force: true }),
  };
}

/** The content of a tool output as a string (all built-in tools return strings). */
export function text(out: { content: unknown }): string {
  if (typeof out.content !== 'string') throw new Error('expected string content');
  return out.content;
}

/** Sets a file's mtime `secondsAgo` seconds in the past. */
export async function age(abs: string, secondsAgo: number): Promise<void> {
  const t = new Date(Date.now() - secondsAgo * 1000);
  await fsp.utimes(abs, t, t);
}
