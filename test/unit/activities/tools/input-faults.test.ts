import { executeTool } from '../../../../src/activities/tools/execute';
import { inputFaultOf, NUL_CHECKED_FIELDS } from '../../../../src/activities/tools/input-faults';
import { BUILTIN_TOOL_NAMES } from '../../../../src/common/tools';
import { makeSession, text, type TestSession } from './helpers';

let s: TestSession;
beforeEach(async () => {
  s = await makeSession();
});
afterEach(async () => {
  await s.cleanup();
});

/** A valid input of each tool, with `field` holding a NUL byte. */
function inputWithNul(tool: string, field: string, dir: string): Record<string, unknown> {
  const base: Record<string, Record<string, unknown>> = {
    Read: { file_path: `${dir}/f.txt` },
    Write: { file_path: `${dir}/f.txt`, content: 'x' },
    Edit: { file_path: `${dir}/f.txt`, old_string: 'a', new_string: 'b' },
    Glob: { pattern: '*.txt', path: dir },
    Grep: { pattern: 'x', path: dir, glob: '*.txt', type: 'js' },
    Bash: { command: 'echo hi' },
  };
  const input = { ...base[tool] };
  input[field] = `${String(input[field] ?? 'x')}\u0000b`;
  return input;
}

describe('inputFaultOf', () => {
  test('inputFaultOf: every built-in tool has its path and pattern fields checked (Bash its command, below)', () => {
    expect(Object.keys(NUL_CHECKED_FIELDS).sort()).toEqual([...BUILTIN_TOOL_NAMES].filter((t) => t !== 'Bash').sort());
  });

  test('inputFaultOf: a NUL byte in a checked field names the tool and the field', () => {
    for (const [tool, fields] of Object.entries(NUL_CHECKED_FIELDS)) {
      for (const field of fields) {
        expect(inputFaultOf(tool, inputWithNul(tool, field, '/tmp'))).toBe(
          `${tool} ${field} cannot contain null bytes (\\0). Remove the null byte and try again.`,
        );
      }
    }
  });

  test('inputFaultOf: file contents and replacement text may hold NUL bytes', () => {
    expect(inputFaultOf('Write', { file_path: '/tmp/f', content: 'a\0b' })).toBeUndefined();
    expect(inputFaultOf('Edit', { file_path: '/tmp/f', old_string: 'a\0', new_string: '\0b' })).toBeUndefined();
  });

  test('inputFaultOf: other tools and non-object inputs have no fault', () => {
    expect(inputFaultOf('mcp__x__y', { path: 'a\0b' })).toBeUndefined();
    expect(inputFaultOf('Read', null)).toBeUndefined();
    expect(inputFaultOf('Read', { file_path: 7 })).toBeUndefined();
  });
});

describe('executeTool: NUL bytes', () => {
  test('executeTool: a NUL byte in any checked field of any tool is an is_error tool_use_error, and nothing runs', async () => {
    for (const [tool, fields] of Object.entries(NUL_CHECKED_FIELDS)) {
      for (const field of fields) {
        const input = inputWithNul(tool, field, s.dir);
        const out = await executeTool(tool, input, s.ctx);
        expect(out.isError).toBe(true);
        expect(out.outcome).toBe('invalid');
        expect(text(out)).toBe(
          `<tool_use_error>${tool} ${field} cannot contain null bytes (\\0). Remove the null byte and try again.</tool_use_error>`,
        );
      }
    }
    const fs = await import('node:fs');
    expect(fs.existsSync(s.p('ran'))).toBe(false);
    expect(fs.existsSync(s.p('f.txt'))).toBe(false);
  });
});

describe('executeTool: control characters in a Bash command', () => {
  test("executeTool: Claude Code's hidden control characters (C0 but tab and newline, DEL, C1) are refused before anything runs; tab and other Unicode pass", async () => {
    const fs = await import('node:fs');
    for (const c of ['\u0000', '\u0001', '\u001b', '\r', '\u007f', '\u0085']) {
      const out = await executeTool('Bash', { command: `touch ${s.p('ran')}${c}` }, s.ctx);
      expect(out.outcome).toBe('invalid');
      expect(text(out)).toContain('command contains control characters that would be hidden in the approval dialog');
    }
    expect(fs.existsSync(s.p('ran'))).toBe(false);
    const tab = await executeTool('Bash', { command: `touch\t${s.p('ran')} # \u200b` }, s.ctx);
    expect(tab.isError).toBe(false);
    expect(fs.existsSync(s.p('ran'))).toBe(true);
  });
});
