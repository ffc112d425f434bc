import { describe, expect, it } from 'vitest';
import { checkKeyRestrictions, ORIGIN_NOT_ALLOWED_ERROR } from '../../lambdas/domain/access';
import { bearerToken, effectiveRateLimit, hashApiKey, generateApiKey } from '../../lambdas/domain/api-key';
import { TokenBuckets } from '../../lambdas/domain/rate-limit';

describe('key restrictions', () => {
  const key = { allowed_origins: ['https://app.example.com', 'https://*.example.org'], allowed_bundle_ids: [] };

  it('allows listed origins (case-insensitive, default port) and requests without Origin', () => {
    expect(checkKeyRestrictions(key, 'https://APP.example.com', undefined).allow).toBe(true);
    expect(checkKeyRestrictions(key, 'https://app.example.com:443', undefined).allow).toBe(true);
    expect(checkKeyRestrictions(key, 'https://shop.example.org', undefined).allow).toBe(true);
    expect(checkKeyRestrictions(key, undefined, undefined).allow).toBe(true);
  });

  it('refuses other origins with the spec message', () => {
    for (const origin of ['https://evil.com', 'http://app.example.com', 'https://example.org', 'https://app.example.com.evil.com', 'null']) {
      expect(checkKeyRestrictions(key, origin, undefined), origin).toEqual({
        allow: false,
        status: 403,
        error: ORIGIN_NOT_ALLOWED_ERROR,
        reason: 'origin not allowed',
      });
    }
  });

  it('requires a listed bundle ID when the key restricts them', () => {
    const mobile = { allowed_origins: [], allowed_bundle_ids: ['com.acme.app'] };
    expect(checkKeyRestrictions(mobile, undefined, 'com.acme.app').allow).toBe(true);
    expect(checkKeyRestrictions(mobile, undefined, undefined)).toMatchObject({
      allow: false,
      status: 403,
      error: expect.stringMatching(/X-Tally-Bundle-ID/),
      reason: 'bundle ID missing',
    });
    expect(checkKeyRestrictions(mobile, undefined, 'com.other')).toMatchObject({ allow: false, status: 403, reason: 'bundle ID not allowed' });
  });
});

describe('api keys', () => {
  it('generates distinct keys and hashes them', () => {
    const a = generateApiKey();
    expect(a).toMatch(/^tally_[A-Za-z0-9_-]{43}$/);
    expect(generateApiKey()).not.toBe(a);
    expect(hashApiKey(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(a)).not.toContain(a);
  });

  it('parses bearer tokens strictly', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer abc')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeNull();
    expect(bearerToken('Bearer')).toBeNull();
    expect(bearerToken(undefined)).toBeNull();
  });

  it('gives plans their spec limits; an explicit limit overrides', () => {
    expect(effectiveRateLimit('free', undefined)).toBe(100);
    expect(effectiveRateLimit('pro', undefined)).toBe(1000);
    expect(effectiveRateLimit('enterprise', 5000)).toBe(5000);
    expect(effectiveRateLimit('free', 7)).toBe(7);
  });
});

describe('token buckets', () => {
  it('allows a burst of the per-minute limit, then refills at limit/60 per second', () => {
    const buckets = new TokenBuckets();
    const t0 = 1_000_000;
    for (let i = 0; i < 100; i++) expect(buckets.take('k', 100, t0).allowed).toBe(true);
    const refused = buckets.take('k', 100, t0);
    expect(refused).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(buckets.take('k', 100, t0 + 600).allowed).toBe(true); // 0.6 s refills one token at 100/min
    expect(buckets.take('other', 100, t0).allowed).toBe(true); // per key
  });

  it('tells slow limits how many seconds to wait', () => {
    const buckets = new TokenBuckets();
    expect(buckets.take('k', 2, 0).allowed).toBe(true);
    expect(buckets.take('k', 2, 0).allowed).toBe(true);
    expect(buckets.take('k', 2, 0)).toEqual({ allowed: false, retryAfterSeconds: 30 });
  });
});
