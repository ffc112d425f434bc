import { describe, expect, it } from 'vitest';
import {
  cumulateSeries,
  HOURLY_SERIES_UNDER_MS,
  MAX_SERIES_DAYS,
  pointAsOf,
  runDays,
  runPeriods,
  seriesInterval,
  seriesPoints,
  type PeriodCounts,
} from '../../lambdas/domain/results-series';
import { experimentStats } from '../../lambdas/domain/stats';

const window = { from: '2026-03-01T10:00:00.000Z', to: '2026-03-04T12:00:00.000Z' };
const counts = (points: ReturnType<typeof cumulateSeries>) => points.map((p) => [p.date, ...p.counts.map((c) => [c.enrolled, c.converted])]);

describe('runDays', () => {
  it('lists every UTC day of the run, both ends included', () => {
    expect(runDays(window.from, window.to)).toEqual(['2026-03-01', '2026-03-02', '2026-03-03', '2026-03-04']);
    expect(runDays('2026-03-01T23:59:59.999Z', '2026-03-02T00:00:00.000Z')).toEqual(['2026-03-01', '2026-03-02']);
    expect(runDays('2026-03-01T10:00:00.000Z', '2026-03-01T10:00:00.000Z')).toEqual(['2026-03-01']);
    // Across a month and a leap day.
    expect(runDays('2028-02-28T00:00:00.000Z', '2028-03-01T00:00:00.000Z')).toEqual(['2028-02-28', '2028-02-29', '2028-03-01']);
  });

  it('refuses a run that ends before it starts, or a time that is not one', () => {
    expect(() => runDays('2026-03-02T00:00:00.000Z', '2026-03-01T00:00:00.000Z')).toThrow(RangeError);
    expect(() => runDays('yesterday', window.to)).toThrow(/not an ISO 8601 time/);
  });
});

describe('seriesInterval', () => {
  it('is hourly while the run (start to end, or to now) is under 3 days, daily from 3 days on', () => {
    expect(HOURLY_SERIES_UNDER_MS).toBe(3 * 86_400_000);
    expect(seriesInterval({ from: '2026-03-01T10:00:00.000Z', to: '2026-03-01T10:00:00.000Z' })).toBe('hour');
    expect(seriesInterval({ from: '2026-03-01T10:00:00.000Z', to: '2026-03-04T09:59:59.999Z' })).toBe('hour');
    expect(seriesInterval({ from: '2026-03-01T10:00:00.000Z', to: '2026-03-04T10:00:00.000Z' })).toBe('day');
    expect(seriesInterval(window)).toBe('day');
  });
});

describe('runPeriods', () => {
  it('lists every UTC hour of an hourly run, both ends included, as the query names them', () => {
    expect(runPeriods('2026-03-01T22:30:00.000Z', '2026-03-02T01:00:00.000Z', 'hour')).toEqual([
      '2026-03-01T22',
      '2026-03-01T23',
      '2026-03-02T00',
      '2026-03-02T01',
    ]);
    expect(runPeriods('2026-03-01T10:00:00.000Z', '2026-03-01T10:00:00.000Z', 'hour')).toEqual(['2026-03-01T10']);
    // The longest hourly run: just under 72 hours spans at most 73 hours.
    expect(runPeriods('2026-03-01T10:59:59.999Z', '2026-03-04T10:59:59.998Z', 'hour')).toHaveLength(73);
    expect(runPeriods(window.from, window.to, 'day')).toEqual(runDays(window.from, window.to));
  });
});

describe('pointAsOf', () => {
  it('is the end of the day, or the run’s end on its last day', () => {
    expect(pointAsOf('2026-03-02', window.to)).toBe('2026-03-02T23:59:59.999Z');
    expect(pointAsOf('2026-03-04', window.to)).toBe(window.to);
  });

  it('is the end of the hour for an hourly point, or the run’s end in its last hour', () => {
    expect(pointAsOf('2026-03-01T22:00:00.000Z', '2026-03-02T01:20:00.000Z')).toBe('2026-03-01T22:59:59.999Z');
    expect(pointAsOf('2026-03-02T01:00:00.000Z', '2026-03-02T01:20:00.000Z')).toBe('2026-03-02T01:20:00.000Z');
  });
});

