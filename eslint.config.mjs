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
);
