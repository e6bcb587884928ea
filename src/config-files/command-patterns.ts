/**
 * Matching Bash rule patterns (`Bash(git *)`, `Bash(npm run test:*)`, `Bash(ls)`) against one
 * simple command's text, as Claude Code defines them:
 * - `prefix:*` matches `prefix` alone or followed by a space and anything (a word boundary:
 *   `npm:*` does not match `npmx`); `:*` is only allowed at the end;
 * - `*` anywhere else matches any characters; a single trailing ` *` also matches nothing
 *   (`git *` matches `git`);
 * - any other pattern must equal the command.
 *
 * Command text may hold {@link DYNAMIC} for parts known only at run time. For an allow rule such a
 * part must fall inside the pattern's trailing wildcard (so `git *` allows `git log $REF`, but
 * `git * main` does not allow `git $X main`); for a deny rule the question is whether some value
 * could make the command match, answered exactly (two wildcard patterns intersect).
 */
import { DYNAMIC } from './shell-words';

interface Compiled {
  /** Literal pieces between wildcards. */
  pieces: string[];
  /** True when the pattern ends with a wildcard that may also match nothing (after a space). */
  trailing: 'none' | 'any' | 'optionalWord';
}

function compile(pattern: string): Compiled {
  const p = pattern.trim();
  if (p.endsWith(':*')) return { pieces: p.slice(0, -2).split('*'), trailing: 'optionalWord' };
  const pieces = p.split('*');
  if (pieces.length === 1) return { pieces, trailing: 'none' };
  const last = pieces[pieces.length - 1];
  if (last === '') {
    pieces.pop();
    // `git *`: the space before a single trailing star is optional.
    if (pieces.length === 1 && (pieces[0] as string).endsWith(' ')) {
      return { pieces: [(pieces[0] as string).slice(0, -1)], trailing: 'optionalWord' };
    }
    return { pieces, trailing: 'any' };
  }
  return { pieces, trailing: 'none' };
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function allowRegex(c: Compiled): RegExp {
  const body = c.pieces.map(escape).join(`[^${DYNAMIC}]*`);
  const tail = c.trailing === 'any' ? '[\\s\\S]*' : c.trailing === 'optionalWord' ? '(?: [\\s\\S]*)?' : '';
  return new RegExp(`^${body}${tail}$`);
}

/**
 * True when the pattern matches the command for every value of its run-time parts (the test for
 * allow rules, and for a deny rule that certainly applies).
 */
export function matchesCertainly(command: string, pattern: string): boolean {
  return allowRegex(compile(pattern)).test(command.trim());
}

/** Token streams for the intersection test: a literal character or a wildcard. */
type Token = string | null;

function tokens(c: Compiled): Token[] {
  const out: Token[] = [];
  c.pieces.forEach((piece, i) => {
    if (i > 0) out.push(null);
    out.push(...piece);
  });
  if (c.trailing === 'any') out.push(null);
  return out;
}

function commandTokens(command: string): Token[] {
  return [...command.trim()].map((ch) => (ch === DYNAMIC ? null : ch));
}

/** Whether two wildcard patterns (null = any string) can match a common string. */
function intersects(a: readonly Token[], b: readonly Token[]): boolean {
  const seen = new Set<number>();
  const w = b.length + 1;
  const stack: Array<[number, number]> = [[0, 0]];
  while (stack.length > 0) {
    const [i, j] = stack.pop() as [number, number];
    const key = i * w + j;
    if (seen.has(key)) continue;
    seen.add(key);
    if (i === a.length && j === b.length) return true;
    const x = a[i];
    const y = b[j];
    if (i < a.length && x === null) {
      stack.push([i + 1, j]);
      if (j < b.length) stack.push([i, j + 1]);
    }
    if (j < b.length && y === null) {
      stack.push([i, j + 1]);
      if (i < a.length) stack.push([i + 1, j]);
    }
    if (i < a.length && j < b.length && x !== null && y !== null && x === y) stack.push([i + 1, j + 1]);
  }
  return false;
}

/** True when some value of the command's run-time parts could make the pattern match it. */
export function matchesPossibly(command: string, pattern: string): boolean {
  if (matchesCertainly(command, pattern)) return true;
  const c = compile(pattern);
  const cmd = commandTokens(command);
  if (c.trailing === 'optionalWord') {
    const base = tokens({ pieces: c.pieces, trailing: 'none' });
    return intersects(base, cmd) || intersects([...base, ' ', null], cmd);
  }
  return intersects(tokens(c), cmd);
}

/**
 * Checks a Bash rule pattern's syntax.
 * @returns an error message, or null when the pattern is valid.
 */
export function bashPatternError(pattern: string): string | null {
  const p = pattern.trim();
  const colon = p.indexOf(':*');
  if (colon !== -1 && colon !== p.length - 2) return 'the :* wildcard must be at the end of the pattern';
  if (p === ':*') return 'the pattern has no command before :*';
  if (p.includes(DYNAMIC)) return 'the pattern contains a NUL character';
  return null;
}
