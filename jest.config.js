/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
  testTimeout: 120_000,
  // Two files at a time on a 2-core machine: most suites wait on servers, timers and child
  // processes rather than compute, so two in parallel halve the wall time (44 -> ~22 min measured).
  // Each file uses its own task queues and data directories beside the one shared dev server.
  maxWorkers: Number(process.env['JEST_MAX_WORKERS'] ?? 2),
  // A leaked handle (a child's pipe, a client connection) must not keep CI waiting after the run.
  forceExit: true,
};
