/**
 * A reference to content kept in the transcript store (`TranscriptStore.putContent`), for the
 * workflow/activity boundary: workflow history carries the ref (a few dozen bytes), never the
 * content (DESIGN.md rule 1).
 */
export interface ContentRef {
  /** Content key in the session's store (`prompt/<sha256>` for a prompt). */
  key: string;
  /** Size of the content, bytes (UTF-8 for text). */
  bytes: number;
  /** SHA-256 of the content, lowercase hex. */
  sha256: string;
}

/** Content-key prefix of prompts (`prompt/<sha256>`). */
export const PROMPT_KEY_PREFIX = 'prompt/';

/** Content-key prefix of prompts given as content blocks (`prompt-blocks/<sha256>`, a JSON array). */
export const PROMPT_BLOCKS_KEY_PREFIX = 'prompt-blocks/';

/** True when `v` has the shape of a {@link ContentRef} (checked where refs enter a workflow). */
export function isContentRef(v: unknown): v is ContentRef {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return (
    typeof r['key'] === 'string' &&
    r['key'].length > 0 &&
    typeof r['bytes'] === 'number' &&
    Number.isInteger(r['bytes']) &&
    r['bytes'] >= 0 &&
    typeof r['sha256'] === 'string' &&
    /^[0-9a-f]{64}$/.test(r['sha256'])
  );
}
