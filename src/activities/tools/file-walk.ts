/**
 * File enumeration shared by Glob and Grep: fast-glob over a directory, files only, with
 * modification times for the tools' orderings. What is left out follows ripgrep, which Claude
 * Code's tools run: ignore files on request ({@link WalkOptions.ignoreFiles}, by
 * src/activities/tools/ignore-rules.ts), hidden files unless asked to leave them out, and names
 * the caller never wants (Grep: version-control directories). Ignored directories are not entered.
 */
import type { Dirent } from 'node:fs';
import { promises as fsp, readdir } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import fg from 'fast-glob';
import { IgnoreRules } from './ignore-rules';
import { throttledHeartbeat, throwIfAborted } from './progress';
import type { ToolContext } from './types';

/** Version-control directories Claude Code's Grep never searches (`--glob !<name>` each). */
export const VCS_DIRECTORY_NAMES: readonly string[] = ['.git', '.svn', '.hg', '.bzr', '.jj', '.sl'];

/** A file found by {@link walkFiles}. */
export interface WalkEntry {
  /** Absolute path. */
  path: string;
  mtimeMs: number;
  size: number;
}

/** Options of {@link walkFiles}. */
export interface WalkOptions {
  /** Directory the patterns are relative to (the search root: never left out itself). */
  cwd: string;
  /** Extra ignore patterns (fast-glob syntax). */
  ignore?: string[];
  /** Leave out what `.gitignore`, `.ignore` and `.rgignore` files ignore, as ripgrep does. @default false */
  ignoreFiles?: boolean;
  /** List hidden files and enter hidden directories. @default true */
  hidden?: boolean;
  /** Names of files and directories left out at any depth below `cwd`. @default none */
  skipNames?: readonly string[];
}

type ReaddirCallback = (err: NodeJS.ErrnoException | null, entries: Dirent[]) => void;

/**
 * Lists the files matching `patterns` under `opts.cwd` (symlinks not followed). Heartbeats while
 * walking and stops with an error when `ctx.signal` aborts.
 */
export async function walkFiles(
  patterns: string[],
  opts: WalkOptions,
  ctx: Pick<ToolContext, 'signal' | 'heartbeat' | 'readDenied'>,
): Promise<WalkEntry[]> {
  const beat = throttledHeartbeat(ctx);
  const rules = opts.ignoreFiles ? await IgnoreRules.load(opts.cwd) : null;
  const skip = new Set(opts.skipNames ?? []);
  const leftOut = (dir: string, e: Dirent): boolean =>
    skip.has(e.name) || (rules !== null && rules.ignored(join(dir, e.name), e.isDirectory()));
  // Entries are filtered as each directory is listed, so an ignored directory is never entered.
  const filteredReaddir = (path: string, _options: unknown, callback: ReaddirCallback): void => {
    const dir = resolve(path);
    readdir(dir, { withFileTypes: true }, (err, entries) => {
      if (err) return callback(err, []);
      if (!rules && skip.size === 0) return callback(null, entries);
      (rules ? rules.enter(dir) : Promise.resolve()).then(
        () =>
          callback(
            null,
            entries.filter((e) => !leftOut(dir, e)),
          ),
        (e: NodeJS.ErrnoException) => callback(e, []),
      );
    });
  };
  const stream = fg.stream(patterns, {
    cwd: opts.cwd,
    absolute: true,
    onlyFiles: true,
    dot: opts.hidden ?? true,
    followSymbolicLinks: false,
    suppressErrors: true,
    ignore: opts.ignore ?? [],
    fs: { readdir: filteredReaddir as unknown as typeof readdir },
  }) as Readable;
  // A pattern without wildcards names its file directly, past the filtered listings.
  const direct = patterns.some((p) => !fg.isDynamicPattern(p));
  const found: WalkEntry[] = [];
  for await (const item of stream) {
    const path = item as string;
    if (ctx.readDenied?.(path)) continue;
    if (direct && rules && (await rules.ignoredOnTheWay(path, false))) continue;
    if (
      direct &&
      skip.size > 0 &&
      relative(opts.cwd, path)
        .split(sep)
        .some((n) => skip.has(n))
    )
      continue;
    const st = await fsp.lstat(path).catch(() => null);
    if (!st) continue;
    found.push({ path, mtimeMs: st.mtimeMs, size: st.size });
    beat();
    if (ctx.signal.aborted) {
      stream.destroy();
      throwIfAborted(ctx.signal, 'The file search');
    }
  }
  return found;
}

/** A glob without `/` matches a file name at any depth, as ripgrep's `--glob` does. */
export function anyDepth(pattern: string): string {
  return pattern.includes('/') ? pattern : `**/${pattern}`;
}

/** An environment switch as Claude Code reads one: `1`, `true`, `yes` or `on` (any case) is on. */
export function envTruthy(value: string | undefined): boolean {
  return value !== undefined && ['1', 'true', 'yes', 'on'].includes(value.trim().toLowerCase());
}

/** Sorts entries oldest first (ties by path), in place, and returns them. */
export function sortByMtimeAsc(entries: WalkEntry[]): WalkEntry[] {
  return entries.sort((a, b) => a.mtimeMs - b.mtimeMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Sorts entries newest first (ties by path), in place, and returns them. */
export function sortByMtimeDesc(entries: WalkEntry[]): WalkEntry[] {
  return entries.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
