/** Helpers of integration tests that script the fake model and read what it was sent. */
import type { ParsedRequest, StepSpec } from '../../src/fake-model';

/** The last user message of a request: its text blocks and tool_result contents, one per line. */
export function lastUserText(req: ParsedRequest): string {
  const m = [...req.messages].reverse().find((x) => x.role === 'user');
  if (!m) return '';
  if (typeof m.content === 'string') return m.content;
  return m.content
    .map((b) => {
      const r = b as { type: string; text?: string; content?: unknown };
      if (r.type === 'text') return r.text ?? '';
      if (r.type === 'tool_result') return typeof r.content === 'string' ? r.content : JSON.stringify(r.content);
      return '';
    })
    .join('\n');
}

/**
 * Polls `check` every 100 ms until it gives a value.
 * @throws Error naming `what` after `timeoutMs`
 */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await Promise.resolve(check()).catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A model step that calls one tool. */
export const toolCall = (name: string, input: Record<string, unknown>, id: string): StepSpec => ({
  content: [{ tool_use: { id, name, input } }],
});

/** A model step that answers with text. */
export const textStep = (t: string): StepSpec => ({ content: [{ text: t }] });
