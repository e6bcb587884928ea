import type { ParsedRequest } from './request';
import { shortHash } from './request';

/**
 * Thinking blocks must come back as the model sent them (the API checks their signatures and
 * refuses a request whose thinking was changed, dropped from a signature, or made up). The fake
 * model signs each thinking block with a hash of its text, and remembers the `redacted_thinking`
 * data it sent, so that it can refuse the same requests the API would.
 */

/** The signature the fake model gives a thinking block: `fake-sig-` + 24 hex of the text's SHA-256. */
export function thinkingSignature(thinking: string): string {
  return `fake-sig-${shortHash(thinking, 24)}`;
}

/**
 * The API's 400 message for the first thinking block of an assistant message that did not come
 * back unchanged, or undefined when all did.
 * @param issuedRedacted the `redacted_thinking` data this server sent
 */
export function checkThinkingBlocks(req: ParsedRequest, issuedRedacted: ReadonlySet<string>): string | undefined {
  for (const [i, m] of req.messages.entries()) {
    if (m.role !== 'assistant' || typeof m.content === 'string') continue;
    for (const [j, b] of m.content.entries()) {
      const where = `messages.${i}.content.${j}`;
      if (b.type === 'thinking') {
        const thinking = b['thinking'];
        const signature = b['signature'];
        if (typeof thinking !== 'string') return `${where}.thinking.thinking: Field required`;
        if (typeof signature !== 'string' || signature === '') return `${where}.thinking.signature: Field required`;
        if (signature !== thinkingSignature(thinking)) return `${where}: Invalid \`signature\` in \`thinking\` block`;
      } else if (b.type === 'redacted_thinking') {
        const data = b['data'];
        if (typeof data !== 'string' || data === '') return `${where}.redacted_thinking.data: Field required`;
        if (!issuedRedacted.has(data)) return `${where}: Invalid \`data\` in \`redacted_thinking\` block`;
      }
    }
  }
  return undefined;
}

/** The API's 400 message when `thinking.budget_tokens` is not below `max_tokens` or under 1,024. */
export function thinkingBudgetError(req: ParsedRequest): string | undefined {
  const t = req['thinking'] as { type?: unknown; budget_tokens?: unknown } | undefined;
  if (t?.type !== 'enabled') return undefined;
  const budget = t.budget_tokens;
  if (typeof budget !== 'number' || !Number.isInteger(budget)) return 'thinking.enabled.budget_tokens: Field required';
  if (budget < 1024) return 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024';
  if (budget >= req.max_tokens) {
    return '`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size';
  }
  return undefined;
}
