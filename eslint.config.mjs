// @ts-check
import tseslint from 'typescript-eslint';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';

/**
 * Module specifiers of the activities however they are written: a bare folder (`'../activities'`,
 * whose index pulls in the Anthropic SDK), a file in it, or a deeper relative path. Workflows
 * import them as types only (for `proxyActivities`).
 */
const ACTIVITIES_MODULE = String.raw`^(\.{1,2}/)+(.*/)?activities(/.*)?$`;

/**
 * Package specifiers deterministic code may not import: every package but `@temporalio/workflow`
 * and `@temporalio/common` (and zod, ruled on below). Node built-ins, the Anthropic and MCP SDKs,
 * `pg` and every other I/O package are caught here, so a new dependency is refused until it is
 * allowed on purpose.
 */
const NOT_SANDBOX_PACKAGE = String.raw`^(?!\.|@temporalio/(workflow|common)$|zod$)`;

/** Messages of the deterministic-code allow-list. */
const SANDBOX_ONLY =
  'Workflow, engine and common code stays deterministic: it imports only @temporalio/workflow, @temporalio/common, zod types and src/{common,engine,workflows}.';

/**
 * What deterministic code may import, by resolved path (so a relative path into node_modules or
 * another folder is caught however it is spelled): its folders, the allowed packages, and for
 * workflows the activities' interface (types only, by the rule above).
 */
const SANDBOX_PACKAGES = [
  './node_modules/@temporalio/workflow',
  './node_modules/@temporalio/common',
  './node_modules/zod',
];
const SANDBOX_ZONES = [
  {
    target: './src/workflows',
    except: ['./src/common', './src/engine', './src/workflows', './src/activities/types.ts'],
  },
  { target: './src/engine', except: ['./src/common', './src/engine', './src/workflows'] },
  {
    target: './src/common',
    except: ['./src/common'],
    message: `${SANDBOX_ONLY} src/common imports nothing else under src/: its types sit below every layer.`,
  },
].map((z) => ({ message: SANDBOX_ONLY, ...z, except: [...z.except, ...SANDBOX_PACKAGES], from: '.' }));

/**
 * `patched` and `deprecatePatch` are imported by src/workflows/patches.ts only: every patch is a
 * row of its table (since when, the old behaviour, its replay fixture, when it may go).
 */
const PATCHES_ONLY = {
  name: '@temporalio/workflow',
  importNames: ['patched', 'deprecatePatch'],
  message:
    'Patch through src/workflows/patches.ts (isPatched): one table of every patch id, its old behaviour and its replay fixture.',
};

/**
 * The deterministic-code rule for one folder; `zodValues`: zod schemas may be built there;
 * `patchTable`: the one module that may call `patched()`.
 */
const sandboxImports = (zodValues, patchTable = false) => [
  'error',
  {
    paths: [
      ...(zodValues
        ? []
        : [{ name: 'zod', allowTypeImports: true, message: `${SANDBOX_ONLY} (zod schemas live in src/common)` }]),
      ...(patchTable ? [] : [PATCHES_ONLY]),
    ],
    patterns: [
      { regex: NOT_SANDBOX_PACKAGE, message: SANDBOX_ONLY },
      { regex: ACTIVITIES_MODULE, message: 'Import activity types only (import type).', allowTypeImports: true },
    ],
  },
];

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
    // wire types workflows import). An allow-list: @temporalio/workflow, @temporalio/common, zod
    // types, and src/{common,engine,workflows} (workflows also `import type` the activities'
    // interface from src/activities/types.ts); src/common imports nothing else under src/.
    files: ['src/workflows/**/*.ts', 'src/engine/**/*.ts'],
    rules: {
      'no-restricted-imports': sandboxImports(false),
    },
  },
  {
    // src/common may build zod schemas (the transcript line's, which the store parses with); the
    // workflows import only types from those modules, so zod never enters the workflow bundle.
    files: ['src/common/**/*.ts'],
    rules: {
      'no-restricted-imports': sandboxImports(true),
    },
  },
  {
    // Workflow code reads as its loop: a step that grows past a screen is two steps (Turn, Session
    // and BudgetPool are classes with one method per step; state changes are methods of their state).
    files: ['src/workflows/**/*.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 80 }],
    },
  },
  {
    // A tool run is steps (read the call, plan it, execute, snapshot, record), each a screen at
    // most: the 263-line runToolOnce it replaced must not grow back.
    files: ['src/activities/run-tool.ts', 'src/activities/tool-run/**/*.ts', 'src/engine/tool-call-plan.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 60 }],
    },
  },
  {
    // The patch table: the one place that calls patched() and deprecatePatch().
    files: ['src/workflows/patches.ts'],
    rules: {
      'no-restricted-imports': sandboxImports(false, true),
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
              regex: String.raw`^(\.{1,2}/)+(.*/)?(worker|activities|cli)(/.*)?$`,
              message: 'Client code loads no worker, activities or CLI code.',
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
  {
    // Which source folders may import which, by resolved path (any spelling): the
    // deterministic-code allow-list (SANDBOX_ZONES), the client's one look at the local server, and
    // the layers below the callers. The local-server wiring (src/host) and the worker process
    // (src/worker) never import the client or the CLI; the shared layers below them (the store,
    // the configs, the connection, the environment rules, validation) import neither those nor
    // activities, workflows, host or worker code (the connection reads only the server state).
    files: ['src/**/*.ts'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          basePath: import.meta.dirname,
          zones: [
            ...SANDBOX_ZONES,
            {
              target: './src/client',
              from: './src/host',
              except: ['./server-state.ts'],
              message: 'Client code reads only the local server state (src/host/server-state.ts).',
            },
            {
              target: ['./src/host', './src/worker'],
              from: ['./src/client', './src/cli'],
              message: 'The local server and the worker never import client or CLI code.',
            },
            {
              target: ['./src/store', './src/config', './src/config-files', './src/env', './src/validation'],
              from: ['./src/activities', './src/client', './src/cli', './src/host', './src/worker', './src/workflows'],
              message: 'Shared layers import no activity, workflow, client, CLI, host or worker code.',
            },
            {
              target: './src/connection',
              from: ['./src/activities', './src/client', './src/cli', './src/worker', './src/workflows'],
              message: 'The connection imports no activity, workflow, client, CLI or worker code.',
            },
            {
              target: './src/connection',
              from: './src/host',
              except: ['./server-state.ts'],
              message: 'The connection reads only the local server state (src/host/server-state.ts).',
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
