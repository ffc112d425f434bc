/** The retention rules (lambdas/domain/event-retention.ts): the boundary, which partitions a cut takes, and when a running experiment is told. */
import { describe, expect, it } from 'vitest';
import { keepEventsDaysProblem, partitionsBefore, retentionBoundary, retentionNotice } from '../../lambdas/domain/event-retention';

const at = (iso: string) => Date.parse(iso);

describe('event retention', () => {
  it('keeps the event days from N days before today (UTC) on, and cuts the partitions of earlier days only', () => {
    expect(retentionBoundary(at('2026-06-02T00:00:00Z'), 90)).toBe('2026-03-04');
    expect(retentionBoundary(at('2026-06-02T23:59:59Z'), 90)).toBe('2026-03-04');
    expect(retentionBoundary(at('2026-06-03T00:00:00Z'), 90)).toBe('2026-03-05');
    const parts = [{ dt: '2026-03-03' }, { dt: '2026-03-04' }, { dt: '2025-12-31' }];
    expect(partitionsBefore(parts, '2026-03-04')).toEqual([{ dt: '2026-03-03' }, { dt: '2025-12-31' }]);
  });

  it('takes whole days from 90 to 36500 only', () => {
    for (const ok of [90, 365, 36_500]) expect(keepEventsDaysProblem(ok)).toBeUndefined();
    for (const bad of [0, 89, 90.5, 36_501, Number.NaN, '120']) expect(keepEventsDaysProblem(bad)).toMatch(/^must be a whole number of days from 90/);
  });

  it('tells a running experiment 14 days before the cut reaches its first day, and after, which day goes next', () => {
    // Window from 2026-03-09, 90 days: the cut removing it runs on 2026-06-08.
    expect(retentionNotice('2026-03-09', at('2026-05-24T23:00:00Z'), 90)).toBeUndefined();
    expect(retentionNotice('2026-03-09', at('2026-05-25T00:00:00Z'), 90)).toMatchObject({
      removes_day: '2026-03-09',
      removes_on: '2026-06-08',
      kept_from: '2026-02-24',
    });
    // On that day the window's first day is gone; the next to go is the first kept, tomorrow.
    const after = retentionNotice('2026-03-09', at('2026-06-08T00:00:00Z'), 90);
    expect(after).toMatchObject({ window_from: '2026-03-09', kept_from: '2026-03-10', removes_day: '2026-03-10', removes_on: '2026-06-09' });
    expect(after?.message).toContain('before 2026-03-10 have been removed');
  });
});
