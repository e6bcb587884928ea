/** Version of durable-agent-runner, reported in `system/init` as `claude_code_version`. */
export const RUNNER_VERSION = '0.1.0';
