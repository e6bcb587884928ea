/** All asynchronous-tools scenarios, in the order they run. */
import { AGENT_TYPE_SCENARIOS } from './scenarios-agent-types';
import { AGENT_CONTROL_SCENARIOS } from './scenarios-agents-control';
import { AGENT_LIMIT_SCENARIOS } from './scenarios-agents-limits';
import { AGENT_SCENARIOS } from './scenarios-agents';
import type { AsyncScenario } from './scenario';
import { SHELL_SCENARIOS } from './scenarios-shell';
import { TOOL_SCENARIOS } from './scenarios-tools';
import { WAITING_SCENARIOS } from './scenarios-waiting';

export const ASYNC_SCENARIOS: readonly AsyncScenario[] = [
  ...TOOL_SCENARIOS,
  ...AGENT_SCENARIOS,
  ...AGENT_TYPE_SCENARIOS,
  ...AGENT_CONTROL_SCENARIOS,
  ...AGENT_LIMIT_SCENARIOS,
  ...SHELL_SCENARIOS,
  ...WAITING_SCENARIOS,
];
