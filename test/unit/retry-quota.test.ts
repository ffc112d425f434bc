/**
 * The retry quota against the AWS SDK's own StandardRetryStrategy (@smithy/core/retry, the version
 * installed): the same sequence of failures and successes leaves both buckets with the same tokens,
 * and both refuse the same retries.
 */
import { StandardRetryStrategy } from '@smithy/core/retry';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { INITIAL_RETRY_TOKENS, RETRY_COST, RetryQuota, THROTTLING_RETRY_COST } from '../../lambdas/domain/retry-quota';

afterEach(() => vi.restoreAllMocks());

type Step = 'throttled' | 'failed' | 'ok';

/** Runs calls on the SDK's strategy (no waiting: Math.random gives 0) and on RetryQuota side by side. */
async function compare(calls: Step[][]) {
  vi.spyOn(Math, 'random').mockReturnValue(0);
  const sdk = new StandardRetryStrategy(1_000);
  const ours = new RetryQuota();
  for (const steps of calls) {
    let token = await sdk.acquireInitialRetryToken('');
    let lastCost: number | undefined;
    for (const step of steps) {
      if (step === 'ok') {
        sdk.recordSuccess(token);
        ours.succeeded(lastCost);
        break;
      }
      const cost = ours.take(step === 'throttled');
      let sdkRetried = true;
      try {
        token = await sdk.refreshRetryTokenForRetry(token, { errorType: step === 'throttled' ? 'THROTTLING' : 'TRANSIENT' } as never);
      } catch {
        sdkRetried = false;
      }
      expect(cost !== undefined, `retry allowed after ${step}`).toBe(sdkRetried);
      if (cost === undefined) break;
      lastCost = cost;
    }
    expect(ours.available).toBe(sdk.getCapacity());
  }
  return ours;
}

describe('retry quota: the SDK standard mode token bucket', () => {
  it('uses the installed SDK numbers: 500 tokens, 5 per retry after throttling, 14 per other retry', async () => {
    const q = new RetryQuota();
    expect(q.available).toBe(INITIAL_RETRY_TOKENS);
    expect(q.take(true)).toBe(THROTTLING_RETRY_COST);
    expect(q.take(false)).toBe(RETRY_COST);
    expect(q.available).toBe(500 - 5 - 14);
  });

  it('drains under sustained throttling and then refuses retries, as the SDK does', async () => {
    const throttledCall: Step[] = ['throttled', 'throttled', 'throttled'];
    const q = await compare(Array.from({ length: 40 }, () => throttledCall));
    expect(q.available).toBeLessThan(THROTTLING_RETRY_COST);
    expect(q.take(true)).toBeUndefined();
  });

  it('a success gives back its last retry cost, or 1 without a retry, never above 500', async () => {
    const q = await compare([
      ['failed', 'failed', 'ok'],
      ['throttled', 'ok'],
      ['ok'],
      ...Array.from({ length: 20 }, (): Step[] => ['ok']),
      ...Array.from({ length: 36 }, (): Step[] => ['failed', 'failed', 'failed']),
      ['failed', 'ok'],
      ['throttled', 'failed', 'ok'],
      ...Array.from({ length: 30 }, (): Step[] => ['ok']),
    ]);
    expect(q.available).toBeLessThanOrEqual(INITIAL_RETRY_TOKENS);
  });
});
