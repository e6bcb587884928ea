/**
 * The arguments of a custom command or skill, as Claude Code 2.1.328 fills them into its body
 * (docs/reference/claude-code-commands-skills-model.md, "What the model receives"):
 * `$ARGUMENTS` is the argument text as typed; `$0`, `$1`, … and `$ARGUMENTS[0]`, … are the
 * arguments split like a shell (`"two words"` is one), counted from zero; a placeholder past the
 * last argument stays as written; a body without any placeholder gets `\n\nARGUMENTS: <text>`
 * appended when there are arguments. Pure.
 */

/** Splits argument text like a shell: whitespace separates, `"…"` and `'…'` group, `\` escapes. */
export function splitArguments(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && (text[i + 1] === '"' || text[i + 1] === '\\')) cur += text[++i];
      else cur += c;
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < text.length) {
      cur += text[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) out.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (inWord) out.push(cur);
  return out;
}

const PLACEHOLDER = /\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS|\$(\d+)/g;

/** Whether a body names its arguments anywhere (`$ARGUMENTS`, `$ARGUMENTS[n]`, `$n`). */
export function hasArgumentPlaceholder(body: string): boolean {
  return new RegExp(PLACEHOLDER.source).test(body);
}

/** A body with its arguments filled in (see the module comment). */
export function substituteArguments(body: string, args: string): string {
  if (!hasArgumentPlaceholder(body)) {
    return args.trim() === '' ? body : `${body}\n\nARGUMENTS: ${args}`;
  }
  const words = splitArguments(args);
  return body.replace(PLACEHOLDER, (whole, indexed: string | undefined, positional: string | undefined) => {
    const n = indexed ?? positional;
    if (n === undefined) return args;
    const word = words[Number(n)];
    return word === undefined ? whole : word;
  });
}
