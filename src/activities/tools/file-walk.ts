/**
 * File enumeration shared by Glob and Grep: fast-glob over a directory, files only, skipping
 * `.git` and `node_modules`, with modification times for newest-first ordering.
 */
import type { Readable } from 'node:stream';
import fg from 'fast-glob';
import { throttledHeartbeat, throwIfAborted } from './progress';
import type { ToolContext } from './types';

/** Directories never descended into. */
export const ALWAYS_IGNORED = ['**/.git/**', '**/node_modules/**'];

/** A file found by {@link walkFiles}. */
export interface WalkEntry {
  /** Absolute path. */
  path: string;
  mtimeMs: number;
  size: number;
}

/** Options of {@link walkFiles}. */
export interface WalkOptions {
  /** Directory the patterns are relative to. */
  cwd: string;
  /** Extra ignore patterns (fast-glob syntax). */
  ignore?: string[];
}

/**
 * Lists the files matching `patterns` under `opts.cwd` (hidden files included, symlinks not
 * followed). Heartbeats while walking and stops with an error when `ctx.signal` aborts.
 */
export async function walkFiles(
  patterns: string[],
  opts: WalkOptions,
  ctx: Pick<ToolContext, 'signal' | 'heartbeat' | 'readDenied'>,
): Promise<WalkEntry[]> {
  const beat = throttledHeartbeat(ctx);
  const stream = fg.stream(patterns, {
    cwd: opts.cwd,
    absolute: true,
    onlyFiles: true,
    dot: true,
    stats: true,
    followSymbolicLinks: false,
    suppressErrors: true,
    ignore: [...ALWAYS_IGNORED, ...(opts.ignore ?? [])],
  }) as Readable;
  const found: WalkEntry[] = [];
  for await (const item of stream) {
    const entry = item as unknown as fg.Entry;
    if (ctx.readDenied?.(entry.path)) continue;
    found.push({
      path: entry.path,
      mtimeMs: entry.stats?.mtimeMs ?? 0,
      size: entry.stats?.size ?? 0,
    });
    beat();
    if (ctx.signal.aborted) {
      stream.destroy();
      throwIfAborted(ctx.signal, 'The file search');
    }
  }
  return found;
}

/** Sorts entries oldest first (ties by path), in place, and returns them. */
export function sortByMtimeAsc(entries: WalkEntry[]): WalkEntry[] {
  return entries.sort((a, b) => a.mtimeMs - b.mtimeMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Sorts entries newest first (ties by path), in place, and returns them. */
export function sortByMtimeDesc(entries: WalkEntry[]): WalkEntry[] {
  return entries.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
