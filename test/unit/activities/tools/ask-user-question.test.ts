import { NO_ANSWERS_TEXT } from '../../../../src/activities/tools/ask-user-question';
import { executeTool } from '../../../../src/activities/tools/execute';
import { ALL_BUILTIN_TOOLS, BUILTIN_TOOLS, toolsForModel } from '../../../../src/activities/tools/registry';
import { decidePermission, permissionPolicyOf } from '../../../../src/engine/permissions';
import { PERMISSION_MODES } from '../../../../src/common/permissions';

const questions = [
  {
    question: 'Which database?',
    header: 'Database',
    options: [
      { label: 'PostgreSQL', description: 'Relational' },
      { label: 'SQLite', description: 'A file' },
    ],
    multiSelect: true,
  },
  {
    question: 'Which port?',
    header: 'Port',
    options: [
      { label: '80', description: 'HTTP' },
      { label: '443', description: 'HTTPS' },
    ],
    multiSelect: false,
  },
];

const ctx = { cwd: '/tmp', signal: new AbortController().signal, readState: () => undefined, heartbeat: () => {} };

describe('AskUserQuestion', () => {
  test('AskUserQuestion: the answers in Claude Code 2.1.328 words, in the order given; tool_use_result has questions and answers', async () => {
    const answers = { 'Which database?': 'PostgreSQL, SQLite', 'Which port?': '443' };
    const r = await executeTool('AskUserQuestion', { questions, answers }, ctx, ALL_BUILTIN_TOOLS);
    expect(r).toMatchObject({
      outcome: 'ok',
      isError: false,
      content:
        'Your questions have been answered: "Which database?"="PostgreSQL, SQLite", "Which port?"="443". You can now continue with these answers in mind.',
      structured: { questions, answers },
    });
  });

  test('AskUserQuestion: allowed without answers, the model is told plainly that nobody answered', async () => {
    const r = await executeTool('AskUserQuestion', { questions }, ctx, ALL_BUILTIN_TOOLS);
    expect(r).toMatchObject({ isError: false, content: NO_ANSWERS_TEXT, structured: { questions, answers: {} } });
  });

  test('AskUserQuestion: a bad input (one option) is an input error, not a question', async () => {
    const bad = [{ ...questions[0]!, options: [questions[0]!.options[0]!] }];
    const r = await executeTool('AskUserQuestion', { questions: bad }, ctx, ALL_BUILTIN_TOOLS);
    expect(r.isError).toBe(true);
  });

  test('AskUserQuestion: not a default tool; its schema has Claude Code 2.1.328 fields', () => {
    expect(BUILTIN_TOOLS.has('AskUserQuestion')).toBe(false);
    const [spec] = toolsForModel(['AskUserQuestion']);
    expect(Object.keys(spec!.input_schema['properties'] as object)).toEqual([
      'questions',
      'answers',
      'annotations',
      'metadata',
    ]);
    expect(spec!.input_schema['required']).toEqual(['questions']);
  });

  test('decidePermission: an offered AskUserQuestion asks in every mode (a hook deny still refuses it)', () => {
    for (const mode of PERMISSION_MODES) {
      const policy = permissionPolicyOf({ permissionMode: mode, tools: ['Read', 'AskUserQuestion'] });
      expect(decidePermission(policy, 'AskUserQuestion')).toMatchObject({ behavior: 'deny', ask: true });
      expect(decidePermission(policy, 'AskUserQuestion', { decision: 'deny', message: 'no' })).toEqual({
        behavior: 'deny',
        message: 'no',
        reason: 'hook',
      });
    }
  });
});
