// @ts-check
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.temporal/**', 'coverage/**', '**/*.js', '**/*.mjs'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/explicit-module-boundary-types': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      eqeqeq: ['error', 'always'],
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // Deterministic code: runs in the Temporal sandbox (or is shared with it). No I/O, no SDK.
    files: ['src/workflows/**/*.ts', 'src/engine/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...nodeBuiltins.map((name) => ({
              name,
              message: 'Workflow and engine code must stay deterministic: no Node built-ins.',
            })),
            { name: '@anthropic-ai/sdk', message: 'Model calls belong in activities.' },
            { name: '@temporalio/activity', message: 'Activities are imported as types only.' },
            { name: '@temporalio/client', message: 'Not available in the workflow sandbox.' },
            { name: '@temporalio/worker', message: 'Not available in the workflow sandbox.' },
          ],
          patterns: [
            {
              group: ['../activities/*', '!../activities/types'],
              message: 'Import activity types only (import type).',
              allowTypeImports: true,
            },
            {
              group: ['../store/*', '../config/*', '../client/*', '../worker/*', '../cli/*'],
              message: 'I/O modules are not allowed here.',
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
  {
    // The client entry loads no worker: a process that only starts and steers turns must not pull
    // in the native worker, the workflow bundler, the dev-server launcher or the Anthropic SDK.
    files: ['src/client/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: '@temporalio/worker', message: 'Client code loads no worker (see src/worker).' },
            { name: '@anthropic-ai/sdk', message: 'Model calls belong in activities.' },
          ],
          patterns: [
            {
              group: ['../worker', '../worker/*', '../activities', '../activities/*', '../cli/*'],
              message: 'Client code loads no worker, activities or CLI code.',
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/explicit-module-boundary-types': 'off' },
  },
);
