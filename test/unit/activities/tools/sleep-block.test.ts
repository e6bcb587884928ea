import { blockedSleep, sleepBlockedMessage } from '../../../../src/activities/tools/sleep-block';

describe('blockedSleep (2.1.328: a leading foreground sleep of 25 s or more)', () => {
  it('blocks a standalone long sleep, and one followed by more', () => {
    expect(blockedSleep('sleep 30')).toBe('standalone sleep 30');
    expect(blockedSleep('  sleep 25  ')).toBe('standalone sleep 25');
    expect(blockedSleep('sleep 30 && make')).toBe('sleep 30 followed by: make');
    expect(blockedSleep('sleep 40; echo done')).toBe('sleep 40 followed by: echo done');
  });
  it('lets short sleeps, later sleeps and other commands run', () => {
    expect(blockedSleep('sleep 1 && echo ok')).toBeNull();
    expect(blockedSleep('sleep 5; echo late')).toBeNull();
    expect(blockedSleep('echo a; sleep 30')).toBeNull();
    expect(blockedSleep('sleep 30s')).toBeNull();
    expect(blockedSleep('echo "sleep 30"')).toBeNull();
  });
  it('words the refusal as 2.1.328', () => {
    expect(sleepBlockedMessage('standalone sleep 30')).toBe(
      'Blocked: standalone sleep 30. To wait for a condition, use Monitor with an until-loop (e.g. `until <check>; do sleep 2; done`). To wait for a command you started, use run_in_background: true. Do not chain shorter sleeps to work around this block.',
    );
  });
});
