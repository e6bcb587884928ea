/**
 * The bash parser: tree-sitter's bash grammar (`tree-sitter-bash`, the grammar GitHub and editors
 * use) run by `web-tree-sitter` (WebAssembly, no native build). Loaded once per process, on first
 * use, in the activity worker only: it never enters the workflow bundle.
 */
import { readFile } from 'node:fs/promises';
import { Language, Parser } from 'web-tree-sitter';
import type { Node } from 'web-tree-sitter';

export type { Node as SyntaxNode } from 'web-tree-sitter';

let parser: Promise<Parser> | undefined;

async function load(): Promise<Parser> {
  await Parser.init();
  // Bytes, not a path: the library's own file loading uses a dynamic import that some hosts (jest) lack.
  const language = await Language.load(await readFile(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm')));
  const p = new Parser();
  p.setLanguage(language);
  return p;
}

/** Longest command parsed, characters; longer commands are not analyzed (they cannot be proven harmless). */
export const MAX_PARSED_COMMAND_CHARS = 100_000;

/**
 * Parses a bash script. Never throws for bad syntax: tree-sitter recovers and marks the bad parts
 * with `ERROR` or missing nodes, which the analysis treats as "cannot be checked".
 * @returns the root `program` node, or null when the script is longer than {@link MAX_PARSED_COMMAND_CHARS}
 *   or the parser gave up.
 */
export async function parseBash(source: string): Promise<Node | null> {
  if (source.length > MAX_PARSED_COMMAND_CHARS) return null;
  parser ??= load();
  const tree = (await parser).parse(source);
  return tree?.rootNode ?? null;
}
