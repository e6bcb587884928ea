/**
 * YAML frontmatter of Claude Code's markdown definitions (commands, skills, agents): a `---` line,
 * YAML, a `---` line, then the body. Parsed with the `yaml` library; a block that is not valid
 * YAML (Claude Code's files often hold `description: Fix: the thing`) falls back to one
 * `key: value` pair per line, as Claude Code reads it. Pure.
 */
import { parse } from 'yaml';

/** A markdown file split into its frontmatter and its body. */
export interface Frontmatter {
  /** The frontmatter's keys (empty when the file has none). */
  data: Record<string, unknown>;
  /** The text after the closing `---` line (the whole text when there is no frontmatter). */
  body: string;
  /** False when the file has no frontmatter block. */
  present: boolean;
}

const OPEN = /^---[ \t]*\r?\n/;
const CLOSE = /^---[ \t]*$/m;

function lineByLine(block: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const line of block.split(/\r?\n/)) {
    const m = /^([A-Za-z0-9_-]+):[ \t]*(.*)$/.exec(line);
    if (m?.[1] !== undefined) out[m[1]] = (m[2] ?? '').trim();
  }
  return out;
}

/** Splits `text` into frontmatter and body. Never throws. */
export function parseFrontmatter(text: string): Frontmatter {
  if (!OPEN.test(text)) return { data: {}, body: text, present: false };
  const rest = text.replace(OPEN, '');
  const close = CLOSE.exec(rest);
  if (!close) return { data: {}, body: text, present: false };
  const block = rest.slice(0, close.index);
  const body = rest.slice(close.index + close[0].length).replace(/^\r?\n/, '');
  let data: Record<string, unknown>;
  try {
    const parsed: unknown = parse(block);
    data =
      parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : {};
  } catch {
    data = lineByLine(block);
  }
  return { data, body, present: true };
}

/** A frontmatter value as text: a string as is, a list joined by spaces (`[topic]` is `topic`), else ''. */
export function textField(v: unknown): string {
  if (typeof v === 'string') return v.trim();
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v))
    return v
      .map((x) => textField(x))
      .filter((x) => x !== '')
      .join(' ');
  return '';
}

/** A yes/no frontmatter value (`true`, `"true"`). */
export function flagField(v: unknown): boolean {
  return v === true || (typeof v === 'string' && v.trim().toLowerCase() === 'true');
}

/**
 * A tool list (`allowed-tools`, `tools`): a YAML list, or a string of comma-separated rules whose
 * commas inside parentheses belong to the rule (`Bash(git add:*, git commit:*), Read`).
 */
export function toolListField(v: unknown): string[] {
  if (Array.isArray(v)) return v.flatMap((x) => toolListField(x));
  if (typeof v !== 'string') return [];
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const c of v) {
    if (c === '(') depth++;
    if (c === ')') depth = Math.max(0, depth - 1);
    if (c === ',' && depth === 0) {
      if (cur.trim() !== '') out.push(cur.trim());
      cur = '';
      continue;
    }
    cur += c;
  }
  if (cur.trim() !== '') out.push(cur.trim());
  return out;
}

/** The first non-empty line of a body, without a leading `#` heading mark: a description by default. */
export function firstLine(body: string): string {
  for (const line of body.split(/\r?\n/)) {
    const t = line.replace(/^#+\s*/, '').trim();
    if (t !== '') return t;
  }
  return '';
}
