import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The rule behind outsider finding F2 (`--disallowedTools Agent` ran subagents): a tool the
 * workflow answers itself (it `handles` the name instead of sending the call to `runTool`) must
 * hand the call's permission to the activity that reads the call, which writes the denial
 * (src/activities/agents/tool-result-line.ts `writeDenialIfDenied`). Each such handler is found
 * by its `handles(name: string)` method; each of its `acts.read…Call` / `planAgent` calls passes
 * `permission: call.permission`.
 */
describe('tools the workflow answers itself obey the permission', () => {
  const dir = join(__dirname, '../../../src/workflows');
  const handlers = readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => ({ file: f, text: readFileSync(join(dir, f), 'utf8') }))
    .filter((f) => f.text.includes('handles(name: string)'));

  test('workflow tools: there are handlers to check (task tools, ScheduleWakeup, Cron tools)', () => {
    // A new handler joins the list below, so its reads are checked too.
    expect(handlers.map((h) => h.file).sort()).toEqual(['cron-tool.ts', 'task-tools.ts', 'wakeup-tool.ts']);
  });

  test.each(['cron-tool.ts', 'task-tools.ts', 'wakeup-tool.ts'])(
    'workflow tools: every read of a call in %s carries the permission',
    (file) => {
      const text = handlers.find((h) => h.file === file)?.text ?? '';
      const reads = [...text.matchAll(/acts\.(read\w*Call|planAgent)\(([\s\S]*?)\);/g)];
      expect(reads.length).toBeGreaterThan(0);
      for (const r of reads)
        expect({ call: r[1], passes: /permission: call\.permission/.test(r[2] ?? '') }).toEqual({
          call: r[1],
          passes: true,
        });
    },
  );
});
