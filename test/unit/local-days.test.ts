/**
 * Local days in a project's time zone (lambdas/domain/insights/local-days.ts): where a local day
 * starts, its length around daylight-saving changes, the UTC day partitions a range of local days
 * spans, the local hours of a day and their labels; and which zone names a project may have.
 */
import { describe, expect, it } from 'vitest';
import { dayStartMs, localDay, localHours, offsetMs, utcDaysOf } from '../../lambdas/domain/insights/local-days';
import { toTrendsResult, trendBuckets } from '../../lambdas/domain/insights/trends-result';
import { TrendsDefinition } from '../../lambdas/domain/insights/trends-definition';
import { toRetentionResult } from '../../lambdas/domain/insights/retention-result';
import { RetentionDefinition } from '../../lambdas/domain/insights/retention-definition';
import { isTimeZone } from '../../lambdas/domain/time-zone';

const iso = (ms: number) => new Date(ms).toISOString();

describe('local days', () => {
  it('start at local midnight, as UTC instants', () => {
    expect(iso(dayStartMs('UTC', '2026-06-10'))).toBe('2026-06-10T00:00:00.000Z');
    expect(iso(dayStartMs('Pacific/Kiritimati', '2026-06-10'))).toBe('2026-06-09T10:00:00.000Z');
    expect(iso(dayStartMs('Pacific/Honolulu', '2026-06-10'))).toBe('2026-06-10T10:00:00.000Z');
    expect(iso(dayStartMs('Asia/Kolkata', '2026-06-10'))).toBe('2026-06-09T18:30:00.000Z');
    expect(iso(dayStartMs('America/New_York', '2026-11-01'))).toBe('2026-11-01T04:00:00.000Z');
    expect(iso(dayStartMs('America/New_York', '2026-11-02'))).toBe('2026-11-02T05:00:00.000Z');
  });

  it('start at the end of a gap that swallows midnight (America/Santiago moves 00:00 to 01:00)', () => {
    // 2026-09-06: Chile's clocks jump from 00:00 (UTC-4) to 01:00 (UTC-3) at 04:00 UTC.
    expect(iso(dayStartMs('America/Santiago', '2026-09-06'))).toBe('2026-09-06T04:00:00.000Z');
    expect(localDay('America/Santiago', dayStartMs('America/Santiago', '2026-09-06'))).toBe('2026-09-06');
    expect(localDay('America/Santiago', dayStartMs('America/Santiago', '2026-09-06') - 1)).toBe('2026-09-05');
  });

  it('span the UTC day partitions of both ends', () => {
    expect(utcDaysOf('UTC', '2026-06-10', '2026-06-12')).toEqual({ fromDt: '2026-06-10', toDt: '2026-06-12' });
    expect(utcDaysOf('Pacific/Kiritimati', '2026-06-10', '2026-06-12')).toEqual({ fromDt: '2026-06-09', toDt: '2026-06-12' });
    expect(utcDaysOf('Pacific/Honolulu', '2026-06-10', '2026-06-12')).toEqual({ fromDt: '2026-06-10', toDt: '2026-06-13' });
    expect(utcDaysOf('Asia/Kolkata', '2026-06-10', '2026-06-12')).toEqual({ fromDt: '2026-06-09', toDt: '2026-06-12' });
    // Europe/London is UTC in winter and UTC+1 in summer: only the summer end reaches back a day.
    expect(utcDaysOf('Europe/London', '2026-01-10', '2026-01-12')).toEqual({ fromDt: '2026-01-10', toDt: '2026-01-12' });
    expect(utcDaysOf('Europe/London', '2026-07-10', '2026-07-12')).toEqual({ fromDt: '2026-07-09', toDt: '2026-07-12' });
  });

  it('have 23, 24 or 25 hours, each labelled once with its offset', () => {
    const hours = (zone: string, day: string, next: string) => localHours(zone, dayStartMs(zone, day), dayStartMs(zone, next), 100);
    expect(hours('America/New_York', '2026-03-08', '2026-03-09')).toHaveLength(23);
    expect(hours('America/New_York', '2026-11-01', '2026-11-02')).toHaveLength(25);
    expect(hours('Asia/Kolkata', '2026-06-10', '2026-06-11')).toHaveLength(24);
    const fallBack = hours('America/New_York', '2026-11-01', '2026-11-02').map((h) => h.label);
    expect(fallBack.slice(0, 4)).toEqual(['2026-11-01T00:00-04:00', '2026-11-01T01:00-04:00', '2026-11-01T01:00-05:00', '2026-11-01T02:00-05:00']);
    expect(new Set(fallBack).size).toBe(25);
    expect(hours('UTC', '2026-06-10', '2026-06-11')[5]).toEqual({ startMs: Date.parse('2026-06-10T05:00:00Z'), label: '2026-06-10T05:00Z' });
    expect(hours('Asia/Kathmandu', '2026-06-10', '2026-06-11')[11]).toEqual({ startMs: Date.parse('2026-06-10T05:15:00Z'), label: '2026-06-10T11:00+05:45' });
    // Australia/Lord_Howe moves its clocks by 30 minutes (01:59:59 +10:30, then 02:30 +11:00): its 02:00 hour
    // has 30 minutes and is keyed, as the SQL keys it, at 02:00 +11:00; every label is on the hour.
    const lordHowe = hours('Australia/Lord_Howe', '2026-10-04', '2026-10-05');
    expect(lordHowe.slice(1, 4).map((h) => [iso(h.startMs), h.label])).toEqual([
      ['2026-10-03T14:30:00.000Z', '2026-10-04T01:00+10:30'],
      ['2026-10-03T15:00:00.000Z', '2026-10-04T02:00+11:00'],
      ['2026-10-03T16:00:00.000Z', '2026-10-04T03:00+11:00'],
    ]);
    expect(lordHowe.every((h) => h.label.slice(14, 16) === '00')).toBe(true);
    expect(offsetMs('Australia/Lord_Howe', Date.parse('2026-10-05T00:00:00Z')) / 60_000).toBe(660);
  });

  it('key hourly trend buckets by the UTC instant the local hour starts', () => {
    expect(trendBuckets('hour', '2026-06-10', '2026-06-10', 'Asia/Kolkata').slice(0, 2)).toEqual(['2026-06-09T18:30Z', '2026-06-09T19:30Z']);
    expect(trendBuckets('hour', '2026-11-01', '2026-11-01', 'America/New_York')).toHaveLength(25);
    expect(trendBuckets('hour', '2026-06-10', '2026-06-10')).toEqual(Array.from({ length: 24 }, (_, h) => `2026-06-10T${String(h).padStart(2, '0')}:00Z`));
  });

  it("leave a previous period's hour outside a 25-hour day's buckets out of the values, in its total", () => {
    // 2026-10-31 (24 h) compared with 2026-11-01 (25 h, New York): the previous day moved forward by 24 h
    // lands on the first 24 of the 25 hours; an hour past the range (a 23-hour day compared) is dropped.
    const d = TrendsDefinition.parse({ series: [{ event: 'a' }], interval: 'hour', date_from: '2026-11-01', date_to: '2026-11-01' });
    const rows = [
      { series_index: 0, period: 'current', bucket: '2026-11-01T05:00Z', events: 2 },
      { series_index: 0, period: 'previous', bucket: '2026-11-01T05:00Z', events: 1 },
      { series_index: 0, period: 'previous', bucket: '2026-11-02T05:00Z', events: 1 },
      { series_index: 0, period: 'previous', bucket: null, events: 2 },
      { series_index: 0, period: 'current', bucket: null, events: 2 },
    ];
    const result = toTrendsResult(d, rows, { timeZone: 'America/New_York' });
    expect(result.buckets[1]).toBe('2026-11-01T01:00-04:00');
    expect(result.lines[0]!.values[1]).toBe(2);
    expect(result.lines[0]!.previous_values![1]).toBe(1);
    expect(result.lines[0]!.previous_total).toBe(2);
    // A current hour outside the range is a bug, said loudly.
    expect(() => toTrendsResult(d, [{ series_index: 0, period: 'current', bucket: '2026-11-02T05:00Z', events: 1 }], { timeZone: 'America/New_York' })).toThrow(
      /outside the range/,
    );
  });

  it("mark a retention period complete when the zone's local period has ended", () => {
    const definition = RetentionDefinition.parse({ start_event: 'a', return_event: 'b', date_from: '2026-06-10', date_to: '2026-06-12' });
    const rows = [{ cohort: '2026-06-10', period: null, users: 1 }];
    // 2026-06-11T12:00Z is 02:00 on the 11th in Honolulu: period 0 (the 10th) has ended, period 1 has begun.
    const result = toRetentionResult(definition, rows, { dataThrough: '2026-06-11T12:00:00.000Z', timeZone: 'Pacific/Honolulu' });
    expect(result.cohorts[0]!.periods.map((p) => p.complete)).toEqual([true, false]);
    // In Kiritimati it is already 02:00 on the 12th: periods 0 and 1 have ended.
    const east = toRetentionResult(definition, rows, { dataThrough: '2026-06-11T12:00:00.000Z', timeZone: 'Pacific/Kiritimati' });
    expect(east.cohorts[0]!.periods.map((p) => p.complete)).toEqual([true, true, false]);
  });
});

describe('time zone names', () => {
  it('accepts IANA names as the database spells them, and UTC', () => {
    for (const name of ['UTC', 'America/New_York', 'Asia/Kolkata', 'Asia/Calcutta', 'Europe/Kyiv', 'America/Argentina/Buenos_Aires', 'Pacific/Kiritimati']) {
      expect(isTimeZone(name), name).toBe(true);
    }
  });
  it('refuses other spellings and made-up zones', () => {
    for (const name of ['utc', 'asia/kolkata', 'Asia/kolkata', 'Mars/Olympus', 'UTC+2', '+05:30', '', ' UTC', 'America/New_York ']) {
      expect(isTimeZone(name), name).toBe(false);
    }
  });
});
