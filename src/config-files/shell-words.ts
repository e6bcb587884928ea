/**
 * Shell words as the permission check sees them: the text bash would pass after quote removal,
 * with every part that is only known when the command runs (`$VAR`, `$(…)`, globs, brace
 * expansion) replaced by {@link DYNAMIC}. A rule's literal text never matches {@link DYNAMIC};
 * only a wildcard can.
 */

/** Stands for text only known at run time. Cannot occur in a parsed word. */
export const DYNAMIC = '\u0000';

/** One evaluated word. */
export interface Word {
  /** Text after quote removal; run-time parts are {@link DYNAMIC}. */
  value: string;
  /** True when some part is only known at run time. */
  dynamic: boolean;
}

/** A word known before the command runs. */
export function staticWord(value: string): Word {
  return { value, dynamic: false };
}

/** Joins word parts (a concatenation). */
export function concatWords(parts: readonly Word[]): Word {
  return { value: parts.map((p) => p.value).join(''), dynamic: parts.some((p) => p.dynamic) };
}

/** A word that is entirely run-time. */
export const DYNAMIC_WORD: Word = { value: DYNAMIC, dynamic: true };

/**
 * Removes quoting from an unquoted word's text: `\x` → `x`, backslash-newline → nothing.
 * Unquoted glob characters (`*`, `?`, `[`) and brace expansion (`{a,b}`, `{1..3}`) make the
 * word dynamic: bash replaces them with file names or several words.
 */
export function unquotedWord(text: string): Word {
  let out = '';
  let dynamic = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '\\') {
      const next = text[i + 1];
      i++;
      if (next === undefined || next === '\n') continue;
      out += next;
      continue;
    }
    if (c === '*' || c === '?' || c === '[') {
      out += DYNAMIC;
      dynamic = true;
      continue;
    }
    out += c;
  }
  if (hasBraceExpansion(text)) return { value: DYNAMIC, dynamic: true };
  return { value: out, dynamic };
}

/**
 * True when unquoted shell text has a brace expansion (`{a,b}`, `{1..3}`, `{x,}`): bash turns the
 * word into several (`touch {/tmp/x,}` is `touch /tmp/x`), so its value is known only at run time.
 * Pass the unquoted parts of one whole word joined, quoted parts as {@link DYNAMIC} (quoted braces
 * do not expand, quoted text inside braces does).
 */
export function hasBraceExpansion(text: string): boolean {
  return /\{[^{}]*(,|\.\.)[^{}]*\}/.test(stripEscaped(text));
}

function stripEscaped(text: string): string {
  return text.replace(/\\./gs, '');
}

/** Content of a double-quoted string part: `\$ \` \" \\` and backslash-newline are unescaped. */
export function doubleQuotedText(text: string): string {
  return text.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === '\n' ? '' : c));
}

/** Decodes the body of an ANSI-C quoted string (`$'…'`, without `$'` and `'`), as bash does. */
export function ansiCText(body: string): string {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const n = body[++i];
    if (n === undefined) {
      out += '\\';
      break;
    }
    const simple: Record<string, string> = {
      a: '\x07',
      b: '\b',
      e: '\x1b',
      E: '\x1b',
      f: '\f',
      n: '\n',
      r: '\r',
      t: '\t',
      v: '\v',
      '\\': '\\',
      "'": "'",
      '"': '"',
      '?': '?',
    };
    if (n in simple) {
      out += simple[n];
      continue;
    }
    if (/[0-7]/.test(n)) {
      const m = /^[0-7]{1,3}/.exec(body.slice(i)) as RegExpExecArray;
      out += String.fromCharCode(parseInt(m[0], 8) & 0xff);
      i += m[0].length - 1;
      continue;
    }
    const hex = { x: 2, u: 4, U: 8 }[n];
    if (hex !== undefined) {
      const m = new RegExp(`^[0-9a-fA-F]{1,${hex}}`).exec(body.slice(i + 1));
      if (!m) {
        out += `\\${n}`;
        continue;
      }
      out += String.fromCodePoint(parseInt(m[0], 16));
      i += m[0].length;
      continue;
    }
    if (n === 'c') {
      const ch = body[i + 1];
      if (ch !== undefined) {
        out += String.fromCharCode(ch.toUpperCase().charCodeAt(0) & 0x1f);
        i++;
      }
      continue;
    }
    out += `\\${n}`;
  }
  return out;
}

/** The words of a command as one line of text (the form Bash rules are matched against). */
export function commandText(words: readonly Word[]): string {
  return words.map((w) => w.value).join(' ');
}
