/**
 * The `@path` references of a command or skill: each file that exists in the working directories
 * is read (as the Read tool shows it: numbered lines) and attached before the text, which keeps
 * the reference as written; a missing file is skipped, as in Claude Code 2.1.328.
 */
import * as path from 'node:path';
import type { ContextAttachment } from '../../common/context';
import { ReadTool } from '../tools/read';
import { decideToolPermission } from '../permissions/decide';
import type { ToolPermission } from '../../common/tools';

const REF = /(?:^|\s)@([^\s`'"]+)/g;

/** The paths `@` names in a body (trailing punctuation left out), each once, in order. */
export function fileRefsOf(body: string): string[] {
  const out: string[] = [];
  for (const m of body.matchAll(REF)) {
    const p = (m[1] ?? '').replace(/[.,;:!?)\]]+$/, '');
    if (p !== '' && !out.includes(p)) out.push(p);
  }
  return out;
}

/**
 * Reads the files `@` names, as `file_read` attachments. Files that do not exist, cannot be read
 * or that the Read permission denies (outside the working directories without a rule) are left out.
 */
export async function readFileRefs(
  body: string,
  ctx: { cwd: string; style: 'command' | 'skill'; readPermission: ToolPermission; signal: AbortSignal },
): Promise<ContextAttachment[]> {
  const out: ContextAttachment[] = [];
  for (const ref of fileRefsOf(body)) {
    const abs = path.resolve(ctx.cwd, ref.startsWith('~/') ? path.join(process.env['HOME'] ?? '', ref.slice(2)) : ref);
    const p = ctx.readPermission;
    if (p.behavior === 'deny') continue;
    if (p.behavior === 'check') {
      const d = await decideToolPermission({
        toolName: 'Read',
        input: { file_path: abs },
        cwd: ctx.cwd,
        mode: p.mode,
        rules: p.rules,
        ...(p.additionalDirectories ? { additionalDirectories: p.additionalDirectories } : {}),
      });
      if (d.behavior !== 'allow') continue;
    }
    const r = await ReadTool.run(
      { file_path: abs },
      { cwd: ctx.cwd, signal: ctx.signal, readState: () => undefined, heartbeat: () => undefined },
    );
    if (r.isError || typeof r.content !== 'string') continue;
    out.push({ type: 'file_read', path: abs, content: r.content, style: ctx.style });
  }
  return out;
}
