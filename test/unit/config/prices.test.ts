import { DEFAULT_PRICES, findPrice } from '../../../src/config';

describe('findPrice', () => {
  test('findPrice: an exact model id', () => {
    expect(findPrice(DEFAULT_PRICES, 'claude-haiku-4-5')).toEqual({
      input: 1,
      output: 5,
      cacheWrite5m: 1.25,
      cacheWrite1h: 2,
      cacheRead: 0.1,
    });
  });

  test('findPrice: a dated id matches its prefix', () => {
    expect(findPrice(DEFAULT_PRICES, 'claude-sonnet-4-5-20250929')).toBe(DEFAULT_PRICES['claude-sonnet-4-5']);
    expect(findPrice(DEFAULT_PRICES, 'claude-3-5-haiku-20241022')?.input).toBe(0.8);
    expect(findPrice(DEFAULT_PRICES, 'claude-sonnet-4-5@20250929')).toBe(DEFAULT_PRICES['claude-sonnet-4-5']);
  });

  test('findPrice: the longest matching prefix wins', () => {
    expect(findPrice(DEFAULT_PRICES, 'claude-opus-4-1-20250805')?.input).toBe(15);
    expect(findPrice(DEFAULT_PRICES, 'claude-opus-4-5-20251101')?.input).toBe(5);
    expect(findPrice(DEFAULT_PRICES, 'claude-opus-4-20250514')?.input).toBe(15);
    expect(findPrice(DEFAULT_PRICES, 'claude-opus-5-5')?.input).toBe(4);
    expect(findPrice(DEFAULT_PRICES, 'claude-opus-5-20270101')?.input).toBe(5);
  });

  test('findPrice: a prefix must end at a separator', () => {
    expect(findPrice({ 'claude-opus-4': DEFAULT_PRICES['claude-opus-4']! }, 'claude-opus-45')).toBeUndefined();
  });

  test('findPrice: an unknown model gives undefined', () => {
    expect(findPrice(DEFAULT_PRICES, 'gpt-4')).toBeUndefined();
    expect(findPrice(DEFAULT_PRICES, '')).toBeUndefined();
  });
});
