import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { withoutBackgroundTasks } from '../../../../src/activities/tools/bash';
import { toolsForModel } from '../../../../src/activities/tools/registry';

const RECORDINGS = join(__dirname, '..', '..', '..', 'conformance', 'recordings', 'async', 'claude-2.1.328');

/** The property names of Claude Code's recorded Bash schema in a scenario's first request. */
function recordedBashProperties(scenario: string): string[] {
  const requests = JSON.parse(readFileSync(join(RECORDINGS, scenario, 'requests.json'), 'utf8')) as Array<{
    body: { tools: Array<{ name: string; input_schema: { properties: Record<string, unknown> } }> };
  }>;
  return Object.keys(requests[0]!.body.tools.find((t) => t.name === 'Bash')!.input_schema.properties);
}

describe('Bash with background tasks off (CLAUDE_CODE_DISABLE_BACKGROUND_TASKS=1)', () => {
  const bash = toolsForModel(['Bash'])[0]!;

  test("withoutBackgroundTasks: run_in_background leaves Bash's schema and description, as in 2.1.328's recording", () => {
    const off = withoutBackgroundTasks(bash);
    const props = (s: typeof bash): string[] =>
      Object.keys((s.input_schema as unknown as { properties: object }).properties);
    expect(props(bash)).toContain('run_in_background');
    expect(props(off)).toEqual(props(bash).filter((p) => p !== 'run_in_background'));
    // The same change as Claude Code's: its two recordings differ by exactly that property.
    expect(recordedBashProperties('tools-background-disabled')).toEqual(
      recordedBashProperties('tools-async').filter((p) => p !== 'run_in_background'),
    );
    expect(bash.description).toContain('run_in_background');
    expect(off.description).not.toContain('run_in_background');
    expect(off.description.length).toBeGreaterThan(200);
  });

  test('withoutBackgroundTasks: other tools and the cached spec are left as they are', () => {
    const read = toolsForModel(['Read'])[0]!;
    expect(withoutBackgroundTasks(read)).toBe(read);
    withoutBackgroundTasks(bash);
    expect(
      Object.keys((toolsForModel(['Bash'])[0]!.input_schema as unknown as { properties: object }).properties),
    ).toContain('run_in_background');
  });
});
