import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { planFilePath, renderPlanMode } from '../../../../src/activities/context/plan-mode';
import { renderAttachment } from '../../../../src/activities/context/render';

const RECORDINGS = join(__dirname, '../../../conformance/recordings/claude-2.1.328');

/** The environment message text of the last request of a recorded scenario. */
function recordedEnvironment(scenario: string): string {
  const requests = JSON.parse(readFileSync(join(RECORDINGS, scenario, 'requests.json'), 'utf8')) as Array<{
    body: { messages: Array<{ role: string; content: string | Array<{ text?: string }> }> };
  }>;
  const system = requests.at(-1)!.body.messages.find((m) => m.role === 'system')!;
  return typeof system.content === 'string' ? system.content : system.content[0]!.text!;
}

const PLACEHOLDER = /\{\{home\}\}\/\.claude\/plans\/([a-z0-9-]+)-\{\{adjective\}\}-\{\{noun\}\}\.md/;

describe('plan mode context', () => {
  test.each([
    ['plan-mode', 'Do the task.'],
    ['plan-mode-stream', 'Plan the fix.'],
    ['plan-mode-sdk', 'Plan, then fix.'],
  ])('renderPlanMode: the paragraph of %s, word for word (Claude Code 2.1.328)', (scenario, prompt) => {
    const env = recordedEnvironment(scenario);
    const start = env.indexOf('Plan mode is active.');
    const recorded = env.slice(start, env.lastIndexOf("\n\nToday's date is "));
    const slug = PLACEHOLDER.exec(recorded)?.[1];
    const planFile = planFilePath('/home/u', prompt, 'session-1');
    expect(planFile).toMatch(new RegExp(`^/home/u/\\.claude/plans/${slug}-[a-z]+-[a-z]+\\.md$`));
    expect(renderPlanMode(planFile)).toBe(recorded.replace(PLACEHOLDER, planFile));
  });

  test('planFilePath: the same session gets the same file; another session most likely another', () => {
    expect(planFilePath('/h', 'Fix it', 'a')).toBe(planFilePath('/h', 'Fix it', 'a'));
    const others = new Set(['b', 'c', 'd', 'e', 'f'].map((s) => planFilePath('/h', 'Fix it', s)));
    expect(others.size).toBeGreaterThan(1);
    expect(planFilePath('/h', '!!!', 'a')).toMatch(/^\/h\/\.claude\/plans\/plan-[a-z]+-[a-z]+\.md$/);
  });

  test('renderAttachment: the paragraph comes after the skills and before the date; without planFile none', () => {
    const environment = {
      workingDirectory: '/w',
      isGitRepo: false,
      platform: 'linux',
      shell: 'bash',
      osVersion: 'Linux 6',
      model: 'm',
      date: '2026-01-01',
    };
    const [withPlan] = renderAttachment(
      { type: 'environment', environment, planFile: '/h/p.md' },
      { skills: [{ name: 's', description: 'd' }] },
    );
    expect(withPlan!.text).toMatch(
      /- s: d\n\nPlan mode is active\.[\s\S]*\/h\/p\.md[\s\S]*\n\nToday's date is 2026-01-01\.$/,
    );
    const [without] = renderAttachment({ type: 'environment', environment });
    expect(without!.text).not.toContain('Plan mode');
  });
});
