import { loadConfig } from '../../../src/config';
import { splitToolList, turnOptionsFrom, UsageError } from '../../../src/cli/turn-options';

const config = loadConfig({ env: {} });

describe('CLI turn options', () => {
  test('splitToolList: commas, spaces and repeated flags; scoped rules stay whole', () => {
    expect(splitToolList(['Bash(git commit:*) Edit', 'Read,Glob'])).toEqual([
      'Bash(git commit:*)',
      'Edit',
      'Read',
      'Glob',
    ]);
  });
  test('turnOptionsFrom: flags override config defaults', () => {
    const o = turnOptionsFrom(config, {
      model: 'm',
      maxTurns: '3',
      maxBudgetUsd: '0.5',
      permissionMode: 'acceptEdits',
    });
    expect(o).toMatchObject({ model: 'm', limits: { maxTurns: 3, maxBudgetUsd: 0.5 }, permissionMode: 'acceptEdits' });
  });
  test('turnOptionsFrom: bad values are usage errors naming the flag', () => {
    expect(() => turnOptionsFrom(config, { maxTurns: '0' })).toThrow(UsageError);
    expect(() => turnOptionsFrom(config, { maxBudgetUsd: 'lots' })).toThrow('--max-budget-usd');
    expect(() => turnOptionsFrom(config, { permissionMode: 'yolo' })).toThrow('--permission-mode');
    expect(() => turnOptionsFrom(config, { tools: ['Read', 'Teleport'] })).toThrow('Teleport');
  });
  test('turnOptionsFrom: --tools default (the Agent SDK preset) offers every built-in tool', () => {
    expect(turnOptionsFrom(config, { tools: ['default'] }).tools).toBeUndefined();
    expect(turnOptionsFrom(config, { tools: ['Read,Bash'] }).tools).toEqual(['Read', 'Bash']);
  });
  test('turnOptionsFrom: --fallback-model must differ from the model', () => {
    expect(turnOptionsFrom(config, { model: 'a', fallbackModel: 'b' }).fallbackModel).toBe('b');
    expect(() => turnOptionsFrom(config, { model: 'a', fallbackModel: 'a' })).toThrow(UsageError);
    expect(() => turnOptionsFrom(config, { fallbackModel: config.model.name })).toThrow('--fallback-model');
    expect(() => turnOptionsFrom(config, { fallbackModel: ' ' })).toThrow('--fallback-model must not be empty');
  });
});
