// A client of the official Claude Agent SDK, run as its own Node process (jest cannot load ES
// modules without flags). It loads `query()` from the pinned SDK in .cache/claude-code with a
// dynamic import, runs one query against the executable it is given, and prints one JSON line per
// event on stdout: {"event":"message","message":…} for each SDK message, then
// {"event":"initialization","result":…} and {"event":"done"}, or {"event":"error","error":…}.
//
// Usage: node sdk-client.mjs '<json>' with {sdkEntry, prompts: string[], streaming?: boolean,
// interruptOnTool?: string, setModel?: string, setPermissionMode?: string, options: {…}}.
import { pathToFileURL } from 'node:url';

const config = JSON.parse(process.argv[2] ?? '{}');
const emit = (event) => process.stdout.write(`${JSON.stringify(event)}\n`);
const { query } = await import(pathToFileURL(config.sdkEntry).href);

let resultSeen = () => undefined;
const nextResult = () => new Promise((resolve) => (resultSeen = resolve));

/** Streaming-input mode: one user message per prompt, each sent after the previous turn's result. */
async function* userMessages(prompts) {
  for (const [i, text] of prompts.entries()) {
    const waited = i === 0 ? undefined : nextResult();
    if (waited) await waited;
    yield { type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null, session_id: '' };
  }
}

const streaming = config.streaming === true || config.prompts.length > 1;
// `canUseTool: {<tool>: {deny: message} | {updatedInput}}`: a callback that answers by tool name
// (allowing unlisted tools unchanged) and reports each call as a `can_use_tool` event.
const canUseTool = config.canUseTool
  ? async (toolName, input, opts) => {
      emit({ event: 'can_use_tool', toolName, input, toolUseID: opts.toolUseID });
      const rule = config.canUseTool[toolName] ?? {};
      if (rule.deny !== undefined) return { behavior: 'deny', message: rule.deny };
      return { behavior: 'allow', updatedInput: rule.updatedInput ?? input };
    }
  : undefined;
const q = query({
  prompt: streaming ? userMessages(config.prompts) : config.prompts[0],
  options: { ...config.options, ...(canUseTool ? { canUseTool } : {}), stderr: (d) => process.stderr.write(d) },
});
let interrupted = false;
try {
  if (config.setModel) await q.setModel(config.setModel);
  if (config.setPermissionMode) await q.setPermissionMode(config.setPermissionMode);
  for await (const message of q) {
    emit({ event: 'message', message });
    if (message.type === 'result') resultSeen();
    const calls = message.type === 'assistant' ? (message.message.content ?? []) : [];
    if (
      !interrupted &&
      config.interruptOnTool &&
      calls.some((b) => b.type === 'tool_use' && b.name === config.interruptOnTool)
    ) {
      interrupted = true;
      // Give the tool a moment to start, then interrupt it as a user pressing Stop would.
      setTimeout(() => {
        emit({ event: 'interrupting', atMs: Date.now() });
        q.interrupt().then(
          () => emit({ event: 'interrupted', atMs: Date.now() }),
          (e) => emit({ event: 'interrupt-failed', error: String(e?.message ?? e) }),
        );
      }, 1000);
    }
  }
  emit({ event: 'initialization', result: await q.initializationResult() });
  emit({ event: 'done', atMs: Date.now() });
} catch (e) {
  emit({ event: 'error', error: String(e?.stack ?? e), atMs: Date.now() });
  process.exitCode = 1;
}
