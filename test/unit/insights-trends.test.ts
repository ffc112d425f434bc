/** The trends definition, buckets and watermark (domain/insights/): what the API accepts and the buckets a chart shows. */
import { describe, expect, it } from 'vitest';
import { previousPeriod, rangeDays } from '../../lambdas/domain/insights/date-range';
import { arrivalWatermark, insightQueryId, startToken } from '../../lambdas/domain/insights/query-id';
import { TrendsDefinition } from '../../lambdas/domain/insights/trends-definition';
import { toTrendsResult, trendBuckets } from '../../lambdas/domain/insights/trends-result';

describe('trends definition', () => {
  it('fills in the defaults: day, events, compare', () => {
    expect(TrendsDefinition.parse({ series: [{ event: 'signup' }], date_from: '2026-01-01', date_to: '2026-01-31' })).toEqual({
      series: [{ event: 'signup', measure: 'events' }],
      interval: 'day',
      date_from: '2026-01-01',
      date_to: '2026-01-31',
      compare: true,
    });
  });

  it('accepts 366 days and refuses 367, a property on a count and unknown fields', () => {
    const base = { series: [{ event: 'x' }] };
    expect(TrendsDefinition.safeParse({ ...base, date_from: '2024-01-01', date_to: '2024-12-31' }).success).toBe(true);
    expect(TrendsDefinition.safeParse({ ...base, date_from: '2024-01-01', date_to: '2025-01-01' }).success).toBe(false);
    expect(TrendsDefinition.safeParse({ series: [{ event: 'x', property: 'p' }], date_from: '2024-01-01', date_to: '2024-01-02' }).success).toBe(false);
    expect(TrendsDefinition.safeParse({ ...base, date_from: '2024-01-01', date_to: '2024-01-02', extra: 1 }).success).toBe(false);
    // The property-name rule: read literally (JSON-path syntax included), but for a quote or a backslash.
    for (const [property, accepted] of [
      ['a"b', false],
      ['a\\b', false],
      ['*', true],
      ['', false],
      ['a\u0000b', false],
      ['p'.repeat(256), false],
    ] as const) {
      const series = [{ event: 'x', measure: 'sum', property }];
      expect(TrendsDefinition.safeParse({ series, date_from: '2024-01-01', date_to: '2024-01-02' }).success).toBe(accepted);
    }
  });
});

describe('periods and buckets', () => {
  it('the previous period has the same length and ends the day before', () => {
    expect(previousPeriod({ date_from: '2026-03-01', date_to: '2026-03-31' })).toEqual({ date_from: '2026-01-29', date_to: '2026-02-28' });
    expect(rangeDays('2026-01-29', '2026-02-28')).toBe(31);
  });

  it('weeks start on Monday (UTC), from the week holding date_from to the week holding date_to', () => {
    // 2026-03-01 is a Sunday: its week began on Monday 2026-02-23.
    expect(trendBuckets('week', '2026-03-01', '2026-03-16')).toEqual(['2026-02-23', '2026-03-02', '2026-03-09', '2026-03-16']);
    expect(trendBuckets('day', '2026-02-27', '2026-03-01')).toEqual(['2026-02-27', '2026-02-28', '2026-03-01']);
    expect(trendBuckets('hour', '2026-03-01', '2026-03-01').slice(0, 2)).toEqual(['2026-03-01T00:00Z', '2026-03-01T01:00Z']);
  });

  it('walks instants, not text: never more than 744 buckets, whatever it is given, and no day that is none', () => {
    // Past year 9999 days stop sorting as text ("+010000-01-01" < "9999-12-31"): the walk went on for ever.
    expect(trendBuckets('day', '9999-12-01', '9999-12-31').at(-1)).toBe('9999-12-31');
    expect(trendBuckets('week', '9999-12-01', '9999-12-31')).toHaveLength(5);
    expect(() => trendBuckets('hour', '2026-01-01', '2026-02-01')).toThrow(/at most 744 buckets/);
    expect(() => trendBuckets('day', '2026-13-01', '2026-13-02')).toThrow(RangeError);
    expect(trendBuckets('hour', '2026-01-01', '2026-01-31')).toHaveLength(744);
    expect(trendBuckets('day', '2998-12-31', '2999-12-31')).toHaveLength(366);
  });

  it('gives a series nobody sent a line of zeros, and an average without values nulls', () => {
    const d = TrendsDefinition.parse({
      series: [{ event: 'a' }, { event: 'b', measure: 'average', property: 'p' }],
      date_from: '2026-03-01',
      date_to: '2026-03-02',
      compare: false,
    });
    const result = toTrendsResult(d, [{ series_index: '0', period: 'current', bucket: '2026-03-02', events: '3', users: '1', value_count: '0' }]);
    expect(result.lines.map((l) => [l.event, l.values, l.total])).toEqual([
      ['a', [0, 3], 0],
      ['b', [null, null], null],
    ]);
  });
});

describe('query IDs and the watermark', () => {
  it('names a query by its text and watermark, and numbers restarts in the token', () => {
    const id = insightQueryId('SELECT 1', '2026-01-01T00:00:00.000Z');
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(insightQueryId('SELECT 1', '2026-01-01T00:01:00.000Z')).not.toBe(id);
    expect(insightQueryId('SELECT 2', '2026-01-01T00:00:00.000Z')).not.toBe(id);
    expect(startToken(id, 1)).toBe(id);
    expect(startToken(id, 2)).toBe(`${id}-2`);
  });

  it('rounds the watermark down to its step, the allowance before now', () => {
    const now = Date.parse('2026-04-15T12:34:56.789Z');
    expect(arrivalWatermark(now, 25 * 60_000, 60_000)).toBe('2026-04-15T12:09:00.000Z');
    expect(arrivalWatermark(now, 0, 1000)).toBe('2026-04-15T12:34:56.000Z');
  });
});

describe('trend buckets the data do not cover yet', () => {
  it('marks the first bucket that ends after the watermark, and the ones after it, as still counting', () => {
    const definition = TrendsDefinition.parse({ series: [{ event: 'v' }], date_from: '2026-04-10', date_to: '2026-04-12', compare: false });
    const at = (dataThrough: string) => toTrendsResult(definition, [], { dataThrough }).partial_from;
    expect(at('2026-04-11T09:30:00.000Z')).toBe(1); // the 11th is today: it and the 12th can still grow
    expect(at('2026-04-12T00:00:00.000Z')).toBe(2); // the 11th is complete at midnight
    expect(at('2026-04-13T00:00:00.000Z')).toBeNull();
    expect(toTrendsResult(definition, []).partial_from).toBeNull(); // no watermark known: as before
  });
});
