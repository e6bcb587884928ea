import * as path from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import type { ContextAttachment } from '../../common/context';
import type { TranscriptEntry } from '../../common/transcript';
import { CLEARED_TOOL_RESULT_TEXT } from '../../engine/microcompact';
import { renderAttachment, renderDeferredTools, renderEnvironmentUpdate } from '../context/render';
import { recordedShellCwd } from '../shell-cwd';
import { EXIT_PLAN_MODE_TOOL } from '../../common/tools';
import { EXITED_PLAN_MODE_TEXT } from '../context/plan-mode';
import { PLAN_APPROVED_TEXT } from '../tools/exit-plan-mode';

type MessageParam = Anthropic.MessageParam;
type Block = Anthropic.ContentBlockParam;

const CACHE = { type: 'ephemeral' } as const;

/**
 * ExitPlanMode's input as Claude Code 2.1.328 sends it back to the model: without the `plan` the
 * model wrote (the tool reads the plan from the plan file).
 */
function withoutPlan(input: unknown): unknown {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return input ?? {};
  const rest: Record<string, unknown> = { ...(input as Record<string, unknown>) };
  delete rest['plan'];
  return rest;
}

/** Assistant content fields the API does not accept back (kept in the store only). */
function toParamBlock(block: Record<string, unknown>): Block {
  if (block['type'] === 'tool_use') {
    const { id, name, input } = block as { id: string; name: string; input: unknown };
    return {
      type: 'tool_use',
      id,
      name,
      input: name === EXIT_PLAN_MODE_TOOL ? withoutPlan(input) : (input ?? {}),
    } as Block;
  }
  if (block['type'] === 'text') {
    return { type: 'text', text: String(block['text'] ?? '') };
  }
  const copy = { ...block };
  delete copy['citations'];
  return copy as unknown as Block;
}

function blocksOf(content: string | Array<Record<string, unknown>>): Block[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.map(toParamBlock);
}

type Role = 'user' | 'assistant' | 'system';
/** Order of blocks in a user message: tool results, then context the runner attached, then the rest. */
const RANK = { tool_result: 0, context: 1, other: 2 } as const;
type Ranked = { block: Block; rank: number };
interface Draft {
  role: Role;
  blocks: Ranked[];
  /** A message of its own: nothing merges into it. */
  sealed?: boolean;
  /**
   * The environment's `system` message: it goes after the first user message, so user content
   * that follows it before any answer (a later turn's prompt after a command that stopped before
   * the model) joins the user message before it, as Claude Code sends them.
   */
  floating?: boolean;
}

/** The hook events whose output for the model is a `system` paragraph (Claude Code 2.1.328). */
const SYSTEM_HOOK_EVENTS: ReadonlySet<string> = new Set(['UserPromptSubmit']);

/** Where the date closes the environment's text: paragraphs of the first turn go before it. */
const DATE_LINE = "\n\nToday's date is ";

/** What a request shows besides the chain. */
export interface BuildOptions {
  /** Tools this request defers (named in the environment's message, for ToolSearch). */
  deferredTools?: readonly string[];
  /** Ids of the tool_use blocks whose results microcompact cleared (sent as its placeholder). */
  cleared?: ReadonlySet<string>;
  /** The agent types listed in the environment's message (`agentListing` of src/common/agents.ts). */
  agentListing?: string;
  /** The agent types listed in a `system` message after the first tool results (a subagent's listing). */
  agentListingAfterResults?: string;
  /** Tool results the tool-result budget replaced: tool_use id → the text sent (`./tool-result-budget.ts`). */
  replaced?: ReadonlyMap<string, string>;
}

/** Text after a ToolSearch result that loaded tools (Claude Code 2.1.328). */
export const TOOL_LOADED_TEXT = 'Tool loaded.';

/** Answers written without a model call (a command that stopped before it): never sent to the model. */
export const SYNTHETIC_MODEL = '<synthetic>';

function loadsTools(block: Block): boolean {
  if (block.type !== 'tool_result') return false;
  const c = (block as { content?: unknown }).content;
  return Array.isArray(c) && c.some((b) => (b as { type?: string }).type === 'tool_reference');
}

