/**
 * The package the demo breaks and hands to the agent: a small, real, dependency-free CommonJS
 * package taken from the npm registry at demo time (this project did not write it), the one-line
 * bug the demo injects into it, and the failing test the demo adds.
 */

/** The pinned npm package. */
export const DEMO_PACKAGE = {
  name: 'ms',
  version: '2.1.3',
  /** `dist.integrity` of `ms@2.1.3` on the registry; the packed tarball is checked against it. */
  integrity: 'sha512-6FlzubTLZG3J2a/NVCAleEhjzq5oxgHyaCU9yYXvcLsvoVaHJq/s5xXI6/XXP6tz7R9xAOtHnSO/tXtF3WRTlA==',
  license: 'MIT',
  /** Upstream repository, for the header. */
  repository: 'github.com/vercel/ms',
} as const;

/** `name@version` of {@link DEMO_PACKAGE}. */
export const DEMO_PACKAGE_SPEC = `${DEMO_PACKAGE.name}@${DEMO_PACKAGE.version}`;

/**
 * The injected bug. In `fmtShort()` (the short format, `ms(60000)`), the minutes branch compares
 * with `>` instead of `>=`, so exactly one minute (60000 ms) falls through to the seconds branch
 * and is formatted as `"60s"` instead of `"1m"`, which the package's readme documents
 * (`ms(60000) // "1m"`). Every other unit, and the long format, still use `>=`.
 */
export const BREAKAGE = {
  /** File of the package that is changed, relative to its root. */
  file: 'index.js',
  /** Function the changed line is in. */
  functionName: 'fmtShort',
  /** The upstream text; it occurs exactly once in `index.js` of ms@2.1.3. */
  original: "  if (msAbs >= m) {\n    return Math.round(ms / m) + 'm';",
  /** What the demo puts in its place: the same text with `>=` turned into `>`. */
  broken: "  if (msAbs > m) {\n    return Math.round(ms / m) + 'm';",
  /** The changed line before and after, for the header. */
  originalLine: 'if (msAbs >= m) {',
  brokenLine: 'if (msAbs > m) {',
  /** One-line description of the visible effect. */
  effect: 'ms(60000) returns "60s" instead of "1m" (readme: ms(60000) // "1m")',
} as const;

/**
 * The test file the demo adds (Node's built-in runner). Every expected value is an example from
 * the package's readme; only `ms(60000) === '1m'` fails with the injected bug.
 */
export const DEMO_TEST_FILE = {
  /** Path relative to the package root; `node --test` finds it by its name. */
  path: 'test/demo.test.js',
  content: `'use strict';
// Tests of the documented behaviour of ms (every expected value is an example from readme.md),
// written for Node's built-in test runner: run them with \`npm test\` (node --test).
const test = require('node:test');
const assert = require('node:assert');
const ms = require('..');

test('parses time strings to milliseconds', () => {
  assert.strictEqual(ms('2 days'), 172800000);
  assert.strictEqual(ms('1d'), 86400000);
  assert.strictEqual(ms('10h'), 36000000);
  assert.strictEqual(ms('2.5 hrs'), 9000000);
  assert.strictEqual(ms('2h'), 7200000);
  assert.strictEqual(ms('1m'), 60000);
  assert.strictEqual(ms('5s'), 5000);
  assert.strictEqual(ms('1y'), 31557600000);
  assert.strictEqual(ms('100'), 100);
  assert.strictEqual(ms('-3 days'), -259200000);
  assert.strictEqual(ms('-1h'), -3600000);
  assert.strictEqual(ms('-200'), -200);
});

test('formats milliseconds in the short format', () => {
  assert.strictEqual(ms(60000), '1m');
  assert.strictEqual(ms(2 * 60000), '2m');
  assert.strictEqual(ms(-3 * 60000), '-3m');
  assert.strictEqual(ms(ms('10 hours')), '10h');
});

test('formats milliseconds in the long format', () => {
  assert.strictEqual(ms(60000, { long: true }), '1 minute');
  assert.strictEqual(ms(2 * 60000, { long: true }), '2 minutes');
  assert.strictEqual(ms(-3 * 60000, { long: true }), '-3 minutes');
  assert.strictEqual(ms(ms('10 hours'), { long: true }), '10 hours');
});
`,
} as const;

/** `scripts.test` the demo sets in the package's package.json (upstream: `mocha tests.js`). */
export const DEMO_TEST_SCRIPT = 'node --test';

/** Text `npm test` prints for the failing assertion (both the tap and the spec reporter). */
export const FAILURE_MARKER = "'60s' !== '1m'";

/**
 * The task given to the agent. It says what is wrong (the suite fails) and where to fix it (the
 * source, not the tests), not what the bug is.
 */
export const TASK_PROMPT =
  'The test suite of this package fails: `npm test` reports a failing test. ' +
  "Find the bug in the package's source code and fix it there. Do not change the tests: " +
  'they describe the documented behaviour. Then run `npm test` again to check that every test ' +
  'passes, and end with a one-sentence summary of the fix.';
