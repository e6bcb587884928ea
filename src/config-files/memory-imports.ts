/**
 * `@path` imports in memory files (CLAUDE.md): which paths a file imports, found outside code
 * (fenced or indented code blocks and inline code spans are skipped, as Claude Code does), with
 * the `marked` Markdown lexer.
 */
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { Lexer } from 'marked';
import type { Token } from 'marked';

/** `@` at the start of a line or after whitespace, then a path (a backslash escapes a space). */
const IMPORT_RE = /(?:^|\s)@((?:[^\s\\]|\\ )+)/g;

function looksLikePath(p: string): boolean {
  if (p.startsWith('@')) return false; // `@@x`, or an npm scope such as @types/node
  if (p.startsWith('./') || p.startsWith('../') || p.startsWith('~/') || p.startsWith('/')) return true;
  // A bare name must start like a file name (not punctuation such as `@)`).
  return /^[\w.-]/.test(p);
}

function collect(tokens: readonly Token[], out: string[]): void {
  for (const t of tokens) {
    if (t.type === 'code' || t.type === 'codespan' || t.type === 'html') continue;
    const children = (t as { tokens?: Token[] }).tokens;
    const items = (t as { items?: Array<{ tokens?: Token[] }> }).items;
    if (children && children.length > 0) collect(children, out);
    else if (items) for (const item of items) collect(item.tokens ?? [], out);
    else if (t.type === 'text') {
      for (const m of t.raw.matchAll(IMPORT_RE)) {
        let p = (m[1] ?? '').replace(/\\ /g, ' ');
        const hash = p.indexOf('#');
        if (hash >= 0) p = p.slice(0, hash);
        p = p.replace(/[.,;:!?)\]]+$/, ''); // sentence punctuation after the path
        if (p && looksLikePath(p) && !out.includes(p)) out.push(p);
      }
    }
  }
}

/**
 * The import paths written in a memory file, in order of appearance, each once, as written
 * (`@docs/style.md` → `docs/style.md`). A `#fragment` and trailing sentence punctuation are
 * dropped; text in code blocks and code spans is not searched.
 */
export function importPaths(content: string): string[] {
  const out: string[] = [];
  collect(Lexer.lex(content), out);
  return out;
}

/**
 * The absolute path an import refers to: `~/…` under `home`, an absolute path as is, anything
 * else relative to the directory of the importing file.
 */
export function resolveImport(importPath: string, importerDir: string, home: string = homedir()): string {
  if (importPath.startsWith('~/')) return resolve(home, importPath.slice(2));
  if (isAbsolute(importPath)) return resolve(importPath);
  return resolve(importerDir, importPath);
}
