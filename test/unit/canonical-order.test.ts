import { describe, expect, it } from 'vitest';
import { compareFirstSeen, firstSightStamp, seenBefore } from '../../lambdas/domain/canonical-order';

describe("firstSightStamp: a link's later ID is stamped after its partner as committed", () => {
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

describe('compareFirstSeen: the order the user lookup lists a group in', () => {
  it('puts the canonical ID (seenBefore every other) first: time, then position in the request, then the smaller ID', () => {
    const ids = [
      { id: 'c', first_seen_ms: 2000, first_seen_order: 0 },
      { id: 'b', first_seen_ms: 1000, first_seen_order: 1 },
      { id: 'z', first_seen_ms: 1000, first_seen_order: 0 },
      { id: 'a', first_seen_ms: 1000, first_seen_order: 1 },
    ];
    const sorted = [...ids].sort(compareFirstSeen).map((i) => i.id);
    expect(sorted).toEqual(['z', 'a', 'b', 'c']);
    const canonical = ids.find((i) => i.id === sorted[0])!;
    for (const other of ids) if (other !== canonical) expect(seenBefore(canonical, other)).toBe(true);
  });
});
