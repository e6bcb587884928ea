/** All recording scenarios (issue 22, then issue 23), in the order they run. */
import type { RecordingScenario } from './scenario';
import { COMMAND_SCENARIOS } from './scenarios-commands';
import { MODEL_SCENARIOS } from './scenarios-model';

export const RECORDING_SCENARIOS: readonly RecordingScenario[] = [...COMMAND_SCENARIOS, ...MODEL_SCENARIOS];
