import { readdirSync } from 'node:fs';
import path from 'node:path';
import { ScenarioError, loadScenarioFile, parseScenario, startFakeModelServer } from '../../../src/fake-model';

const DIR = path.join(__dirname, '../../fixtures/scenarios');

function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected an error');
}

test('fake model: every valid example scenario loads', () => {
  const files = readdirSync(DIR).filter((f) => !f.startsWith('invalid-'));
  expect(files.length).toBeGreaterThanOrEqual(3);
  for (const f of files) {
    const s = loadScenarioFile(path.join(DIR, f));
    expect(s.scripts.length).toBeGreaterThan(0);
  }
});

test('fake model: a scenario file with a bad field gives an error naming it', () => {
  const err = errorOf(() => loadScenarioFile(path.join(DIR, 'invalid-bad-field.yaml')));
  expect(err).toBeInstanceOf(ScenarioError);
  expect(err.message).toContain('invalid-bad-field.yaml');
  expect(err.message).toContain('steps[0].stop_reason');
  expect(err.message).toContain('steps[0].contnet: unknown field');
});

test('fake model: scenario validation names nested fields', () => {
  const bad = {
    scripts: [
      {
        name: 'a',
        steps: [
          { content: [{ tool_use: { input: {} } }] },
          { content: [{ text: 'x', thinking: 'y' }], errors: [{ status: 429, cut_after_events: 2 }] },
          { expect: { messagesCount: 'three' } },
        ],
      },
    ],
  };
  const msg = errorOf(() => parseScenario(bad)).message;
  expect(msg).toContain('scripts[0].steps[0].content[0].tool_use.name');
  expect(msg).toContain('scripts[0].steps[1].content[0]: a content item needs exactly one of');
  expect(msg).toContain('scripts[0].steps[1].errors[0]: a fault needs exactly one of');
  expect(msg).toContain('scripts[0].steps[2].expect.messagesCount');
  const dup = {
    scripts: [
      { name: 'a', steps: [{}] },
      { name: 'a', steps: [{}] },
    ],
  };
  expect(errorOf(() => parseScenario(dup)).message).toContain('scripts[1].name: duplicate script name "a"');
});

test('fake model: shorthand steps become one script named main', () => {
  const s = parseScenario({ steps: [{ content: [{ text: 'hi' }] }] });
  expect(s.scripts).toHaveLength(1);
  expect(s.scripts[0]?.name).toBe('main');
  expect(s.scripts[0]?.match).toBeUndefined();
});

test('fake model: startFakeModelServer rejects a bad scenario and a missing one', async () => {
  await expect(startFakeModelServer({ scenario: { steps: [] } })).rejects.toThrow(/steps/);
  await expect(startFakeModelServer({})).rejects.toThrow(/scenario/);
});
