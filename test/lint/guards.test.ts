/**
 * The house guards catch what they exist to catch: each rule of eslint.config.mjs is run on code
 * that breaks it (and on code that does not), so that a rule that stops matching fails here.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { TranscriptEntry } from '../../src/common/transcript';
import { TranscriptEntrySchema } from '../../src/common/transcript';

const ROOT = join(__dirname, '..', '..');

/** One lint run: a rule of the project's config on code at a (virtual) path, or on a file on disk. */
interface LintCase {
  /** The rule (or rules) to run. */
  rule: string | readonly string[];
  filePath: string;
  /** Source to lint as if it were at `filePath`; absent: lint the file on disk. */
  code?: string;
}

/**
 * Lints every case in one ESLint process (test/lint/run-eslint.mjs: jest cannot load the ESM
 * config) and returns each case's messages as `<ruleId>: <message>`. Virtual files are linted
 * without type information.
 */
function lint(cases: readonly LintCase[]): string[][] {
  const input = {
    cases: cases.map((c) => ({ ...c, filePath: join(ROOT, c.filePath), noTypes: c.code !== undefined })),
  };
  const out = execFileSync(process.execPath, [join(__dirname, 'run-eslint.mjs')], {
    cwd: ROOT,
    input: JSON.stringify(input),
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(out) as string[][];
}

/** The rules that decide what a source file may import. */
const IMPORT_RULES = ['no-restricted-imports', 'import-x/no-restricted-paths'];

describe('lint guards', () => {
  // Deterministic code (workflows, engine, common) imports from an allow-list; each row is a hole
  // a deny-list had or could have: an I/O package, an I/O folder of src, a spelling that hides one.
  const flagged: Array<[string, string]> = [
    // Third-party I/O packages and Node built-ins.
    ['src/workflows/x.ts', "import { Client } from 'pg';"],
    ['src/engine/x.ts', "import { Client } from 'pg';"],
    ['src/common/x.ts', "import { Pool } from 'pg';"],
    ['src/workflows/x.ts', "import { Client } from '@modelcontextprotocol/sdk/client/index.js';"],
    ['src/workflows/x.ts', "import Ajv from 'ajv';"],
    ['src/engine/x.ts', "import { Parser } from 'web-tree-sitter';"],
    ['src/workflows/x.ts', "import fg from 'fast-glob';"],
    ['src/workflows/x.ts', "import { Connection } from '@temporalio/client';"],
    ['src/workflows/x.ts', "import { Worker } from '@temporalio/worker';"],
    ['src/workflows/x.ts', "import { Context } from '@temporalio/activity';"],
    ['src/engine/x.ts', "import Anthropic from '@anthropic-ai/sdk';"],
    ['src/common/x.ts', "import { Stream } from '@anthropic-ai/sdk/streaming';"],
    ['src/common/x.ts', "import { readFileSync } from 'node:fs';"],
    ['src/workflows/x.ts', "import { readFile } from 'fs/promises';"],
    ['src/engine/x.ts', "import { spawn } from 'child_process';"],
    ['src/workflows/x.ts', "import { Client } from '../../node_modules/pg';"],
    // zod: types only in workflows and engine (schemas live in src/common).
    ['src/engine/x.ts', "import { z } from 'zod';"],
    ['src/workflows/x.ts', "import { z } from 'zod';"],
    // Activities, however spelled; the MCP pool (src/mcp/pool.ts before issue 19).
    ['src/workflows/x.ts', "import { createActivities } from '../activities';"],
    ['src/common/x.ts', "import { createActivities } from '../activities';"],
    ['src/common/x.ts', "import { createCallModel } from '../activities/model/call-model';"],
    ['src/workflows/x.ts', "import { McpClientPool } from '../activities/mcp/pool';"],
    ['src/workflows/x.ts', "import type { McpClientPool } from '../activities/mcp/pool';"],
    ['src/workflows/x.ts', "import { createRunHooks } from '../activities/hooks/run-hooks';"],
    ['src/workflows/x.ts', "import { decideToolPermission } from '../activities/permissions/decide';"],
    ['src/engine/x.ts', "import { loadSessionContext } from '../activities/context/session-context';"],
    ['src/workflows/x.ts', "import { readSettingsEnv } from '../activities/settings-env';"],
    // Every other folder of src.
    ['src/engine/x.ts', "import { JsonlTranscriptStore } from '../../src/store/jsonl-store';"],
    ['src/workflows/x.ts', "import { sidecarEntry } from '../store/sidecar';"],
    ['src/workflows/x.ts', "import { loadConfig } from '../config';"],
    ['src/workflows/x.ts', "import { parseMcpConfigValue } from '../config-files/mcp-config';"],
    ['src/engine/x.ts', "import { parseRule } from '../config-files/permission-rules';"],
    ['src/workflows/x.ts', "import { connectClient } from '../connection/connect';"],
    ['src/workflows/x.ts', "import { QueryEngine } from '../client/query-engine';"],
    ['src/workflows/x.ts', "import { main } from '../cli/main';"],
    ['src/workflows/x.ts', "import { openRuntime } from '../host/runtime';"],
    ['src/engine/x.ts', "import { readServerState } from '../host/server-state';"],
    ['src/workflows/x.ts', "import { createRunnerWorker } from '../worker/worker';"],
    ['src/workflows/x.ts', "import { toolEnvironment } from '../env/child-env';"],
    ['src/engine/x.ts', "import { compileJsonSchema } from '../validation/json-schema';"],
    ['src/common/x.ts', "import { startFakeModelServer } from '../fake-model';"],
    ['src/workflows/x.ts', "import { QueryEngine } from '..';"],
    // patched() and deprecatePatch() only through the patch table (src/workflows/patches.ts).
    ['src/workflows/x.ts', "import { patched } from '@temporalio/workflow';"],
    ['src/workflows/x.ts', "import { condition, deprecatePatch } from '@temporalio/workflow';"],
    ['src/workflows/x.ts', "import * as wf from '@temporalio/workflow';"],
    ['src/engine/x.ts', "import { patched } from '@temporalio/workflow';"],
    ['src/common/x.ts', "import { patched } from '@temporalio/workflow';"],
    // src/common imports nothing else under src/, not even types (no cycle through types either).
    ['src/common/x.ts', "import type { TranscriptStore } from '../store/transcript-store';"],
    ['src/common/x.ts', "import type { PoolStatus } from '../engine/budget-pool';"],
    ['src/common/x.ts', "import type { Activities } from '../activities/types';"],
    // The client reads only the local server's state; the host and the worker never import the
    // client or the CLI; the shared layers import no activity or caller.
    ['src/client/x.ts', "import { startDevServer } from '../host/dev-server';"],
    ['src/client/x.ts', "import { openRuntime } from '../host/runtime';"],
    ['src/client/x.ts', "import { createRunnerWorker } from '../worker/worker';"],
    ['src/client/x.ts', "import { createActivities } from '../activities';"],
    ['src/client/x.ts', "import { main } from '../cli/main';"],
    ['src/host/x.ts', "import { QueryEngine } from '../client/query-engine';"],
    ['src/host/x.ts', "import { main } from '../cli/main';"],
    ['src/worker/x.ts', "import { connectClient } from '../client';"],
    ['src/worker/x.ts', "import type { QueryEngine } from '../client/query-engine';"],
    ['src/config-files/x.ts', "import { decideToolPermission } from '../activities/permissions/decide';"],
    ['src/store/x.ts', "import { storeMcpConfig } from '../client/stored-config';"],
    ['src/connection/x.ts', "import { openRuntime } from '../host/runtime';"],
  ];

  const allowed: Array<[string, string]> = [
    ['src/workflows/x.ts', "import type { Activities } from '../activities/types';"],
    ['src/workflows/x.ts', "import { proxyActivities } from '@temporalio/workflow';"],
    ['src/workflows/patches.ts', "import { patched } from '@temporalio/workflow';"],
    ['src/workflows/x.ts', "import { ApplicationFailure } from '@temporalio/common';"],
    ['src/workflows/x.ts', "import { addUsage } from '../common/usage';"],
    ['src/workflows/x.ts', "import { checkLimits } from '../engine/limits';"],
    ['src/engine/x.ts', "import { addUsage } from '../common/usage';"],
    ['src/engine/x.ts', "import type { z } from 'zod';"],
    ['src/common/x.ts', "import { z } from 'zod';"],
    ['src/common/x.ts', "import { addUsage } from './usage';"],
    ['src/activities/x.ts', "import { readFileSync } from 'node:fs';"],
    ['src/activities/x.ts', "import { parseRule } from '../config-files/permission-rules';"],
    ['src/client/x.ts', "import { readLiveServerState } from '../host/server-state';"],
    ['src/client/x.ts', "import type { Activities } from '../activities';"],
    ['src/connection/x.ts', "import { readLiveServerState } from '../host/server-state';"],
    ['src/cli/x.ts', "import { openRuntime } from '../host/runtime';"],
    ['src/host/x.ts', "import { createRunnerWorker } from '../worker/worker';"],
    ['src/worker/x.ts', "import { createActivities } from '../activities';"],
  ];
  const use = (line: string): string =>
    /^import type /.test(line)
      ? `export type Used = ${importedName(line)};`
      : `export const used = [${importedName(line)}];`;
  const imports = (rows: Array<[string, string]>): LintCase[] =>
    rows.map(([filePath, line]) => ({ rule: IMPORT_RULES, filePath, code: `${line}\n${use(line)}\n` }));
  const cases: LintCase[] = [
    ...imports(flagged),
    ...imports(allowed),
    { rule: 'import-x/no-cycle', filePath: 'test/lint/fixtures/cycle/a.ts' },
    { rule: 'import-x/no-cycle', filePath: 'test/lint/fixtures/type-cycle/a.ts' },
    { rule: 'no-restricted-syntax', filePath: 'src/store/x.ts', code: 'export const line = { v: 1, uuid: "a" };\n' },
    { rule: 'no-restricted-syntax', filePath: 'src/store/x.ts', code: 'const V = 1;\nexport const line = { v: V };\n' },
    { rule: 'max-lines-per-function', filePath: 'src/workflows/x.ts', code: longFunction(81) },
    { rule: 'max-lines-per-function', filePath: 'src/workflows/x.ts', code: longFunction(80) },
    { rule: 'max-lines-per-function', filePath: 'src/client/x.ts', code: longFunction(81) },
    { rule: 'max-lines-per-function', filePath: 'src/activities/tool-run/x.ts', code: longFunction(61) },
    { rule: 'max-lines-per-function', filePath: 'src/activities/tool-run/x.ts', code: longFunction(60) },
    { rule: 'max-lines-per-function', filePath: 'src/activities/run-tool.ts', code: longFunction(61) },
  ];
  let results: string[][] = [];
  beforeAll(() => {
    results = lint(cases);
  }, 120_000);
  const resultOf = (i: number): string[] => results[i] ?? ['(not linted)'];

  test.each(flagged.map((row, i) => [...row, i] as const))('lint: %s may not import it: %s', (_file, _line, i) => {
    expect(resultOf(i).length).toBeGreaterThan(0);
    for (const m of resultOf(i)) expect(m).toMatch(/^(no-restricted-imports|import-x\/no-restricted-paths):/);
  });

  test.each(allowed.map((row, i) => [...row, flagged.length + i] as const))(
    'lint: %s may import it: %s',
    (_file, _line, i) => {
      expect(resultOf(i)).toEqual([]);
    },
  );

  test('lint: a value-import cycle is an error (import-x/no-cycle); the same cycle through types is not', () => {
    const at = flagged.length + allowed.length;
    expect(resultOf(at).map((m) => m.split(':')[0])).toEqual(['import-x/no-cycle']);
    expect(resultOf(at + 1)).toEqual([]);
  });

  test('lint: a literal `v` in src is an error; the version constant is not', () => {
    const at = flagged.length + allowed.length + 2;
    expect(resultOf(at)).toEqual([
      'no-restricted-syntax: Use the version constant (e.g. TRANSCRIPT_SCHEMA_VERSION), not a literal `v`.',
    ]);
    expect(resultOf(at + 1)).toEqual([]);
  });

  test('lint: a function in src/workflows over 80 lines is an error; 80 lines is not, nor a long function elsewhere', () => {
    const at = flagged.length + allowed.length + 4;
    expect(resultOf(at).map((m) => m.split(':')[0])).toEqual(['max-lines-per-function']);
    expect(resultOf(at + 1)).toEqual([]);
    expect(resultOf(at + 2)).toEqual([]);
  });

  test('lint: a function of the tool run (run-tool.ts, tool-run/) over 60 lines is an error; 60 lines is not', () => {
    const at = flagged.length + allowed.length + 7;
    expect(resultOf(at).map((m) => m.split(':')[0])).toEqual(['max-lines-per-function']);
    expect(resultOf(at + 1)).toEqual([]);
    expect(resultOf(at + 2).map((m) => m.split(':')[0])).toEqual(['max-lines-per-function']);
  });
});

/** A function of `lines` lines (its first and last line included). */
function longFunction(lines: number): string {
  const body = Array.from({ length: lines - 2 }, (_, i) => `  void ${i};`).join('\n');
  return `export function f(): void {\n${body}\n}\n`;
}

describe('transcript line type', () => {
  test('TranscriptEntry: a field the schema does not declare does not compile, and is kept when parsed', () => {
    const line: TranscriptEntry = {
      type: 'user',
      uuid: 'u',
      parentUuid: null,
      sessionId: 's',
      timestamp: '2026-01-01T00:00:00.000Z',
      // @ts-expect-error: not declared in TranscriptEntrySchema (typecheck fails if this compiles)
      undeclared: 1,
    };
    // @ts-expect-error: reading an undeclared field does not compile either
    expect(line.undeclared).toBe(1);
    // Lines of newer versions (or of Claude Code) keep their extra fields through a parse.
    expect(TranscriptEntrySchema.parse(line)).toMatchObject({ undeclared: 1 });
  });

  test('TranscriptEntry: the fields the runner writes and reads back are declared', () => {
    const declared = Object.keys(TranscriptEntrySchema.shape);
    for (const field of ['cwd', 'toolRun', 'invalidToolInputs', 'maxTokens', 'billing', 'requestId', 'turnId']) {
      expect(declared).toContain(field);
    }
  });
});

/** The first imported binding of an import line (for a use that keeps it from being unused). */
function importedName(line: string): string {
  const m = /import\s+(?:\{\s*(\w+)|(\w+))/.exec(line);
  return m?.[1] ?? m?.[2] ?? 'undefined';
}
