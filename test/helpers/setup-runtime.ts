import { installRuntimeLogging } from '../../src/worker/logging';
import { runtimeLogLevel } from '../../src/client/runtime';

// Tests inject failures on purpose; the SDK's warnings about them would bury the test output.
// AGENT_RUNNER_LOG_LEVEL=WARN (or INFO) brings them back when debugging.
installRuntimeLogging(runtimeLogLevel(process.env, 'ERROR'));
