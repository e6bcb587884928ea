// @ts-check
import tseslint from 'typescript-eslint';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

/**
 * Module specifiers of the runner's I/O layers, however they are written: a bare folder
 * (`'../activities'`, whose index pulls in the Anthropic SDK), a file in it, or a deeper relative
 * path (`'../../src/store/jsonl-store'`). `activities/types` (types only) is allowed.
 */
const ACTIVITIES_MODULE = String.raw`^(\.{1,2}/)+(.*/)?activities(/(?!types$).*)?$`;
const IO_MODULES = String.raw`^(\.{1,2}/)+(.*/)?(store|config|client|worker|cli|fake-model)(/.*)?$`;

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.temporal/**',
      'coverage/**',
      '**/*.js',
      '**/*.mjs',
      // Files that break the rules on purpose; test/lint checks that each rule catches its fixture.
      'test/lint/fixtures/**',
    ],
  },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.d.ts', '.js', '.json'] })],
    },
    rules: {
      // A value-import cycle makes module initialization order matter; type-only imports are fine.
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/explicit-module-boundary-types': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      eqeqeq: ['error', 'always'],
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          // State that outlives a process carries a schema version: name it, so a bump reaches every writer.
          selector: "Property[key.name='v'][value.type='Literal'][value.raw=/^[0-9]+$/]",
          message: 'Use the version constant (e.g. TRANSCRIPT_SCHEMA_VERSION), not a literal `v`.',
        },
      ],
    },
  },
  {
    // Deterministic code: runs in the Temporal sandbox, or is shared with it (src/common holds the
    // wire types workflows import). No Node built-ins, no SDK, no I/O modules.
    files: ['src/workflows/**/*.ts', 'src/engine/**/*.ts', 'src/common/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...nodeBuiltins.map((name) => ({
              name,
              message: 'Workflow, engine and common code must stay deterministic: no Node built-ins.',
            })),
            { name: '@temporalio/activity', message: 'Activities are imported as types only.' },
            { name: '@temporalio/client', message: 'Not available in the workflow sandbox.' },
            { name: '@temporalio/worker', message: 'Not available in the workflow sandbox.' },
          ],
          patterns: [
            {
              regex: '^@anthropic-ai/sdk(/.*)?$',
              message: 'Model calls belong in activities.',
            },
            {
              regex: ACTIVITIES_MODULE,
              message: 'Import activity types only (import type), or activities/types.',
              allowTypeImports: true,
            },
            {
              regex: IO_MODULES,
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
