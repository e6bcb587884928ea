/**
 * Custom search attributes the runner sets on its workflows, so runs can be found in the
 * Temporal Web UI and with `temporal workflow list --query`. The embedded dev server registers
 * them at start; on another server, register them once with
 * `temporal operator search-attribute create --name NAME --type TYPE`.
 */
export const SEARCH_ATTRIBUTES = {
  AgentSessionId: 'Keyword',
  AgentBatchId: 'Keyword',
  AgentTaskId: 'Keyword',
  AgentStatus: 'Keyword',
  AgentCostUsd: 'Double',
} as const;
