/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
  testTimeout: 120_000,
  // Tests spawn servers and workers; run files one at a time on a 2-core machine.
  maxWorkers: 1,
  // A leaked handle (a child's pipe, a client connection) must not keep CI waiting after the run.
  forceExit: true,
};
