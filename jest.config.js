/** Unit tests live beside the code, integration and end-to-end tests under test/. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/services', '<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  // Scans every process log of the run for credentials; a match fails the run.
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // A safety net, not a budget: tests wait on events and progress. A hook that
  // starts a stack waits for every process's `listening` line, which takes
  // minutes when other suites load the machine (see PROCESS_READY_TIMEOUT_MS).
  testTimeout: 240_000,
  // Integration suites start real processes; two workers fit this 2-core machine.
  maxWorkers: 2,
};
