/**
 * Prompt-cache reuse: the share of input tokens a prefix-caching server serves from its cache over
 * a 20-call session, as the fake model computes it from the `cache_control` breakpoints the runner
 * sends (tools + system, and the last message block of each request). The session is a realistic
 * one: a git repository with `CLAUDE.md` files (one nested, read during the session), a
 * `.claude/settings.json` with permission rules, the user's own memory and an appended system
 * prompt; its context (memory, git status, date) must not break the cached prefix.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applySettings } from '../src/cli/settings-options';
import type { Responder } from '../src/fake-model';
import { benchTurnOptions, makeRepo, progress, startRunner } from './env';
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
    // Step 1 reads a file in a subdirectory with its own CLAUDE.md (nested memory joins the context).
    const tool =
      ctx.step === 1
        ? { name: 'Read', input: { file_path: '{{cwd}}/src/lib.md' } }
        : ctx.step % 2 === 0
          ? { name: 'Read', input: { file_path: '{{cwd}}/notes.md' } }
          : { name: 'Bash', input: { command: `echo step ${ctx.step} && ls` } };
    return { content: [{ text: `Step ${ctx.step}: next I will use ${tool.name}.` }, { tool_use: tool }] };
  };
  const userConfigDir = mkdtempSync(join(tmpdir(), 'dar-bench-claude-'));
  writeFileSync(join(userConfigDir, 'CLAUDE.md'), 'I prefer small commits and short answers.\n');
  const runner = await startRunner({ address: opts.address, fake: { responder }, userConfigDir });
  const lines = (n: number, what: string): string =>
    Array.from({ length: n }, (_, i) => `- ${what} ${i}: ${'lorem ipsum dolor sit amet '.repeat(2)}`).join('\n');
  const repo = makeRepo({
    'notes.md': lines(80, 'note'),
    'CLAUDE.md': `# Conventions\n${lines(30, 'rule')}\n@docs/testing.md\n`,
    'docs/testing.md': `# Testing\n${lines(10, 'test rule')}\n`,
    'src/CLAUDE.md': `# src/\n${lines(8, 'src rule')}\n`,
    'src/lib.md': lines(20, 'lib'),
    '.claude/settings.json': JSON.stringify({
      permissions: { allow: ['Bash(echo *)', 'Bash(ls)', 'Read'], deny: ['Read(./secrets/**)', 'Bash(rm *)'] },
    }),
  });
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
  const options = applySettings(
    { ...benchTurnOptions(), appendSystemPrompt: `Team policy:\n${lines(12, 'policy')}` },
    {},
    { cwd: repo, dataDir: runner.dataDir },
  );
  try {
    progress(`prompt cache: a session of ${opts.calls} model calls (CLAUDE.md, settings, appended system prompt)`);
    const { outcome } = await runner.runTurn(repo, 'work through the notes', options);
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
      `Prompt-cache reuse over a ${opts.calls}-call session with CLAUDE.md, settings and an appended system prompt (fake server's prefix-cache simulation, tokens ≈ chars/4)`,
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
