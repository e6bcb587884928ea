import type { Responder, ResponderContext } from './messages-handler';
import type { ParsedRequest, RequestMessage } from './request';
import { contentText } from './request';
import type { StepSpec } from './scenario';

/**
 * A responder that plays several conversations at once, each chosen by a marker in the
 * conversation's own user text: the main agent, its subagents, forks and continuations arrive as
 * separate (possibly concurrent) API calls with their own system prompt and tools, so requests are
 * routed by content, not by arrival order.
 */

/** What a {@link MarkedScript} step function is told. */
export interface RouteContext extends ResponderContext {
  /** Name of the script that matched (its marker). */
  script: string;
  /** Step index within the script: assistant messages after the user message that matched. */
  scriptStep: number;
}

/** A step, or a function of the request that builds it (e.g. to copy an id from a tool_result). */
export type RouteStep = StepSpec | ((req: ParsedRequest, ctx: RouteContext) => StepSpec);

/** One conversation the router plays. */
export interface MarkedScript {
  /** Text that identifies the conversation in a user message, e.g. `[as:helper]`. */
  marker: string;
  /** Responses in order: step n answers the request with n assistant messages after the marker's message. */
  steps: readonly RouteStep[];
}

/** Options of {@link routeByMarker}. */
export interface RouterOptions {
  /**
   * Answers a request no marker matches (e.g. a side call of the client). Without it such a request
   * gets HTTP 400 `fake-model: responder failed: no marker …`.
   */
  fallback?: RouteStep;
  /** Called with every routed request (before its step is built). */
  onRoute?: (req: ParsedRequest, ctx: RouteContext) => void;
  /**
   * Gives every tool_use without an `id` the id `toolu_<marker slug>_<step>_<block>`, distinct across
   * conversations (the server's default ids derive from the conversation key, which a client's
   * subagents share with their parent). @default true
   */
  toolIds?: boolean;
}

/**
 * The text a user message carries itself: a string content, or its text blocks; `tool_result`
 * contents are left out, so a marker quoted back by a tool does not re-route a conversation.
 */
export function ownUserText(m: RequestMessage): string {
  if (m.role !== 'user') return '';
  if (typeof m.content === 'string') return m.content;
  return contentText(m.content.filter((b) => b.type === 'text'));
}

/**
 * The script that plays a request: the one whose marker is in the latest user message that
 * carries any marker (the first script in order when that message has several), and the index of
 * that message. A fork's request repeats its parent's conversation and then adds its own
 * directive, so the directive (the latest) wins.
 */
export function matchMarker(
  scripts: readonly MarkedScript[],
  req: ParsedRequest,
): { script: MarkedScript; messageIndex: number } | undefined {
  for (let i = req.messages.length - 1; i >= 0; i--) {
    const text = ownUserText(req.messages[i]!);
    if (text === '') continue;
    const script = scripts.find((s) => text.includes(s.marker));
    if (script) return { script, messageIndex: i };
  }
  return undefined;
}

function slug(marker: string): string {
  return marker.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '') || 'm';
}

function withIds(step: StepSpec, prefix: string): StepSpec {
  if (!step.content) return step;
  return {
    ...step,
    content: step.content.map((c, i) => {
      if (c.tool_use && c.tool_use.id === undefined) return { tool_use: { ...c.tool_use, id: `${prefix}_${i}` } };
      if (c.raw_tool_use && c.raw_tool_use.id === undefined) {
        return { raw_tool_use: { ...c.raw_tool_use, id: `${prefix}_${i}` } };
      }
      return c;
    }),
  };
}

/**
 * Builds a {@link Responder} that routes each request to a {@link MarkedScript} by
 * {@link matchMarker}. Stateless: a retried request gets the same step.
 *
 * @throws (inside the responder, answered as HTTP 400) when no marker matches and no `fallback`
 *   is given, or the matched script has no step for the request
 */
export function routeByMarker(scripts: readonly MarkedScript[], opts: RouterOptions = {}): Responder {
  return async (req, ctx) => {
    const match = matchMarker(scripts, req);
    const build = async (step: RouteStep, rctx: RouteContext): Promise<StepSpec> =>
      typeof step === 'function' ? step(req, rctx) : step;
    if (!match) {
      const rctx: RouteContext = { ...ctx, script: '(fallback)', scriptStep: ctx.step };
      opts.onRoute?.(req, rctx);
      if (opts.fallback === undefined) {
        const last = req.messages.map(ownUserText).filter((t) => t !== '');
        throw new Error(`no marker in the request's user text: ${JSON.stringify((last.at(-1) ?? '').slice(-200))}`);
      }
      return build(opts.fallback, rctx);
    }
    const scriptStep = req.messages.slice(match.messageIndex + 1).filter((m) => m.role === 'assistant').length;
    const rctx: RouteContext = { ...ctx, script: match.script.marker, scriptStep };
    opts.onRoute?.(req, rctx);
    const step = match.script.steps[scriptStep];
    if (step === undefined) {
      throw new Error(
        `script ${match.script.marker} has no step ${scriptStep} (it has ${match.script.steps.length}; step = assistant messages after the marker's message)`,
      );
    }
    const built = await build(step, rctx);
    return opts.toolIds === false ? built : withIds(built, `toolu_${slug(match.script.marker)}_${scriptStep}`);
  };
}
