import { describe, expect, it } from 'vitest';
import { firstSightStamp, seenBefore } from '../../lambdas/domain/identity';

describe('firstSightStamp: a link\'s later ID is stamped after its partner as committed', () => {
  it('keeps the arrival stamp when the partner was seen earlier', () => {
    expect(firstSightStamp(2000, 1, [{ id: 'anon', first_seen_ms: 1000, first_seen_order: 0 }])).toEqual({ first_seen_ms: 2000, first_seen_order: 1 });
  });

  it('stamps after a partner committed by a request that arrived later (or on a clock ahead)', () => {
    const partner = { id: 'anon', first_seen_ms: 5000, first_seen_order: 3 };
    const stamp = firstSightStamp(2000, 1, [partner]);
    expect(stamp).toEqual({ first_seen_ms: 5000, first_seen_order: 4 });
    expect(seenBefore(partner, { id: 'a-user-id-that-sorts-first', ...stamp })).toBe(true);
  });
});
