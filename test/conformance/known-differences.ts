/**
 * Differences between the real `claude -p` and `agent-runner -p` that are accepted, each with its
 * reason. docs/compatibility.md lists the same entries (by id) for readers; a test keeps the two
 * in step, and another fails when an entry no longer matches anything (so the list stays true).
 */
import type { Difference, DifferenceKind } from './compare';
import { RESUMED_PREFIX } from './compare';

/** An accepted difference. */
export interface KnownDifference {
  /** Stable id, also written in docs/compatibility.md. */
  id: string;
  kind: DifferenceKind;
  /** Matches {@link Difference.where}: exactly, or by a regular expression. */
  where: string | RegExp;
  /** Scenarios it applies to (default: every scenario). */
  scenarios?: readonly string[];
  /** Why we accept it. */
  reason: string;
}

export const KNOWN_DIFFERENCES: readonly KnownDifference[] = [
  {
    id: 'stop-hook-reminder',
    kind: 'context',
    where: /^request [1-9]$/,
    scenarios: ['hook-stop-continue', 'hook-stop-cap', 'hook-stop-cap-env'],
    reason:
      "After a Stop hook's feedback Claude Code also sends a mid-conversation system reminder (to keep the user updated); the runner sends the feedback only.",
  },
  {
    id: 'init-claude-only-fields',
    kind: 'field',
    where:
      /^system\/init\.(terminal_slash_commands|capabilities|analytics_disabled|product_feedback_disabled|memory_paths|original_cwd|additional_directories|messaging_socket_path|fast_mode_state|fast_mode_disabled_reason|per_turn_effort_active|ultrathink_available|ultrathink_typed_raises|view_mode)$/,
    reason:
      'Fields of Claude Code features the runner does not have (terminal slash commands, SDK capability flags, memory files, a messaging socket, fast mode, effort and ultrathink, view modes, analytics switches). Every field of the documented SDKSystemMessage init shape is present.',
  },
  {
    id: 'result-claude-only-fields',
    kind: 'field',
    where:
      /^result\/[a-z_]+\.(fast_mode_state|fast_mode_disabled_reason|subagent_stats|safety_stops|queued_turn_count|result_index|model_usage_since_last_result)$/,
    reason:
      'Result fields of Claude Code features the runner does not have (fast mode, subagents, safety stops, queued turns, per-result model usage); all are optional or undocumented in the SDK result type.',
  },
  {
    id: 'result-total-cost-usd-known',
    kind: 'field',
    where: /^result\/[a-z_]+\.total_cost_usd_known$/,
    reason:
      'Our extension: false when a model is missing from the price table, so that a total_cost_usd of 0 is not mistaken for free.',
  },
  {
    id: 'result-workspace',
    kind: 'field',
    where: /^result\/[a-z_]+\.workspace$/,
    reason:
      'Our extension: in a git repository whose tree the turn changed, the result names the workspace (host, path, base commit, last snapshot) so another host can follow it.',
  },
  {
    id: 'assistant-stop-reason',
    kind: 'field',
    where: 'assistant.message.stop_reason',
    reason:
      'Claude Code emits each content block as it streams, before message_delta, so its stop_reason is null; the runner publishes a response once it is recorded and keeps the real stop_reason (the SDK type is string | null).',
  },
  {
    id: 'user-tool-result-meta',
    kind: 'field',
    where: 'user.tool_result_meta',
    reason:
      'Claude Code attaches its permission-decision record to each tool result (undocumented in the SDK types); the runner decides permissions in the workflow and reports denials in result.permission_denials.',
  },
  {
    id: 'edit-write-require-read',
    kind: 'tool-result',
    where: /^toolu_conf_0_0\.(content|is_error)$/,
    scenarios: ['edit-before-read', 'write-over-unread'],
    reason:
      'Deliberate: Edit and Write of an existing file the session has not Read (or that changed since) are refused, as Claude Code did before 2.1.3xx; Claude Code 2.1.328 applies the change and only notes that the file is not in context. Unattended runs should not overwrite what the model has not seen; the model reads and retries.',
  },
  {
    id: 'edit-write-require-read',
    kind: 'field',
    where: 'user.tool_use_result',
    scenarios: ['edit-before-read', 'write-over-unread'],
    reason: 'Follows from the refusal: an error result carries the error text as its tool_use_result.',
  },
  {
    id: 'edit-write-require-read',
    kind: 'repository',
    where: 'a.txt',
    scenarios: ['edit-before-read', 'write-over-unread'],
    reason: 'Follows from the refusal: the unread file is left as it was.',
  },
  {
    id: 'permission-denial-wording',
    kind: 'tool-result',
    where: /^toolu_conf_\d+_\d+\.content$/,
    scenarios: [
      'permission-dont-ask',
      'settings-rules',
      'bash-compound-scoped',
      'command-frontmatter-args',
      'skill-listed-and-loaded',
      'hook-allow-rules',
      'bash-builtins-asked',
      'settings-untrusted',
      'settings-subdirectory',
    ],
    reason:
      "The text of a permission denial is the runner's own (it names the rule or the flag that would allow the call); the denial itself, is_error, the system/permission_denied message and result.permission_denials match.",
  },
  {
    id: 'permission-denial-wording',
    kind: 'result',
    where: 'result.result',
    scenarios: ['command-shell-permissions'],
    reason:
      'A refused `!` line of a command answers with `Shell command permission check failed for pattern "…": ` and the denial, in the runner\'s own words.',
  },
  {
    id: 'context-placement-by-model',
    kind: 'context',
    where: 'request 0',
    scenarios: ['command-model-frontmatter'],
    reason:
      "For Claude 4.x models (a command's `model: claude-haiku-4-5`) Claude Code sends the environment, skills and date as `<system-reminder>` blocks of the first user message instead of a `system` message; the runner sends the same texts the same way for every model (the model layer, issue 23). The model switch itself matches.",
  },
  {
    id: 'stream-json-answers-every-line',
    kind: 'sequence',
    where: 'messages',
    scenarios: ['stream-input-queued-after-tool-turn'],
    reason:
      'Deliberate: Claude Code 2.1.328 drops a stream-json user line that arrives while a turn with tool calls runs (no answer, no error); the runner queues every line and answers each in order.',
  },
  {
    id: 'stream-json-answers-every-line',
    kind: 'result',
    where: 'result.result',
    scenarios: ['stream-input-queued-after-tool-turn'],
    reason: "Follows from it: the last result is the third line's answer.",
  },
  {
    id: 'stream-json-answers-every-line',
    kind: 'context',
    where: 'request 3',
    scenarios: ['stream-input-queued-after-tool-turn'],
    reason: 'Follows from it: the request for the third line, which Claude Code never makes.',
  },
  {
    id: 'deferred-builtin-tools-missing',
    kind: 'tool-result',
    where: /^toolu_conf_[0-6]_0\.(content|is_error)$/,
    scenarios: ['deferred-tools-toolsearch'],
    reason:
      'The runner has none of the built-in tools Claude Code defers (NotebookEdit, CronCreate/List/Delete, Monitor, EnterWorktree/ExitWorktree, SendMessage, TaskStop; later issues add some; WebSearch and WebFetch are deferred and loaded as in Claude Code): ToolSearch finds none of them, a call of one is `No such tool available`, and Read shows a notebook as text. ToolSearch over MCP tools matches (deferred-mcp-large, plugin-dir).',
  },
  {
    id: 'deferred-builtin-tools-missing',
    kind: 'field',
    where: 'user.tool_use_result',
    scenarios: ['deferred-tools-toolsearch'],
    reason: 'Follows from it: an error result carries its text as tool_use_result.',
  },
  {
    id: 'deferred-builtin-tools-missing',
    kind: 'context',
    where: /^request [1-7]$/,
    scenarios: ['deferred-tools-toolsearch'],
    reason: 'Follows from it: no ToolSearch result loads a tool, so none is followed by `Tool loaded.`.',
  },
  {
    id: 'deferred-builtin-tools-missing',
    kind: 'repository',
    where: 'nb.ipynb',
    scenarios: ['deferred-tools-toolsearch'],
    reason: 'Follows from it: NotebookEdit did not run.',
  },
  {
    id: 'bare-ui-invalidate',
    kind: 'sequence',
    where: 'messages',
    scenarios: ['bare'],
    reason:
      'Under --bare Claude Code streams `{"type": "system", "subtype": "ui_invalidate", "event": "ui.render"}` before system/init, an event of its terminal renderer that means nothing to a headless caller; the runner does not send it.',
  },
  {
    id: 'permission-denied-reason-fields',
    kind: 'field',
    where: /^system\/permission_denied\.(decision_reason_type|decision_reason)$/,
    reason:
      'The runner gives every system/permission_denied a decision_reason_type (and a decision_reason when it has one beyond the message); Claude Code leaves them out of some denials (an ask that only the mode decided, an output redirection).',
  },
  {
    id: 'thinking-tokens-estimates-need-partial-messages',
    kind: 'stream-event',
    where: 'system/thinking_tokens',
    scenarios: ['thinking-resume'],
    reason:
      "Claude Code sends live thinking-token estimates (system/thinking_tokens, 'approximate progress for spinners') on every run; the runner's client sees a response's events only through the stream side channel, which a turn publishes with --include-partial-messages: there it sends them (thinking-tool-turn), without it the billed counts are in the result.",
  },
  {
    id: 'web-fetch-no-preflight',
    kind: 'tool-result',
    where: /^toolu_conf_0_0\.(content|is_error)$/,
    scenarios: ['web-fetch-preflight-offline'],
    reason:
      "Deliberate: WebFetch asks no domain check of api.anthropic.com first. Claude Code's preflight fails for every domain offline, behind a proxy and with Bedrock or Vertex (Unable to verify if domain … is safe to fetch), which makes the tool useless there; the runner fetches, and the WebFetch(domain:…) permission rules decide which hosts may be fetched.",
  },
  {
    id: 'web-fetch-no-preflight',
    kind: 'field',
    where: 'user.tool_use_result',
    scenarios: ['web-fetch-preflight-offline'],
    reason:
      "Follows from it: the fetch's tool_use_result is WebFetch's object ({bytes, code, codeText, result, durationMs, url}), not an error string.",
  },
  {
    id: 'web-fetch-no-preflight',
    kind: 'context',
    where: /^request [12]$/,
    scenarios: ['web-fetch-preflight-offline'],
    reason:
      "Follows from it: the runner's request 1 is WebFetch's summary call (Claude Code made none), so its next conversation call is request 2.",
  },
  {
    id: 'provider-no-model-probes',
    kind: 'context',
    where: 'model probes before the turn',
    // Every recording on Bedrock or Vertex (recordings.test.ts counts the probes); no differential scenario.
    scenarios: [
      'provider-bedrock-sigv4',
      'provider-bedrock-api-key',
      'provider-bedrock-model-unavailable',
      'provider-bedrock-no-model',
      'provider-vertex-gce-token',
      'provider-vertex-skip-auth',
      'provider-vertex-gateway-token',
    ],
    reason:
      'Claude Code sends Bedrock and Vertex a max_tokens 1 request per model it may use before each run, and switches to a fallback model when one is not enabled. The runner calls the model it was given and makes no other request: a model the account lacks fails the turn with the API error (a run costs no probe calls, and never runs on a model it was not asked for).',
  },
  {
    id: 'provider-no-model-probes',
    kind: 'context',
    where: 'request 1',
    scenarios: ['provider-bedrock-model-unavailable', 'provider-bedrock-no-model'],
    reason:
      "Follows from it: Claude Code's second conversation request is on the fallback model its probes found (with a notice of the switch); the runner's default model here (sonnet: Sonnet 4.5 on Bedrock) is enabled and needs none, and with no model enabled its one call fails.",
  },
  {
    id: 'context-layout-4x-models',
    kind: 'context',
    where: /^request [01]$/,
    scenarios: ['provider-foundry-api-key'],
    reason:
      "Claude Code puts the environment and the other context paragraphs into <system-reminder> blocks of the first user message for 4.x models (Foundry's default here is Sonnet 4.5); the runner sends them as one system message for every model, as Claude Code does for the 5.x ones.",
  },
  {
    id: 'context-layout-4x-models',
    kind: 'tool-result',
    where: /^toolu_conf_0_0\.(content|is_error)$/,
    scenarios: ['provider-foundry-api-key'],
    reason:
      "A recording artifact of that layout: the fake model finds the working directory for the script's {{cwd}} in a system message, so Claude Code's Read got a path that does not exist; the runner's Read of the same step read README.md.",
  },
  {
    id: 'context-layout-4x-models',
    kind: 'field',
    where: 'user.tool_use_result',
    scenarios: ['provider-foundry-api-key'],
    reason: "Follows from it: Claude Code's failed Read has a string tool_use_result, the runner's read its object.",
  },
  {
    id: 'api-errors-end-in-error-subtype',
    kind: 'sequence',
    where: 'messages',
    scenarios: ['provider-vertex-skip-auth', 'provider-bedrock-no-model'],
    reason:
      'Deliberate (docs/compatibility.md): a model call that fails for good ends the turn with error_during_execution and the API error in errors, not a synthetic assistant message and success; no system/api_retry messages are streamed for the retries (Temporal retries the call, a 401 not at all).',
  },
  {
    id: 'api-errors-end-in-error-subtype',
    kind: 'result',
    where: /^result\.(subtype|result|errors|stop_reason)$/,
    scenarios: ['provider-vertex-skip-auth', 'provider-bedrock-no-model'],
    reason: 'Follows from it: error_during_execution, no result text, the API error in errors, no stop_reason.',
  },
  {
    id: 'read-allow-large',
    kind: 'tool-schema',
    where: 'Read.allow_large',
    reason:
      'Read has no way past its size limit (allow_large): files over 256 KB are read in windows with offset/limit, which keeps every tool result small enough for the transcript store and the context.',
  },
  {
    id: 'bash-env-never-sourced',
    kind: 'repository',
    where: 'sourced.txt',
    scenarios: ['settings-env-shell'],
    reason:
      "Deliberate, beyond Claude Code: BASH_ENV (and ENV, SHELLOPTS, BASHOPTS, CDPATH, PS4) never reaches the runner's shell. Claude Code 2.1.328 keeps it out of the command's shell too, but sources it once, silently, while it prepares its shell (so a repository's settings env runs a script of the repository).",
  },
  {
    id: 'structured-output-never-success-without-output',
    kind: 'exit-code',
    where: 'exit code',
    scenarios: ['json-schema-text-only'],
    reason:
      'Deliberate, beyond Claude Code: a turn given --json-schema never ends in success without structured_output. Claude Code nudges a text answer once and then reports success without structured_output (exit 0); the runner nudges until the retries (5) run out and ends with error_max_structured_output_retries (exit 1), so a CI job never takes a text answer for the structured one.',
  },
  {
    id: 'structured-output-never-success-without-output',
    kind: 'sequence',
    where: 'messages',
    scenarios: ['json-schema-text-only'],
    reason: 'Follows from it: the model is nudged up to 5 times (each a user message and an answer) instead of once.',
  },
  {
    id: 'structured-output-never-success-without-output',
    kind: 'context',
    where: /^request [2-9]$/,
    scenarios: ['json-schema-text-only'],
    reason:
      'Follows from it: the requests after the first nudge (each with the earlier answers and nudges) are the further attempts Claude Code does not make; requests 0 and 1 are compared as usual.',
  },
  {
    id: 'structured-output-never-success-without-output',
    kind: 'result',
    where: /^result\.(subtype|is_error|result|errors|terminal_reason)$/,
    scenarios: ['json-schema-text-only'],
    reason:
      'Follows from it: error_max_structured_output_retries, is_error, no result text, errors naming the attempts, terminal_reason structured_output_retry_exhausted.',
  },
  {
    id: 'prompt-hook-result-fields',
    kind: 'field',
    where: /^result\/success\.(terminal_reason|api_error_status)$/,
    scenarios: ['hook-prompt-blocked', 'hook-prompt-stopped'],
    reason:
      'A turn a UserPromptSubmit hook ended still says why (terminal_reason "hook_stopped") and carries api_error_status: null like every other result; Claude Code leaves both out of this one result.',
  },
  {
    id: 'prompt-hook-result-fields',
    kind: 'result',
    where: 'result.terminal_reason',
    scenarios: ['hook-prompt-blocked', 'hook-prompt-stopped'],
    reason: 'Follows from it: terminal_reason is "hook_stopped" where Claude Code has none.',
  },
  {
    id: 'pretooluse-stop-not-run',
    kind: 'field',
    where: 'user.tool_use_result',
    scenarios: ['hook-pretooluse-stop'],
    reason:
      'Deliberate: a PreToolUse hook that answers continue: false stops the turn before its call runs (the call gets an error result, "Not run: <stopReason>"); Claude Code 2.1.328 runs the call and then stops. A hook that asks to stop should not see the call it was asked about go ahead.',
  },
  {
    id: 'pretooluse-stop-not-run',
    kind: 'repository',
    where: 'ran.txt',
    scenarios: ['hook-pretooluse-stop'],
    reason: 'Follows from it: the Bash call did not write its file.',
  },
  {
    id: 'refusal-twice-error',
    kind: 'sequence',
    where: 'messages',
    scenarios: ['refusal-twice'],
    reason:
      'Deliberate, as for other API errors: a second refusal ends the turn with error_during_execution and the reason in errors; Claude Code streams system/model_refusal_no_fallback and a synthetic assistant "API Error: …" message, then a success result with is_error.',
  },
  {
    id: 'refusal-twice-error',
    kind: 'result',
    where: /^result\.(subtype|result|errors)$/,
    scenarios: ['refusal-twice'],
    reason:
      'Follows from it: error_during_execution, no result text, the reason in errors (is_error, stop_reason, terminal_reason and the exit code match).',
  },
  {
    id: 'mcp-server-start-failure',
    kind: 'exit-code',
    where: 'exit code',
    scenarios: ['mcp-start-timeout'],
    reason:
      'Deliberate: an MCP server that does not start (here: not within MCP_TIMEOUT) ends the run before any model call with exit 2 and the reason; Claude Code lists it as failed and goes on without its tools. An unattended run should not silently lose the tools it was given.',
  },
  {
    id: 'mcp-server-start-failure',
    kind: 'sequence',
    where: 'messages',
    scenarios: ['mcp-start-timeout'],
    reason: 'Follows from it: system/init (the server listed as failed, as in Claude Code), then the result.',
  },
  {
    id: 'mcp-server-start-failure',
    kind: 'result',
    where: /^result\.(subtype|is_error|result|errors|terminal_reason|stop_reason)$/,
    scenarios: ['mcp-start-timeout'],
    reason:
      'Follows from it: error_during_execution, terminal_reason turn_setup_failed, the server and reason in errors.',
  },
  {
    id: 'mcp-server-start-failure',
    kind: 'context',
    where: /^request \d+$/,
    scenarios: ['mcp-start-timeout'],
    reason: 'Follows from it: no model call is made.',
  },
  {
    id: 'subagent-token-figure',
    kind: 'tool-result',
    where: /^toolu_as_(main|d\d)_0_\d\.content$/,
    scenarios: [
      'agent-custom-flag',
      'agent-custom-file',
      'agent-foreground',
      'agent-fork-foreground',
      'agent-depth-env',
      'agent-depth',
      'agent-subagent-hooks',
    ],
    reason:
      "The hand-back's `subagent_tokens` is the agent's last context size, which follows from its requests' size; the runner's environment message is shorter than 2.1.328's (no untrusted-download and curl lines), so the figure is lower. The rest of the hand-back matches.",
  },
  {
    id: 'subagent-token-figure',
    kind: 'tool-result',
    where: /^toolu_as_main_[01]_0\.content$/,
    scenarios: ['agent-worktree'],
    reason:
      "Follows from it: both worktree agents' hand-backs (worktreePath and worktreeBranch lines, or none when unchanged, match).",
  },
  {
    id: 'haiku-tokens-left-reminder',
    kind: 'context',
    where: 'request 3',
    scenarios: ['agent-custom-flag'],
    reason:
      "Claude Code's Haiku subagents get a `<total_tokens>N tokens left</total_tokens>` system message after tool results; the runner sends the fixed line of the agent's system prompt only.",
  },
  {
    id: 'hook-input-claude-only-fields',
    kind: 'repository',
    where: 'hooks.log',
    scenarios: ['agent-subagent-hooks'],
    reason:
      "The hook commands log their input: the runner's transcript_path is empty and agent_transcript_path is the agent's output file (transcripts live in the runner's store, not in Claude Code's ~/.claude/projects files), and it sends no prompt_id, effort, background_tasks or session_crons. The events, their order, agent_id, agent_type, stop_hook_active and last_assistant_message match (the scenario's checks).",
  },
];

/** The first entry that accepts `d` in `scenario`, if any. */
export function knownDifferenceFor(d: Difference, scenario: string): KnownDifference | undefined {
  const where = d.where.startsWith(RESUMED_PREFIX) ? d.where.slice(RESUMED_PREFIX.length) : d.where;
  return KNOWN_DIFFERENCES.find(
    (k) =>
      k.kind === d.kind &&
      (k.scenarios === undefined || k.scenarios.includes(scenario)) &&
      (typeof k.where === 'string' ? k.where === where : k.where.test(where)),
  );
}
