import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTaskFile } from '../../../src/client/batch-tasks';
import {
  defaultBatchId,
  taskPromptUuid,
  taskSessionId,
  taskSubmitUpdateId,
  taskTurnOptions,
  uuidV5,
} from '../../../src/client/batch';
import type { TurnOptions } from '../../../src/common/turn';

const UUID_V5_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function dirs(): { base: string; def: string } {
  const base = mkdtempSync(join(tmpdir(), 'dar-batch-unit-'));
  mkdirSync(join(base, 'repo-a'));
  mkdirSync(join(base, 'default'));
  return { base, def: join(base, 'default') };
}

describe('batch task file', () => {
  test('batch tasks: valid lines become tasks in file order; blank and # lines are ignored', () => {
    const { base, def } = dirs();
    const text = [
      '# a comment',
      JSON.stringify({ id: 'a', prompt: 'fix it', cwd: 'repo-a', maxTurns: 3, allowedTools: 'Bash Edit' }),
      '',
      JSON.stringify({ id: 7, prompt: 'other', model: 'claude-haiku-4-5', maxBudgetUsd: 0.5, metadata: { n: 1 } }),
    ].join('\n');
    const parsed = parseTaskFile(text, base, def);
    expect(parsed.errors).toEqual([]);
    expect(parsed.tasks).toEqual([
      {
        id: 'a',
        line: 2,
        prompt: 'fix it',
        cwd: join(base, 'repo-a'),
        options: { limits: { maxTurns: 3 }, allowedTools: ['Bash', 'Edit'] },
      },
      {
        id: '7',
        line: 4,
        prompt: 'other',
        cwd: def,
        options: { model: 'claude-haiku-4-5', limits: { maxBudgetUsd: 0.5 } },
        metadata: { n: 1 },
      },
    ]);
  });

  test('batch tasks: a malformed line is reported with its line number and skipped; the rest is kept', () => {
    const { base, def } = dirs();
    const text = [
      JSON.stringify({ id: 'ok-1', prompt: 'p' }),
      '{"id": "broken", "prompt": ',
      JSON.stringify({ id: 'no-prompt' }),
      JSON.stringify({ id: 'typo', prompt: 'p', maxTurn: 3 }),
      JSON.stringify({ id: 'ok-1', prompt: 'again' }),
      JSON.stringify({ id: 'bad-dir', prompt: 'p', repo: 'missing' }),
      JSON.stringify({ id: 'both', prompt: 'p', repo: 'repo-a', cwd: 'repo-a' }),
      JSON.stringify({ id: 'tools', prompt: 'p', tools: ['Read', 'NoSuchTool'] }),
      JSON.stringify({ id: 'turns', prompt: 'p', maxTurns: 0 }),
      '[1, 2]',
      JSON.stringify({ id: 'ok-2', prompt: 'p', permissionMode: 'acceptEdits' }),
    ].join('\n');
    const parsed = parseTaskFile(text, base, def);
    expect(parsed.tasks.map((t) => [t.id, t.line])).toEqual([
      ['ok-1', 1],
      ['ok-2', 11],
    ]);
    const byLine = Object.fromEntries(parsed.errors.map((e) => [e.line, e.message]));
    expect(Object.keys(byLine).map(Number)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(byLine[2]).toMatch(/not valid JSON/);
    expect(byLine[3]).toMatch(/task "no-prompt": prompt:/);
    expect(byLine[4]).toMatch(/maxTurn: unknown field/);
    expect(byLine[5]).toMatch(/duplicate id \(first on line 1\)/);
    expect(byLine[6]).toMatch(/repo .*missing is not a directory/);
    expect(byLine[7]).toMatch(/either cwd or repo/);
    expect(byLine[8]).toMatch(/unknown tool\(s\) NoSuchTool/);
    expect(byLine[9]).toMatch(/maxTurns/);
    expect(byLine[10]).toMatch(/expected a JSON object/);
  });

  test('batch tasks: per-task options override the batch defaults; the pool id is added', () => {
    const defaults: TurnOptions = {
      model: 'm',
      maxTokens: 100,
      limits: { maxTurns: 10, maxBudgetUsd: 1 },
      permissionMode: 'default',
      allowedTools: ['Read'],
    };
    const task = {
      id: 't',
      line: 1,
      prompt: 'p',
      cwd: '/',
      options: { model: 'x', limits: { maxTurns: 2 }, permissionMode: 'acceptEdits' as const },
    };
    expect(
      taskTurnOptions(defaults, task, {
        poolWorkflowId: 'agent-budget-pool-b',
        limitUsd: 1,
        exhausted: async () => false,
        spent: async () => ({ spentUsd: 0, limitUsd: 1 }),
      }),
    ).toEqual({
      model: 'x',
      maxTokens: 100,
      limits: { maxTurns: 2, maxBudgetUsd: 1 },
      permissionMode: 'acceptEdits',
      allowedTools: ['Read'],
      budgetPoolId: 'agent-budget-pool-b',
    });
  });
});

describe('batch ids', () => {
  test('batch ids: a task session id is a name-based UUID v5 of (batch, task), stable across runs', () => {
    const a = taskSessionId('b1', 'task-1');
    expect(a).toMatch(UUID_V5_RE);
    expect(taskSessionId('b1', 'task-1')).toBe(a);
    expect(taskSessionId('b1', 'task-2')).not.toBe(a);
    expect(taskSessionId('b2', 'task-1')).not.toBe(a);
    expect(taskPromptUuid(a)).toMatch(UUID_V5_RE);
    expect(taskPromptUuid(a)).toBe(taskPromptUuid(a));
    expect(taskSubmitUpdateId(a)).toBe(`batch-submit-${a}`);
  });

  test('batch ids: uuidV5 matches RFC 9562 (the DNS namespace example)', () => {
    // Python: uuid.uuid5(uuid.NAMESPACE_DNS, 'www.example.com')
    expect(uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe(
      '2ed6657d-e927-568b-95e1-2665a8aea6a2',
    );
  });

  test('batch ids: the default batch id depends on the absolute path and the content', () => {
    const id = defaultBatchId('/work/tasks.jsonl', 'x');
    expect(id).toMatch(/^tasks-[0-9a-f]{12}$/);
    expect(defaultBatchId('/work/tasks.jsonl', 'x')).toBe(id);
    expect(defaultBatchId('/work/tasks.jsonl', 'y')).not.toBe(id);
    expect(defaultBatchId('/other/tasks.jsonl', 'x')).not.toBe(id);
  });
});
