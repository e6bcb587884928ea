/**
 * `analyzeScript`: parse a Bash tool command and list everything it can run or open, looking into
 * wrappers and into the strings it runs as shell code (`eval`, `bash -c`, `trap`).
 */
import type { Complexity, FoundRedirect } from './analyze';
import { ScriptWalker } from './analyze';
import type { CheckedCommand } from './commands';
import { unwrapCommand } from './commands';
import { parseBash } from './parse';

export type { CheckedCommand, CommandKind } from './commands';
export type { Complexity, FoundRedirect } from './analyze';

/** Everything a script can run or open, as far as can be known before it runs. */
export interface ScriptAnalysis {
  commands: CheckedCommand[];
  redirects: FoundRedirect[];
  /** What cannot be checked (parse errors, run-time command names, arithmetic on variables…). */
  tooComplex: Complexity[];
  /** Variables assigned outside a command prefix (they reach later commands if exported). */
  assigned: Array<{ name: string; offset: number }>;
}

/** Depth of `eval`/`bash -c` strings looked into. */
const MAX_NESTING = 4;

/** Analyzes a Bash tool command. */
export async function analyzeScript(source: string): Promise<ScriptAnalysis> {
  const out: ScriptAnalysis = { commands: [], redirects: [], tooComplex: [], assigned: [] };
  // bash removes a backslash-newline before splitting words (`to\<newline>uch` is `touch`); the
  // grammar reads it as a space. Where it joins two word parts the two readings differ.
  const joined = /(^|[^\\])(\\\\)*\\\n/g;
  for (let m = joined.exec(source); m; m = joined.exec(source)) {
    const before = source[m.index + m[0].length - 3] ?? ' ';
    const after = source[m.index + m[0].length] ?? ' ';
    if (!/\s/.test(before) && !/\s/.test(after)) {
      out.tooComplex.push({ reason: 'a line continuation joins two parts of a word', offset: m.index });
      break;
    }
  }
  await analyzeInto(source, 0, 0, out);
  return out;
}

async function analyzeInto(source: string, offset: number, depth: number, out: ScriptAnalysis): Promise<void> {
  if (depth > MAX_NESTING) {
    out.tooComplex.push({ reason: 'shell code nested too deeply to check', offset });
    return;
  }
  const root = await parseBash(source);
  if (!root) {
    out.tooComplex.push({ reason: 'the command is too long to check', offset });
    return;
  }
  // Nested scripts keep the position of the command that runs them (for ordering against `cd`).
  const walker = new ScriptWalker(depth === 0 ? 0 : offset);
  const facts = walker.program(root);
  root.tree.delete();
  out.redirects.push(...facts.redirects);
  out.tooComplex.push(...facts.tooComplex);
  out.assigned.push(...facts.assigned);
  const nested: Array<{ source: string; offset: number }> = [];
  for (const found of facts.commands) {
    const u = unwrapCommand(found, facts.functions);
    out.commands.push(...u.commands);
    out.tooComplex.push(...u.tooComplex);
    nested.push(...u.nested);
  }
  for (const n of nested) await analyzeInto(n.source, n.offset, depth + 1, out);
}
