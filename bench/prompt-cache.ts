/**
 * Prompt-cache reuse: the share of input tokens a prefix-caching server serves from its cache over
 * a 20-call session, as the fake model computes it from the `cache_control` breakpoints the runner
 * sends (tools + system, and the last message block of each request).
 */
import type { Responder } from '../src/fake-model';
import { makeRepo, progress, startRunner } from './env';
import type { Measurement } from './stats';
import { renderTable, round } from './stats';

/** Options of {@link measurePromptCache}. */
export interface PromptCacheOptions {
  address: string;
  /** Model calls in the session (the last one answers without a tool). */
  calls: number;
}

export async function measurePromptCache(opts: PromptCacheOptions): Promise<Measurement> {
  // A realistic mix: reads of a 4 KB file, short commands; the model says a sentence each step.
  const responder: Responder = (_req, ctx) => {
    if (ctx.step >= opts.calls - 1) return { content: [{ text: 'All steps done.' }] };
    const tool =
      ctx.step % 2 === 0
        ? { name: 'Read', input: { file_path: '{{cwd}}/notes.md' } }
        : { name: 'Bash', input: { command: `echo step ${ctx.step} && ls` } };
    return { content: [{ text: `Step ${ctx.step}: next I will use ${tool.name}.` }, { tool_use: tool }] };
  };
  const runner = await startRunner({ address: opts.address, fake: { responder } });
  const notes = Array.from({ length: 80 }, (_, i) => `- note ${i}: ${'lorem ipsum dolor sit amet '.repeat(2)}`).join(
    '\n',
  );
  try {
    progress(`prompt cache: a session of ${opts.calls} model calls`);
    const { outcome } = await runner.runTurn(makeRepo({ 'notes.md': notes }), 'work through the notes');
    if (outcome.subtype !== 'success' || outcome.numTurns !== opts.calls) {
      throw new Error(`prompt cache: the turn ended with ${outcome.subtype} after ${outcome.numTurns} calls`);
    }
    const stats = runner.fake.cacheStats();
    const calls = runner.fake.completedCalls();
    const last = calls[calls.length - 1];
    const lastShare = last
      ? last.cacheReadTokens / (last.inputTokens + last.cacheReadTokens + last.cacheCreationTokens)
      : 0;
    const total = stats.inputTokens + stats.cacheReadTokens + stats.cacheCreationTokens;
    const table = renderTable(
      `Prompt-cache reuse over a ${opts.calls}-call session (fake server's prefix-cache simulation, tokens ≈ chars/4)`,
      ['figure', 'value'],
      [
        ['input tokens (all calls)', String(total)],
        ['  read from cache', String(stats.cacheReadTokens)],
        ['  written to cache', String(stats.cacheCreationTokens)],
        ['  uncached', String(stats.inputTokens)],
        ['share read from cache', `${(stats.readShare * 100).toFixed(1)} %`],
        ['share read from cache, last call', `${(lastShare * 100).toFixed(1)} %`],
      ],
    );
    return {
      name: 'promptCache',
      table,
      json: {
        calls: opts.calls,
        inputTokensTotal: total,
        cacheReadTokens: stats.cacheReadTokens,
        cacheCreationTokens: stats.cacheCreationTokens,
        uncachedInputTokens: stats.inputTokens,
        readShare: round(stats.readShare, 4),
        lastCallReadShare: round(lastShare, 4),
      },
    };
  } finally {
    await runner.close();
  }
}
