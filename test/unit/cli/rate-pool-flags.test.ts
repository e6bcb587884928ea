import { loadConfig } from '../../../src/config';
import { UsageError, turnOptionsFrom } from '../../../src/cli/turn-options';

const config = loadConfig({ env: {} });

describe('--rate-pool and --rate-priority', () => {
  test('the flag names the pool (its workflow id in the options); env AGENT_RUNNER_RATE_POOL does the same; the flag wins', () => {
    expect(turnOptionsFrom(config, { ratePool: 'org', ratePriority: '2' }, { env: {} })).toMatchObject({
      ratePoolId: 'agent-rate-pool-org',
      ratePriority: 2,
    });
    const env = { AGENT_RUNNER_RATE_POOL: 'shared', AGENT_RUNNER_RATE_PRIORITY: '5' };
    expect(turnOptionsFrom(config, {}, { env })).toMatchObject({
      ratePoolId: 'agent-rate-pool-shared',
      ratePriority: 5,
    });
    expect(turnOptionsFrom(config, { ratePool: 'mine' }, { env }).ratePoolId).toBe('agent-rate-pool-mine');
    const none = turnOptionsFrom(config, { ratePriority: '1' }, { env: {} });
    expect(none.ratePoolId).toBeUndefined();
    expect(none.ratePriority).toBeUndefined();
  });

  test('a bad pool id or priority is a usage error naming the flag', () => {
    expect(() => turnOptionsFrom(config, { ratePool: 'a b' }, { env: {} })).toThrow(UsageError);
    expect(() => turnOptionsFrom(config, { ratePool: 'a', ratePriority: '0' }, { env: {} })).toThrow(
      /--rate-priority must be an integer from 1 \(first\) to 5 \(last\), got "0"/,
    );
  });
});
