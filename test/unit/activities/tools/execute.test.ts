import { z } from 'zod';
import { executeTool } from '../../../../src/activities/tools/execute';
import { BUILTIN_TOOLS, toolsForModel, type AnyToolDefinition } from '../../../../src/activities/tools/registry';
import { BUILTIN_TOOL_NAMES, READ_ONLY_TOOLS, TOOL_NAMES, WEB_TOOL_NAMES } from '../../../../src/common/tools';
import { makeSession, text, type TestSession } from './helpers';

let s: TestSession;
beforeEach(async () => {
  s = await makeSession();
});
afterEach(async () => {
  await s.cleanup();
});

describe('executeTool', () => {
  test('executeTool: an unknown tool is an error result, not a throw', async () => {
    const out = await executeTool('Teleport', {}, s.ctx);
    expect(out).toEqual({
      content: '<tool_use_error>Error: No such tool available: Teleport</tool_use_error>',
      isError: true,
      structured: 'Error: No such tool available: Teleport',
      outcome: 'invalid',
    });
  });

  test('executeTool: a missing required field is an InputValidationError', async () => {
    const out = await executeTool('Read', {}, s.ctx);
    expect(out.outcome).toBe('invalid');
    expect(out.isError).toBe(true);
    expect(text(out)).toBe(
      '<tool_use_error>InputValidationError: Read failed due to the following issue:\nThe required parameter `file_path` is missing</tool_use_error>',
    );
  });

  test('executeTool: missing, mistyped and unexpected parameters are each worded', async () => {
    const out = await executeTool('Grep', { pattern: 7, '-i': 'yes', include: '*.ts' }, s.ctx);
    expect(out.outcome).toBe('invalid');
    expect(text(out)).toBe(
      [
        '<tool_use_error>InputValidationError: Grep failed due to the following issues:',
        'The parameter `pattern` type is expected as `string` but provided as `number`',
        'The parameter `-i` type is expected as `boolean` but provided as `string`',
        'An unexpected parameter `include` was provided</tool_use_error>',
      ].join('\n'),
    );
    expect(String(out.structured)).toMatch(/^InputValidationError: \[\n {2}\{/);
  });

  test('executeTool: other issues (a bad enum value, out of range) are given as the zod issues in JSON', async () => {
    const out = await executeTool('Grep', { pattern: 'x', output_mode: 'lines', head_limit: -1 }, s.ctx);
    expect(out.outcome).toBe('invalid');
    const body = text(out)
      .replace(/^<tool_use_error>InputValidationError: /, '')
      .replace(/<\/tool_use_error>$/, '');
    const issues = JSON.parse(body) as Array<{ code: string; path: string[] }>;
    expect(issues.map((i) => [i.code, i.path.join('.')])).toEqual([
      ['invalid_value', 'output_mode'],
      ['too_small', 'head_limit'],
    ]);
  });

  test('executeTool: non-object input is an InputValidationError', async () => {
    const out = await executeTool('Bash', 'ls', s.ctx);
    expect(text(out)).toContain('The input must be a JSON object, but was provided as `string`');
  });

  test('executeTool: a non-integer line number is reported as expecting an integer', async () => {
    const out = await executeTool('Read', { file_path: 'x', offset: 1.5 }, s.ctx);
    expect(text(out)).toContain('The parameter `offset` type is expected as `integer` but provided as `number`');
  });

  test('executeTool: a tool that throws becomes an error result', async () => {
    const boom: AnyToolDefinition = {
      name: 'Boom',
      description: 'throws',
      inputSchema: z.object({}),
      readOnly: true,
      idempotent: true,
      run: () => Promise.reject(new Error('kaboom')),
    };
    const out = await executeTool('Boom', {}, s.ctx, new Map([['Boom', boom]]));
    expect(out).toEqual({
      content: '<tool_use_error>Error: kaboom</tool_use_error>',
      isError: true,
      structured: 'Error: kaboom',
      outcome: 'error',
    });
  });

  test('executeTool: Bash accepts dangerouslyDisableSandbox (there is no sandbox to leave)', async () => {
    const out = await executeTool('Bash', { command: 'echo ok', dangerouslyDisableSandbox: true }, s.ctx);
    expect(out.outcome).toBe('ok');
    expect(text(out)).toBe('ok');
  });

  test('executeTool: an unknown key is refused, as in Claude Code', async () => {
    const out = await executeTool('Read', { path: 'a.txt' }, s.ctx);
    expect(text(out)).toBe(
      '<tool_use_error>InputValidationError: Read failed due to the following issues:\nThe required parameter `file_path` is missing\nAn unexpected parameter `path` was provided</tool_use_error>',
    );
  });
});

describe('registry', () => {
  test('registry: BUILTIN_TOOLS holds the six tools and the two web tools with readOnly/idempotent flags', () => {
    expect([...BUILTIN_TOOLS.keys()].sort()).toEqual([...TOOL_NAMES].sort());
    for (const [name, tool] of BUILTIN_TOOLS) {
      expect(tool.name).toBe(name);
      // The web tools change no file: safe to run again after a crash.
      const web = (WEB_TOOL_NAMES as readonly string[]).includes(name);
      expect(tool.readOnly).toBe(web || READ_ONLY_TOOLS.has(name));
      expect(tool.idempotent).toBe(web || READ_ONLY_TOOLS.has(name));
      expect(tool.description.length).toBeGreaterThan(100);
    }
    expect(TOOL_NAMES.slice(0, BUILTIN_TOOL_NAMES.length)).toEqual([...BUILTIN_TOOL_NAMES]);
  });

  test('registry: toolsForModel gives JSON Schemas matching Claude Code field names', () => {
    const tools = toolsForModel(['Read', 'Write', 'Edit', 'Bash', 'Glob', 'Grep']);
    expect(tools.map((t) => t.name)).toEqual(['Read', 'Write', 'Edit', 'Bash', 'Glob', 'Grep']);
    const props = (i: number): string[] => Object.keys((tools[i]?.input_schema.properties ?? {}) as object);
    expect(props(0)).toEqual(['file_path', 'offset', 'limit', 'pages']);
    expect(props(1)).toEqual(['file_path', 'content']);
    expect(props(2)).toEqual(['file_path', 'old_string', 'new_string', 'replace_all']);
    expect(props(3)).toEqual(['command', 'timeout', 'description', 'run_in_background', 'dangerouslyDisableSandbox']);
    expect(props(4)).toEqual(['pattern', 'path']);
    expect(props(5)).toEqual([
      'pattern',
      'path',
      'glob',
      'type',
      'output_mode',
      '-i',
      '-n',
      '-o',
      '-B',
      '-A',
      '-C',
      'context',
      'head_limit',
      'offset',
      'multiline',
    ]);
    for (const t of tools) {
      expect(t.input_schema.type).toBe('object');
      expect(t.input_schema.additionalProperties).toBe(false);
      expect(t.input_schema).not.toHaveProperty('$schema');
      expect(JSON.stringify(t.input_schema)).not.toContain(String(Number.MAX_SAFE_INTEGER));
    }
    expect(tools[0]?.input_schema.required).toEqual(['file_path']);
    expect(tools[2]?.input_schema.required).toEqual(['file_path', 'old_string', 'new_string']);
    expect((tools[3]?.input_schema.properties as Record<string, { maximum?: number }>).timeout?.maximum).toBe(7200000); // the background bound; a foreground timeout is refused above 600000 (bash.test.ts)
  });

  test('registry: toolsForModel rejects an unknown name', () => {
    expect(() => toolsForModel(['Read', 'Nope'])).toThrow('Unknown built-in tool: Nope');
  });
});
