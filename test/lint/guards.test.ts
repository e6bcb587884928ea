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
  rule: string;
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

describe('lint guards', () => {
  const flagged: Array<[string, string]> = [
    ['src/workflows/x.ts', "import { createActivities } from '../activities';"],
    ['src/common/x.ts', "import { createActivities } from '../activities';"],
    ['src/common/x.ts', "import { createCallModel } from '../activities/model/call-model';"],
    ['src/engine/x.ts', "import { JsonlTranscriptStore } from '../../src/store/jsonl-store';"],
    ['src/workflows/x.ts', "import { loadConfig } from '../config';"],
    ['src/workflows/x.ts', "import { QueryEngine } from '../client/query-engine';"],
    ['src/common/x.ts', "import { startFakeModelServer } from '../fake-model';"],
    ['src/common/x.ts', "import { readFileSync } from 'node:fs';"],
    ['src/workflows/x.ts', "import { readFile } from 'fs/promises';"],
    ['src/engine/x.ts', "import Anthropic from '@anthropic-ai/sdk';"],
    ['src/common/x.ts', "import { Stream } from '@anthropic-ai/sdk/streaming';"],
    ['src/workflows/x.ts', "import { Context } from '@temporalio/activity';"],
  ];

  const allowed: Array<[string, string]> = [
    ['src/workflows/x.ts', "import type { Activities } from '../activities';"],
    ['src/common/x.ts', "import type { TranscriptStore } from '../store/transcript-store';"],
    ['src/workflows/x.ts', "import type { Activities } from '../activities/types';"],
    ['src/workflows/x.ts', "import { proxyActivities } from '@temporalio/workflow';"],
    ['src/workflows/x.ts', "import { addUsage } from '../common/usage';"],
    ['src/activities/x.ts', "import { readFileSync } from 'node:fs';"],
  ];
  const imports = (rows: Array<[string, string]>, use: (line: string) => string): LintCase[] =>
    rows.map(([filePath, line]) => ({ rule: 'no-restricted-imports', filePath, code: `${line}\n${use(line)}\n` }));
  const cases: LintCase[] = [
    ...imports(flagged, (line) => `export const used = [${importedName(line)}];`),
    ...imports(allowed, () => 'export const used = 1;'),
    { rule: 'import-x/no-cycle', filePath: 'test/lint/fixtures/cycle/a.ts' },
    { rule: 'import-x/no-cycle', filePath: 'test/lint/fixtures/type-cycle/a.ts' },
    { rule: 'no-restricted-syntax', filePath: 'src/store/x.ts', code: 'export const line = { v: 1, uuid: "a" };\n' },
    { rule: 'no-restricted-syntax', filePath: 'src/store/x.ts', code: 'const V = 1;\nexport const line = { v: V };\n' },
  ];
  let results: string[][] = [];
  beforeAll(() => {
    results = lint(cases);
  }, 120_000);
  const resultOf = (i: number): string[] => results[i] ?? ['(not linted)'];

  test.each(flagged.map((row, i) => [...row, i] as const))('lint: %s may not import it: %s', (_file, _line, i) => {
    expect(resultOf(i)).toHaveLength(1);
    expect(resultOf(i)[0]).toMatch(/^no-restricted-imports:/);
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
});

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