/**
 * Turns a transcript chain (oldest first) into Messages API `messages`:
 * - consecutive lines of the same role merge into one message (tool results of one batch become
 *   one user message, as the API requires); empty text blocks are dropped;
 * - context stored in the transcript (`attachment` lines, `attachments` of tool-result lines) is
 *   rendered as Claude Code does: memory files and git status as text blocks ahead of the
 *   prompt, nested memory after the tool results, the environment as a `system` message (with the
 *   deferred tools and the skills the model may load); a nested memory file is rendered once per turn
 *   (the first line carrying it wins);
 * - a command's prompt line (`/fix-ci x`) is sent as the line that replaced it (`replacesPrompt`:
 *   the command block and its expanded body), in its place; answers of commands that stopped
 *   before any model call (`<synthetic>`) are not sent;
 * - when a Bash call leaves the shell in another directory than the one before (`toolRun.shellCwd`,
 *   relative to the environment's working directory), an `# Environment update` system message
 *   follows that batch's tool results, as in Claude Code;
 * - in a user message, tool_result blocks come first, then attached context, then the rest; a
 *   ToolSearch result that loaded tools is followed by `Tool loaded.`;
 * - a tool_result whose tool_use id is in `opts.cleared` (microcompact, `./microcompact.ts`) is
 *   sent as Claude Code's `[Old tool result content cleared]`, keeping its `is_error`; one in
 *   `opts.replaced` (the tool-result budget) as its recorded `<persisted-output>` reference;
 * - a subagent's agent-type listing (`opts.agentListingAfterResults`) is a `system` message right
 *   after its first tool results, as Claude Code 2.1.328 sends it;
 * - the last block of the last message gets a `cache_control` breakpoint so that the next call
 *   of the session reads this whole prefix from the prompt cache.
 */
