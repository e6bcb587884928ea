/**
 * The scenario the local model server plays when no `ANTHROPIC_API_KEY` is set: a sensible agent
 * that runs the tests, reads the failing test and the source, fixes the comparison with one Edit
 * and runs the tests again. Each step checks the tool result it answers (`expect`), so a runner
 * whose tools misbehave fails loudly instead of being papered over. `{{cwd}}` is the working
 * directory named in the runner's system prompt (the demo repository).
 */
import type { ScenarioInput } from '../src/fake-model';
import { BREAKAGE, DEMO_TEST_FILE, FAILURE_MARKER } from './package-under-test';

/** Name of the scenario's only script. */
export const DEMO_SCRIPT_NAME = 'fix-ms-minute-boundary';

/** The final answer of the scripted agent (one sentence). */
export const DEMO_SUMMARY =
  `Fixed ${BREAKAGE.file}: ${BREAKAGE.functionName}() checked the minutes branch with ` +
  '`msAbs > m` instead of `msAbs >= m`, so exactly one minute (60000 ms) was formatted as "60s" ' +
  'instead of the documented "1m"; `npm test` now passes.';

/**
 * Builds the demo scenario (shorthand form: one script of steps; step n answers the request that
 * holds n assistant messages).
 */
export function buildDemoScenario(): ScenarioInput {
  return {
    description: 'Demo: find and fix the injected minute-boundary bug of ms@2.1.3',
    name: DEMO_SCRIPT_NAME,
    steps: [
      // 0: the task; start by reproducing the failure.
      {
        expect: { systemContains: 'You are a coding agent', toolsInclude: ['Bash', 'Read', 'Edit'] },
        content: [
          { text: "I'll start by running the test suite to see what fails." },
          { tool_use: { name: 'Bash', input: { command: 'npm test', description: 'Run the test suite' } } },
        ],
      },
      // 1: npm test failed (non-zero exit) on the minute assertion; read the test.
      {
        expect: { lastToolResultIsError: true, lastToolResultContains: FAILURE_MARKER },
        content: [
          {
            text:
              'One test fails: "formats milliseconds in the short format" expects ms(60000) to be "1m" ' +
              'but gets "60s". Let me read the test.',
          },
          { tool_use: { name: 'Read', input: { file_path: `{{cwd}}/${DEMO_TEST_FILE.path}` } } },
        ],
      },
      // 2: the test; it matches the readme, so the bug is in the source.
      {
        expect: { lastToolResultIsError: false, lastToolResultContains: "assert.strictEqual(ms(60000), '1m');" },
        content: [
          {
            text:
              'The test follows the readme (`ms(60000) // "1m"`), so the source is wrong. ' +
              `The short format is produced by ${BREAKAGE.functionName}() in ${BREAKAGE.file}.`,
          },
          { tool_use: { name: 'Read', input: { file_path: `{{cwd}}/${BREAKAGE.file}` } } },
        ],
      },
      // 3: the source; fix the comparison.
      {
        expect: { lastToolResultIsError: false, lastToolResultContains: BREAKAGE.brokenLine },
        content: [
          {
            text:
              `Found it: in ${BREAKAGE.functionName}() every unit is chosen with \`msAbs >= unit\` except ` +
              'minutes, which uses `msAbs > m`, so exactly 60000 ms falls through to the seconds branch. ' +
              'Fixing the comparison.',
          },
          {
            tool_use: {
              name: 'Edit',
              input: {
                file_path: `{{cwd}}/${BREAKAGE.file}`,
                old_string: BREAKAGE.broken,
                new_string: BREAKAGE.original,
              },
            },
          },
        ],
      },
      // 4: edited; run the tests again.
      {
        expect: { lastToolResultIsError: false, lastToolResultContains: 'has been updated successfully' },
        content: [
          { text: 'Now let me run the tests again.' },
          { tool_use: { name: 'Bash', input: { command: 'npm test', description: 'Run the test suite again' } } },
        ],
      },
      // 5: all pass (exit 0; "# fail 0" with the tap reporter, "ℹ fail 0" with spec).
      {
        expect: { lastToolResultIsError: false, lastToolResultContains: 'fail 0' },
        content: [{ text: DEMO_SUMMARY }],
      },
    ],
  };
}
