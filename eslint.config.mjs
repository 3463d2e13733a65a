import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '.tmp/',
      '.venv/',
      'node_modules/',
      'cdk.out/',
      'coverage/',
      'loader/**/target/',
      'fleetbench-results/',
      '**/*.js',
      '**/*.mjs',
      'dist/',
    ],
  },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  // No function in lib/ or stacks/ over 100 lines, blank lines and comments counted (issue #27).
  {
    files: ['lib/**/*.ts', 'stacks/**/*.ts'],
    rules: {
      'max-lines-per-function': [
        'error',
        { max: 100, skipBlankLines: false, skipComments: false, IIFEs: true },
      ],
    },
  },
);
