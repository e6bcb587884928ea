/** All asynchronous-tools scenarios, in the order they run. */
import { AGENT_CONTROL_SCENARIOS } from './scenarios-agents-control';
import { AGENT_SCENARIOS } from './scenarios-agents';
import type { AsyncScenario } from './scenario';
import { SHELL_SCENARIOS } from './scenarios-shell';
import { TOOL_SCENARIOS } from './scenarios-tools';

export const ASYNC_SCENARIOS: readonly AsyncScenario[] = [
  ...TOOL_SCENARIOS,
  ...AGENT_SCENARIOS,
  ...AGENT_CONTROL_SCENARIOS,
  ...SHELL_SCENARIOS,
];
