/**
 * Claude Code's model aliases (`--model sonnet`, `"model": "opus"` in settings, `set_model`), and
 * the model id each one names. Source: what `claude -p --model <alias>` 2.1.328 sent to the
 * Messages API, checked against the local model server on 2026-11-30. A name that is not an alias
 * is returned as it is (a full model id, or a model only the user's endpoint knows).
 */
export const MODEL_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  sonnet: 'claude-sonnet-5-5',
  opus: 'claude-opus-5-5',
  haiku: 'claude-haiku-5-5',
});

/** The model id for `name`: an alias (`sonnet`, `opus`, `haiku`; any case) resolved, else `name` itself. */
export function resolveModelAlias(name: string): string {
  return MODEL_ALIASES[name.trim().toLowerCase()] ?? name;
}
