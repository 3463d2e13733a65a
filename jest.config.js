const path = require('node:path');

// The tests' Python tools (moto_server, cfn-lint, python3 with apache-otava) come from the project's .venv,
// which `npm test`'s pretest (test/setup/ensure-tools.sh) fills: first on the PATH of the tests and their children.
const venvBin = path.join(__dirname, '.venv', 'bin');
if (!(process.env.PATH ?? '').split(path.delimiter).includes(venvBin))
  process.env.PATH = [venvBin, process.env.PATH].filter(Boolean).join(path.delimiter);

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // measured vs predicted throttling needs a quiet machine (5 minutes of real throttling; its precondition fails
  // when the machine cannot drive the load): run it on its own with `npm run test:throttling`
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/timing/local-throttling.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }], // isolatedModules: in tsconfig.json
  },
  testTimeout: 30000,
};
