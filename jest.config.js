/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // measured vs predicted throttling needs a quiet machine (5 minutes of real throttling; its precondition fails
  // when the machine cannot drive the load): run it on its own with `npm run test:throttling`
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/e2e/local-throttling.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { isolatedModules: true, tsconfig: 'tsconfig.json' }],
  },
  testTimeout: 30000,
};
