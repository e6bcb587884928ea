/** Version of durable-agent-runner, reported in `system/init` as `claude_code_version`. */
export const RUNNER_VERSION = '0.1.0';

/**
 * Schema version of a transcript line (`v`). Bump it when a line's meaning changes, and keep a
 * fixture of the old version in `test/fixtures/transcripts/`. Here (not in `transcript.ts`) so
 * that workflow code can use it without bundling zod.
 */
export const TRANSCRIPT_SCHEMA_VERSION = 1;
