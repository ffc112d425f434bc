import { describe, expect, it } from 'vitest';
import { idsToSuppress, suppressionDigest, unsuppressedEvents } from '../../lambdas/domain/suppression';

const ev = (name: string, sent_user_id: string | null, properties: Record<string, unknown> = {}) => ({ name, sent_user_id, properties });

describe('suppression', () => {
  it("drops the events of suppressed IDs and an $identify linking one, and keeps everyone else's", () => {
    const batch = [
      ev('view', 'cat'),
      ev('view', 'bob'),
      ev('$identify', 'eve', { $anonymous_id: 'cat-phone' }),
      ev('$identify', 'cat', { $anonymous_id: 'new-device' }),
      ev('$identify', 'bob', { $anonymous_id: 'bob-phone' }),
      ev('view', null),
      // Only $identify links through $anonymous_id: elsewhere the property is data.
      ev('view', 'dan', { $anonymous_id: 'cat' }),
    ];
    expect(unsuppressedEvents(batch, new Set(['cat', 'cat-phone']))).toEqual([batch[1], batch[4], batch[5], batch[6]]);
    expect(unsuppressedEvents(batch, new Set())).toBe(batch);
  });

  it('keys a marker by a SHA-256 of project and ID, never the ID, apart per project', () => {
    const d = suppressionDigest('p1', 'cat@example.com');
    expect(d).toMatch(/^[0-9a-f]{64}$/);
    expect(d).not.toContain('cat');
    expect(suppressionDigest('p2', 'cat@example.com')).not.toBe(d);
    // The separator keeps ("p1", "xcat") apart from ("p1x", "cat").
    expect(suppressionDigest('p1x', 'cat')).not.toBe(suppressionDigest('p1', 'xcat'));
  });

  it('suppresses the ID asked for and its group only when the deletion asks', () => {
    expect(idsToSuppress({ suppress: true, user_id: 'cat' }, ['cat-phone', 'cat'])).toEqual(['cat', 'cat-phone']);
    expect(idsToSuppress({ suppress: false, user_id: 'cat' }, ['cat-phone'])).toEqual([]);
  });
});
