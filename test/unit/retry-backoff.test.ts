import { describe, expect, it } from 'vitest';
import { backoffDelayMs, MAX_BACKOFF_MS, THROTTLING_BACKOFF_BASE_MS } from '../../lambdas/domain/retry-backoff';

describe('backoffDelayMs: exponential backoff with full jitter, as the AWS SDK', () => {
  it('doubles the ceiling with each retry, from the base', () => {
    // random just under 1: the ceiling itself (floored).
    const top = 0.999999;
    expect([0, 1, 2, 3].map((n) => backoffDelayMs(n, 25, top))).toEqual([24, 49, 99, 199]);
    expect([0, 1, 2].map((n) => backoffDelayMs(n, THROTTLING_BACKOFF_BASE_MS, top))).toEqual([999, 1999, 3999]);
  });

  it('draws the whole range down to 0 (full jitter)', () => {
    expect(backoffDelayMs(3, 25, 0)).toBe(0);
    expect(backoffDelayMs(3, 25, 0.5)).toBe(100);
  });

  it('never waits more than 20 s', () => {
    expect(backoffDelayMs(30, THROTTLING_BACKOFF_BASE_MS, 0.999999)).toBe(MAX_BACKOFF_MS - 1);
    expect(MAX_BACKOFF_MS).toBe(20_000);
  });

  it('uses Math.random by default, within the ceiling', () => {
    for (let i = 0; i < 100; i++) {
      const d = backoffDelayMs(2, 50);
      expect(d).toBeGreaterThanOrEqual(0);
      expect(d).toBeLessThan(200);
    }
  });
});