describe('cumulateSeries', () => {
  it('counts a user enrolled on day 1 who converts on day 3 as converted only from day 3', () => {
    const days: PeriodCounts[] = [
      { variant: 'a', period: '2026-03-01', enrolled: 1, converted: 0 },
      { variant: 'a', period: '2026-03-03', enrolled: 0, converted: 1 },
    ];
    expect(counts(cumulateSeries(window, ['a', 'b'], days))).toEqual([
      ['2026-03-01', [1, 0], [0, 0]],
      ['2026-03-02', [1, 0], [0, 0]],
      ['2026-03-03', [1, 1], [0, 0]],
      ['2026-03-04', [1, 1], [0, 0]],
    ]);
  });

  it('cumulates several variants and days (rows of one day may come split); the last point is the totals', () => {
    const days: PeriodCounts[] = [
      { variant: 'b', period: '2026-03-02', enrolled: 3, converted: 1 },
      { variant: 'a', period: '2026-03-01', enrolled: 2, converted: 0 },
      { variant: 'a', period: '2026-03-01', enrolled: 0, converted: 1 },
      { variant: 'a', period: '2026-03-04', enrolled: 1, converted: 2 },
      { variant: 'b', period: '2026-03-03', enrolled: 0, converted: 2 },
    ];
    const points = cumulateSeries(window, ['a', 'b'], days);
    expect(counts(points)).toEqual([
      ['2026-03-01', [2, 1], [0, 0]],
      ['2026-03-02', [2, 1], [3, 1]],
      ['2026-03-03', [2, 1], [3, 3]],
      ['2026-03-04', [3, 3], [3, 3]],
    ]);
    const totals = [
      { variant: 'a', enrolled: 3, converted: 3 },
      { variant: 'b', enrolled: 3, converted: 3 },
    ];
    expect(points.at(-1)!.counts).toEqual(totals);
    const series = seriesPoints(window, points);
    const final = experimentStats(totals);
    expect(series.at(-1)).toEqual({ date: '2026-03-04', interval: 'day', as_of: window.to, variants: final.variants, comparisons: final.comparisons });
    // Before anyone enrolled in b, its rate and the comparison are null.
    expect(series[0]!.variants[1]).toMatchObject({ enrolled: 0, conversion_rate: null });
    expect(series[0]!.comparisons[0]).toMatchObject({ variant: 'b', control: 'a', absolute_diff: null, chance_to_beat_control: null });
  });

  it('gives a run under 3 days one point per UTC hour, cumulated, each as of the end of its hour', () => {
    const short = { from: '2026-03-01T22:30:00.000Z', to: '2026-03-02T01:20:00.000Z' };
    const hours: PeriodCounts[] = [
      { variant: 'a', period: '2026-03-01T22', enrolled: 2, converted: 0 },
      { variant: 'b', period: '2026-03-01T23', enrolled: 1, converted: 1 },
      { variant: 'a', period: '2026-03-02T01', enrolled: 1, converted: 2 },
    ];
    const points = cumulateSeries(short, ['a', 'b'], hours);
    expect(counts(points)).toEqual([
      ['2026-03-01T22:00:00.000Z', [2, 0], [0, 0]],
      ['2026-03-01T23:00:00.000Z', [2, 0], [1, 1]],
      ['2026-03-02T00:00:00.000Z', [2, 0], [1, 1]],
      ['2026-03-02T01:00:00.000Z', [3, 2], [1, 1]],
    ]);
    const series = seriesPoints(short, points);
    expect(series.map((p) => [p.interval, p.as_of])).toEqual([
      ['hour', '2026-03-01T22:59:59.999Z'],
      ['hour', '2026-03-01T23:59:59.999Z'],
      ['hour', '2026-03-02T00:59:59.999Z'],
      ['hour', short.to],
    ]);
    // A day's period in an hourly run (or an hour in a daily one) is a bug upstream.
    expect(() => cumulateSeries(short, ['a'], [{ variant: 'a', period: '2026-03-01', enrolled: 1, converted: 0 }])).toThrow(/outside the run/);
    expect(() => cumulateSeries(window, ['a'], [{ variant: 'a', period: '2026-03-01T10', enrolled: 1, converted: 0 }])).toThrow(/outside the run/);
  });

  it('gives every day of the run a point even with no counts at all', () => {
    expect(counts(cumulateSeries(window, ['a', 'b'], []))).toHaveLength(4);
  });

  it('keeps the last maxDays points, still cumulated from the first day', () => {
    const days: PeriodCounts[] = [
      { variant: 'a', period: '2026-03-01', enrolled: 5, converted: 1 },
      { variant: 'a', period: '2026-03-03', enrolled: 1, converted: 1 },
    ];
    expect(counts(cumulateSeries(window, ['a', 'b'], days, 2))).toEqual([
      ['2026-03-03', [6, 2], [0, 0]],
      ['2026-03-04', [6, 2], [0, 0]],
    ]);
    const long = { from: '2025-01-01T00:00:00.000Z', to: '2026-06-30T00:00:00.000Z' };
    const points = cumulateSeries(long, ['a', 'b'], [{ variant: 'b', period: '2025-01-01', enrolled: 1, converted: 0 }]);
    expect(points).toHaveLength(MAX_SERIES_DAYS);
    expect(points.at(-1)!.date).toBe('2026-06-30');
    expect(points[0]!.counts[1]).toEqual({ variant: 'b', enrolled: 1, converted: 0 });
  });

  it('refuses counts it cannot place: a day outside the run, an unknown variant, a bad count', () => {
    expect(() => cumulateSeries(window, ['a'], [{ variant: 'a', period: '2026-02-28', enrolled: 1, converted: 0 }])).toThrow(/outside the run/);
    expect(() => cumulateSeries(window, ['a'], [{ variant: 'z', period: '2026-03-01', enrolled: 1, converted: 0 }])).toThrow(/not configured/);
    expect(() => cumulateSeries(window, ['a'], [{ variant: 'a', period: '2026-03-01', enrolled: -1, converted: 0 }])).toThrow(RangeError);
  });
});