export function buildMessages(chain: readonly TranscriptEntry[], opts: BuildOptions = {}): MessageParam[] {
  const cleared = opts.cleared ?? new Set<string>();
  const out: Draft[] = [];
  const nestedSeen = new Set<string>();
  const shell = new ShellMoves();
  const replacedBy = new Map<string, TranscriptEntry>();
  for (const e of chain) if (e.replacesPrompt !== undefined) replacedBy.set(e.replacesPrompt, e);
  const skills = skillListing(chain);
  let deferredShown = false;
  const push = (role: Role, blocks: Ranked[], sealed = false, floating = false): void => {
    if (blocks.length === 0) return;
    if (role !== 'user') flushMove();
    const last = out[out.length - 1];
    const before = out[out.length - 2];
    if (role === 'user' && !sealed && last?.floating && before?.role === 'user' && !before.sealed) {
      before.blocks.push(...blocks);
      return;
    }
    if (last?.floating && role !== 'system') last.floating = false;
    if (!sealed && !floating && last && last.role === role && !last.sealed) last.blocks.push(...blocks);
    else out.push({ role, blocks, ...(sealed ? { sealed } : {}), ...(floating ? { floating } : {}) });
  };
  /** A hook's output for the model: a paragraph of the first turn's environment message, else a system message. */
  const pushSystemParagraph = (text: string): void => {
    const last = out[out.length - 1];
    const env = last?.floating ? last.blocks[last.blocks.length - 1] : undefined;
    const envText = env?.block.type === 'text' ? (env.block as { text: string }).text : undefined;
    const at = envText?.lastIndexOf(DATE_LINE) ?? -1;
    if (env && envText !== undefined && at >= 0) {
      env.block = { type: 'text', text: `${envText.slice(0, at)}\n\n${text}${envText.slice(at)}` };
      return;
    }
    push('system', [{ block: { type: 'text', text }, rank: RANK.context }]);
  };
  /**
   * SubagentStart context: the start of the agent's environment message, as 2.1.328 sends it
   * (recording agent-subagent-hooks). False when the environment is not the last message.
   */
  const prependToEnvironment = (entry: TranscriptEntry): boolean => {
    const last = out[out.length - 1];
    const env = last?.floating ? last.blocks[last.blocks.length - 1] : undefined;
    const envText = env?.block.type === 'text' ? (env.block as { text: string }).text : undefined;
    if (!env || envText === undefined) return false;
    const texts = blocksOf(entry.message?.content as string | Array<Record<string, unknown>>)
      .filter((b) => b.type === 'text')
      .map((b) => (b as { text: string }).text);
    env.block = { type: 'text', text: [...texts, envText].join('\n\n') };
    return true;
  };
  // Declared as a function so that `push` can call it (it pushes a system message itself).
  function flushMove(): void {
    const text = shell.takeUpdate();
    if (text !== undefined) push('system', [{ block: { type: 'text', text }, rank: RANK.context }]);
  }
  const attach = (entry: TranscriptEntry): void => {
    for (const raw of entry.attachments ?? []) {
      const a = raw as unknown as ContextAttachment;
      if (a.type === 'nested_memory') {
        const key = `${entry.turnId ?? ''}\0${a.file.path}`;
        if (nestedSeen.has(key)) continue;
        nestedSeen.add(key);
      }
      if (a.type === 'environment') {
        shell.root = a.environment.workingDirectory;
        deferredShown ||= (opts.deferredTools?.length ?? 0) > 0;
      }
      const extras = {
        ...(skills ? { skills } : {}),
        ...(opts.deferredTools ? { deferredTools: opts.deferredTools } : {}),
        ...(opts.agentListing ? { agentListing: opts.agentListing } : {}),
      };
      for (const r of renderAttachment(a, extras)) {
        const block = { block: { type: 'text', text: r.text } as Block, rank: RANK.context };
        push(r.role, [block], r.standalone === true, a.type === 'environment');
      }
    }
  };
  const pushEntry = (entry: TranscriptEntry): void => {
    if (!entry.message || (entry.type !== 'user' && entry.type !== 'assistant')) return;
    if (entry.type === 'assistant' && entry.message.model === SYNTHETIC_MODEL) return;
    if (entry.isMeta && SYSTEM_HOOK_EVENTS.has(String(entry.hookEvent ?? ''))) {
      for (const b of blocksOf(entry.message.content as string | Array<Record<string, unknown>>)) {
        if (b.type === 'text') pushSystemParagraph((b as { text: string }).text);
      }
      return;
    }
    if (entry.isMeta && entry.hookEvent === 'SubagentStart' && prependToEnvironment(entry)) return;
    if (entry.isMeta && entry.hookEvent === 'SubagentStop' && Array.isArray(entry.message.content)) {
      // A block: the feedback as a user message, the blocking error as a system message (2.1.328).
      const [feedback, ...rest] = blocksOf(entry.message.content as Array<Record<string, unknown>>);
      if (feedback && rest.length > 0) {
        push('user', [{ block: feedback, rank: RANK.other }]);
        push(
          'system',
          rest.map((block) => ({ block, rank: RANK.context })),
        );
        return;
      }
    }
    const blocks = blocksOf(entry.message.content as string | Array<Record<string, unknown>>)
      .filter((b) => !(b.type === 'text' && (b as { text: string }).text === ''))
      .map((b) => {
        if (b.type !== 'tool_result') return b;
        if (cleared.has(b.tool_use_id)) return { ...b, content: CLEARED_TOOL_RESULT_TEXT };
        const replacement = opts.replaced?.get(b.tool_use_id);
        return replacement === undefined ? b : { ...b, content: replacement };
      })
      .flatMap((block) => {
        const ranked = { block, rank: block.type === 'tool_result' ? RANK.tool_result : RANK.other };
        return loadsTools(block)
          ? [ranked, { block: { type: 'text', text: TOOL_LOADED_TEXT } as Block, rank: RANK.other }]
          : [ranked];
      });
    push(isHookSystemContext(entry) ? 'system' : entry.message.role, blocks);
    for (const { block: b } of blocks) {
      if (entry.type === 'assistant' && b.type === 'tool_use' && b.name === EXIT_PLAN_MODE_TOOL) exitPlanUses.add(b.id);
      // An approved ExitPlanMode is followed by Claude Code 2.1.328's system message saying so.
      if (b.type === 'tool_result' && exitPlanUses.has(b.tool_use_id) && b.content === PLAN_APPROVED_TEXT) {
        push('system', [{ block: { type: 'text', text: EXITED_PLAN_MODE_TEXT }, rank: RANK.context }]);
      }
    }
  };
  const exitPlanUses = new Set<string>();
  for (const entry of chain) {
    if (entry.type === 'attachment') {
      attach(entry);
      continue;
    }
    if (entry.replacesPrompt !== undefined) continue; // sent in its prompt's place
    const replacement = replacedBy.get(entry.uuid);
    if (replacement) {
      attach(replacement);
      pushEntry(replacement);
      attach(entry);
      shell.record(entry);
      continue;
    }
    pushEntry(entry);
    attach(entry);
    shell.record(entry);
  }
  flushMove();
  const messages = out.map((d) => ({
    role: d.role,
    content: (d.role === 'user' ? [...d.blocks].sort((x, y) => x.rank - y.rank) : d.blocks).map((r) => r.block),
  }));
  if (!deferredShown && opts.deferredTools?.length) {
    // A session without an environment line (recorded before it existed): the names still go out.
    const at = messages.findIndex((m) => m.role === 'user') + 1;
    messages.splice(at, 0, {
      role: 'system',
      content: [{ type: 'text', text: renderDeferredTools(opts.deferredTools) }],
    });
  }
  if (opts.agentListingAfterResults) {
    const at = messages.findIndex((m) => m.role === 'user' && m.content.some((b) => b.type === 'tool_result'));
    const next = at >= 0 ? messages[at + 1] : undefined;
    const first = next?.role === 'system' ? next.content[0] : undefined;
    if (next && first?.type === 'text') {
      // A system message already there (a message SendMessage delivered) follows the listing in
      // the same text, as 2.1.328's (recording agent-running-list-send).
      next.content[0] = { ...first, text: `${opts.agentListingAfterResults}\n\n${String(first['text'])}` } as Block;
    } else if (at >= 0)
      messages.splice(at + 1, 0, { role: 'system', content: [{ type: 'text', text: opts.agentListingAfterResults }] });
  }
  repairToolResults(messages);
  const lastMsg = messages[messages.length - 1];
  const lastBlock = lastMsg?.content[lastMsg.content.length - 1];
  if (lastMsg && lastBlock) {
    lastMsg.content[lastMsg.content.length - 1] = { ...lastBlock, cache_control: CACHE } as Block;
  }
  return messages as MessageParam[];
}

