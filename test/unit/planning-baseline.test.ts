/** From the baseline query's sums to what sampleSize takes (domain/planning-baseline.ts), and progress toward a plan (domain/sample-progress.ts). */
import { describe, expect, it } from 'vitest';
import { measuredBaseline } from '../../lambdas/domain/planning-baseline';
import { sampleProgress } from '../../lambdas/domain/sample-progress';

const to = '2026-06-30T12:00:00.000Z';
const counts = { users: 4, converted: 2, value_sum: 3, value_sum_squares: 5, first_seen: '2026-06-20T12:00:00.000Z' };

describe('measuredBaseline', () => {
  it('divides the active users by the days with data, at least 1 and at most the look-back', () => {
    expect(measuredBaseline('conversion', counts, { to, lookbackDays: 14 })).toMatchObject({ users_per_day: 0.4, days_observed: 10 });
    expect(measuredBaseline('conversion', { ...counts, first_seen: '2026-06-30T11:00:00.000Z' }, { to, lookbackDays: 14 })).toMatchObject({ users_per_day: 4 });
    expect(measuredBaseline('conversion', { ...counts, first_seen: '2026-01-01T00:00:00.000Z' }, { to, lookbackDays: 8 })).toMatchObject({
      users_per_day: 0.5,
    });
  });

  it('gives a rate for conversion and the mean and sample variance per active user otherwise', () => {
    expect(measuredBaseline('conversion', counts, { to, lookbackDays: 14 })).toMatchObject({ metric: { kind: 'conversion', baseline_rate: 0.5 } });
    const mean = measuredBaseline('count', counts, { to, lookbackDays: 14 }) as { metric: { mean: number; variance: number } };
    expect(mean.metric.mean).toBe(0.75);
    expect(mean.metric.variance).toBeCloseTo(2.75 / 3, 15);
  });

  it('says why when the events cannot give a baseline', () => {
    const problem = (kind: 'conversion' | 'count', c: Partial<Omit<typeof counts, 'first_seen'>> & { first_seen?: string | null }) =>
      (measuredBaseline(kind, { ...counts, ...c }, { to, lookbackDays: 14 }) as { problem?: string }).problem;
    expect(problem('conversion', { users: 0, first_seen: null })).toBe('the project has no events in the last 14 days');
    expect(problem('conversion', { converted: 0 })).toMatch(/none of the 4 active users sent the event/);
    expect(problem('conversion', { converted: 4 })).toMatch(/every one of the 4 active users sent the event/);
    expect(problem('count', { value_sum: 0, value_sum_squares: 0 })).toMatch(/mean is 0/);
    expect(problem('count', { value_sum: 4, value_sum_squares: 4 })).toMatch(/variance is 0/);
    expect(problem('count', { users: 1, value_sum: 2, value_sum_squares: 4 })).toMatch(/one active user/);
  });
});

describe('sampleProgress', () => {
  const window = { from: '2026-06-28T12:00:00.000Z', to };
  it('counts the share of the plan and the days left at the rate so far, rounded up', () => {
    expect(sampleProgress(2000, 4000, window, true)).toEqual({ enrolled: 2000, planned: 4000, share: 0.5, reached: false, users_per_day: 1000, days_left: 2 });
    expect(sampleProgress(2000, 4001, window, true).days_left).toBe(3);
  });
  it('is reached at the plan, has no rate without users, and no days left once stopped', () => {
    expect(sampleProgress(5000, 4000, window, true)).toMatchObject({ share: 1, reached: true, days_left: 0 });
    expect(sampleProgress(0, 4000, window, true)).toMatchObject({ users_per_day: null, days_left: null });
    expect(sampleProgress(100, 4000, window, false)).toMatchObject({ reached: false, days_left: null });
  });
  it('takes at least an hour for the rate', () => {
    expect(sampleProgress(10, 1000, { from: to, to }, true).users_per_day).toBe(240);
  });
});
