/**
 * Per-key rate limiting with the token bucket API Gateway usage plans use: a key may burst up to its
 * per-minute limit, and the bucket refills at limit/60 tokens per second. The local server applies
 * this; on AWS the usage plan does (rateLimit = limit/60, burstLimit = limit), so both behave alike.
 */
import { throttledRetryAfter } from './retry-after';

export interface RateDecision {
  allowed: boolean;
  /** Whole seconds until the next request would be allowed (at least 1), when refused. */
  retryAfterSeconds: number;
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  take(id: string, limitPerMinute: number, nowMs: number): RateDecision {
    const perMs = limitPerMinute / 60_000;
    const bucket = this.buckets.get(id) ?? { tokens: limitPerMinute, updatedMs: nowMs };
    bucket.tokens = Math.min(limitPerMinute, bucket.tokens + (nowMs - bucket.updatedMs) * perMs);
    bucket.updatedMs = nowMs;
    this.buckets.set(id, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true, retryAfterSeconds: 0 };
    }
    return { allowed: false, retryAfterSeconds: throttledRetryAfter(bucket.tokens, perMs) };
  }
}
