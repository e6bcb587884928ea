/**
 * Nested memory (the seeds' `loadedNestedMemoryPaths`): when the model reads or changes a file in
 * a subdirectory of the working directory that has its own CLAUDE.md, that memory file is added
 * beside the tool result, once per turn. What is already loaded is derived from the transcript
 * (the session's context line and this turn's lines), so nothing about it travels through
 * workflow history; only the lines that carry attachments are read (`attachmentLines`, an index
 * of the store), and only for a call that may bring memory in.
 */
import type { ContextAttachment, SettingSource } from '../../common/context';
import type { TranscriptEntry } from '../../common/transcript';
import { loadNestedMemory, repositoryRoot } from '../../config-files/memory-files';
import { resolveToolPath } from '../tools/file-state';

/** Tools whose file may bring nested memory into the context (as in Claude Code). */
export const NESTED_MEMORY_TOOLS: ReadonlySet<string> = new Set(['Read', 'Edit', 'Write']);

function attachmentsOf(e: TranscriptEntry): ContextAttachment[] {
  return (e.attachments ?? []) as unknown as ContextAttachment[];
}

/** Memory files already in the context of `turnId`: the session's instructions and this turn's nested memory. */
export function loadedMemoryPaths(entries: readonly TranscriptEntry[], turnId: string): Set<string> {
  const paths = new Set<string>();
  for (const e of entries) {
    for (const a of attachmentsOf(e)) {
      if (a.type === 'instructions') for (const f of a.files) paths.add(f.path);
      else if (a.type === 'nested_memory' && e.turnId === turnId) paths.add(a.file.path);
    }
  }
  return paths;
}

/** Memory sources of the session (from its context line); every source when it has none. */
export function sessionSettingSources(entries: readonly TranscriptEntry[]): readonly SettingSource[] {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e?.type === 'attachment' && e.settingSources) return e.settingSources;
  }
  return ['user', 'project', 'local'];
}

/**
 * The nested memory to attach to the result of a tool call that ran: for Read, Edit and Write
 * of a file below the working directory, the memory files of the directories between them that
 * are not in the context of this turn yet. `lines` gives the session's lines that carry
 * attachments (any superset of them will do); it is called only for such a call.
 */
export async function nestedMemoryAttachments(args: {
  cwd: string;
  turnId: string;
  toolName: string;
  toolInput: unknown;
  lines: () => Promise<readonly TranscriptEntry[]>;
}): Promise<{ attachments: ContextAttachment[]; warnings: string[] }> {
  const fp = (args.toolInput as { file_path?: unknown } | null)?.file_path;
  if (!NESTED_MEMORY_TOOLS.has(args.toolName) || typeof fp !== 'string' || fp === '' || fp.length > 4096) {
    return { attachments: [], warnings: [] };
  }
  const entries = await args.lines();
  const sources = new Set(sessionSettingSources(entries));
  if (!sources.has('project') && !sources.has('local')) return { attachments: [], warnings: [] };
  const loaded = await loadNestedMemory({
    filePath: resolveToolPath(args.cwd, fp),
    cwd: args.cwd,
    root: (await repositoryRoot(args.cwd)) ?? args.cwd,
    sources: { project: sources.has('project'), local: sources.has('local') },
    loaded: loadedMemoryPaths(entries, args.turnId),
  });
  return {
    attachments: loaded.files.map((file) => ({ type: 'nested_memory' as const, file })),
    warnings: loaded.warnings,
  };
}