/** The skills listed in the session's context (the first listing on the chain). */
function skillListing(chain: readonly TranscriptEntry[]): Array<{ name: string; description: string }> | undefined {
  for (const e of chain) {
    for (const raw of e.attachments ?? []) {
      const a = raw as unknown as ContextAttachment;
      if (a.type === 'skill_listing') return a.skills;
    }
  }
  return undefined;
}

/**
 * A hook's context for the model that Claude Code sends as a mid-conversation `system` message
 * (PostToolUse additional context and blocking errors: `PostToolUse:Bash hook additional
 * context: …`); a Stop hook's feedback and prompt-time context stay user messages.
 */
function isHookSystemContext(entry: TranscriptEntry): boolean {
  if (entry.isMeta !== true || entry.type !== 'user') return false;
  // So is a message SendMessage delivered to a running agent (recording agent-running-list-send).
  return entry['hookEvent'] === 'PostToolUse' || entry.coordinatorMessage === true;
}

/**
 * The shell's directory along a chain: each Bash result records where it left the shell
 * (relative to the working directory, `''` for the directory itself); a change since the last
 * note becomes one `# Environment update` (the absolute paths need the environment's directory).
 */
class ShellMoves {
  /** The working directory named by the environment attachment. */
  root: string | undefined;
  private noted = '';
  private current = '';

  record(entry: TranscriptEntry): void {
    const rel = recordedShellCwd(entry);
    if (rel !== undefined) this.current = rel;
  }

  /** The note for a move since the last one, if any (and marks it noted). */
  takeUpdate(): string | undefined {
    if (this.current === this.noted || this.root === undefined) return undefined;
    const was = path.join(this.root, this.noted);
    this.noted = this.current;
    return renderEnvironmentUpdate(path.join(this.root, this.current), was);
  }
}

/** System prompt as text blocks, the last one a cache breakpoint (caches tools + system). */
export function buildSystem(text: string): Anthropic.TextBlockParam[] {
  return [{ type: 'text', text, cache_control: CACHE }];
}

/** Text of the tool_result given for a tool_use that has none in the transcript. */
export const MISSING_RESULT_TEXT =
  'The run of this tool was interrupted before it reported a result; its outcome is unknown.';

/** Text left in a user message whose only blocks were tool_results without a tool_use. */
export const ORPHAN_RESULTS_TEXT = '[tool results of calls not in this conversation were left out]';

/**
 * Pairs tool calls and results the way the API requires, so that a transcript cut by a crash, an
 * old interrupt or an older version's fault never makes the API answer 400: every tool_use gets a
 * tool_result in the next user message (one is inserted if needed), and a tool_result whose
 * tool_use is not in the previous assistant message is left out.
 */
function repairToolResults(out: Array<{ role: Role; content: Block[] }>): void {
  for (let i = 0; i < out.length; i++) {
    const m = out[i];
    if (!m) continue;
    if (m.role === 'user') {
      const prev = out[i - 1];
      const ids = new Set(
        prev?.role === 'assistant'
          ? prev.content.filter((b) => b.type === 'tool_use').map((b) => (b as { id: string }).id)
          : [],
      );
      const kept = m.content.filter(
        (b) => b.type !== 'tool_result' || ids.has((b as { tool_use_id: string }).tool_use_id),
      );
      if (kept.length !== m.content.length) {
        m.content = kept.length > 0 ? kept : [{ type: 'text', text: ORPHAN_RESULTS_TEXT }];
      }
      continue;
    }
    const ids = m.content.filter((b) => b.type === 'tool_use').map((b) => (b as { id: string }).id);
    if (ids.length === 0) continue;
    let next = out[i + 1];
    if (!next || next.role !== 'user') {
      next = { role: 'user', content: [] };
      out.splice(i + 1, 0, next);
    }
    const have = new Set(
      next.content.filter((b) => b.type === 'tool_result').map((b) => (b as { tool_use_id: string }).tool_use_id),
    );
    const missing = ids.filter((id) => !have.has(id));
    next.content.unshift(
      ...missing.map(
        (id) => ({ type: 'tool_result', tool_use_id: id, content: MISSING_RESULT_TEXT, is_error: true }) as Block,
      ),
    );
  }
}
