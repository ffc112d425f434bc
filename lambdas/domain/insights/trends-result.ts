/**
 * A trends query's rows (adapters/sql/insight-trends.sql) as the API's result (docs/api.md
 * "Insights"). Pure.
 *
 * Rows: series_index, period ('current' or 'previous'), bucket (NULL on a period's totals row),
 * breakdown_kind ('value', 'unknown' or 'other'; NULL without a breakdown), breakdown_value (the value
 * for kind 'value', else NULL), breakdown_rank (1-10, 11 for "unknown" beyond the top 10, 12 for "other"), events, users, value_sum,
 * value_count. The previous period's rows are already on the current period's buckets
 * (the query moves them forward by the period's length), so `previous_values[i]` is "the same
 * bucket one period earlier".
 */
import { breakdownLine, type BreakdownKind } from './breakdown-line';
import type { ResultContext } from './kinds';
import { addDays, DAY_MS, dayMs, msDay, previousPeriod } from './date-range';
import { dayStartMs, localHours } from './local-days';
import { MAX_HOURLY_DAYS, type TrendInterval, type TrendMeasure, type TrendsDefinition } from './trends-definition';

export interface TrendLine {
  /** The series' position in the definition. */
  series: number;
  event: string;
  measure: TrendMeasure;
  property: string | null;
  /**
   * The breakdown value as sent for kind "value"; the labels "other" (every value outside the top 10,
   * grouped) and "unknown" (events without one) for those kinds; null without a breakdown.
   */
  breakdown_value: string | null;
  /** What the line is: one value, the grouped rest ("other") or the missing value ("unknown"); null without a breakdown. */
  breakdown_kind: BreakdownKind | null;
  /** One value per bucket: a count or sum (0 when nothing happened), or an average (null when nothing had a value). */
  values: Array<number | null>;
  /** The whole period: events and sums add up; users are distinct over the period; an average over all its values. */
  total: number | null;
  /** The same buckets one period earlier; null without `compare`. */
  previous_values: Array<number | null> | null;
  previous_total: number | null;
}

export interface TrendsResult {
  interval: TrendInterval;
  date_from: string;
  date_to: string;
  /** The period compared against: the same length, immediately before; null without `compare`. */
  previous: { date_from: string; date_to: string } | null;
  /**
   * Bucket starts, in the project's time zone: YYYY-MM-DDTHH:00 and the offset (hour: `Z` in UTC, else
   * ±HH:MM, so the two 01:00 hours of a daylight-saving change are two buckets), YYYY-MM-DD (day), the
   * Monday YYYY-MM-DD (week); a week that starts before date_from is labelled date_from, never before
   * the range (see `clipped`).
   */
  buckets: string[];
  /** Indices of the weeks the range cuts (it starts after their Monday, or ends before their Sunday): they count only their days in the range. */
  clipped: number[];
  /**
   * Index of the first bucket the data do not cover to its end (it ends after `data_through`: today's
   * day, this hour or week): it and every later bucket can still grow. null when every bucket is complete.
   */
  partial_from: number | null;
  breakdown: { by: string; property: string | null } | null;
  lines: TrendLine[];
}

/**
 * The most buckets a trend has: an hourly trend of MAX_HOURLY_DAYS days (daily ones have at most 366,
 * weekly ones 54). The walk stops there whatever it is given, so no definition can make it run on.
 */
export const MAX_TREND_BUCKETS = MAX_HOURLY_DAYS * 24;

/**
 * The buckets of a range of local days in a time zone: every hour, day or week (starting Monday) that
 * overlaps it, as the query keys them: a day or week by its local first day (YYYY-MM-DD), an hour by
 * the UTC instant it starts (YYYY-MM-DDTHH:MMZ; a local hour of a zone such as Asia/Kolkata starts at
 * half past a UTC hour). Walked as epoch milliseconds (never as text, which stops sorting as time
 * past year 9999), at most MAX_TREND_BUCKETS: a longer walk throws (the definition's bounds make it
 * impossible).
 */
export function trendBuckets(interval: TrendInterval, from: string, to: string, zone = 'UTC'): string[] {
  const start = dayMs(from);
  const end = dayMs(to);
  if (!Number.isFinite(start) || !Number.isFinite(end)) throw new RangeError(`trend range is not two days: ${from}..${to}`);
  const tooMany = () => new RangeError(`a trend has at most ${MAX_TREND_BUCKETS} buckets: ${from}..${to} by ${interval} has more`);
  if (interval === 'hour') {
    // A local day of 23 or 25 hours (a daylight-saving change) has 23 or 25 buckets.
    try {
      return rangeHours(zone, from, to).map((h) => `${new Date(h.startMs).toISOString().slice(0, 16)}Z`);
    } catch {
      throw tooMany();
    }
  }
  const weekday = (new Date(start).getUTCDay() + 6) % 7; // Monday 0
  const step = interval === 'week' ? 7 * DAY_MS : DAY_MS;
  const out: string[] = [];
  for (let t = interval === 'week' ? start - weekday * DAY_MS : start; t < end + DAY_MS; t += step) {
    if (out.length === MAX_TREND_BUCKETS) throw tooMany();
    out.push(msDay(t));
  }
  return out;
}

/** The local hours of a range of local days. */
const rangeHours = (zone: string, from: string, to: string) =>
  // Two more than MAX_TREND_BUCKETS: the 25-hour days on which daylight saving ends.
  localHours(zone, dayStartMs(zone, from), dayStartMs(zone, addDays(to, 1)), MAX_TREND_BUCKETS + 2);

/** When a bucket (as trendBuckets keys it) ends in the zone: the next hour, or the next local day's or week's start. */
function bucketEndMs(interval: TrendInterval, bucket: string, zone: string): number {
  if (interval === 'hour') return Date.parse(bucket.replace(/Z$/, ':00.000Z')) + 3_600_000;
  return dayStartMs(zone, addDays(bucket, interval === 'week' ? 7 : 1));
}

/** A number as either engine returns it: bigint or number (DuckDB), text (Athena), NULL. */
function num(value: unknown, label: string): number | null {
  if (value === null || value === undefined || value === '') return null;
  const n = typeof value === 'bigint' ? Number(value) : typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n)) throw new Error(`Trends query returned a bad ${label}: ${String(value)}`);
  return n;
}

interface Cell {
  events: number;
  users: number;
  value_sum: number;
  value_count: number;
}

function measured(measure: TrendMeasure, cell: Cell | undefined): number | null {
  if (measure === 'average') return cell && cell.value_count > 0 ? cell.value_sum / cell.value_count : null;
  if (!cell) return 0;
  return measure === 'events' ? cell.events : measure === 'users' ? cell.users : cell.value_sum;
}

export function toTrendsResult(definition: TrendsDefinition, rows: Array<Record<string, unknown>>, context: ResultContext = {}): TrendsResult {
  const zone = context.timeZone ?? 'UTC';
  const buckets = trendBuckets(definition.interval, definition.date_from, definition.date_to, zone);
  const through = context.dataThrough === undefined ? undefined : Date.parse(context.dataThrough);
  const partialAt = through === undefined ? -1 : buckets.findIndex((b) => bucketEndMs(definition.interval, b, zone) > through);
  const clipped = definition.interval !== 'week' ? [] : buckets.flatMap((b, i) => (b < definition.date_from || addDays(b, 6) > definition.date_to ? [i] : []));
  const bucketIndex = new Map(buckets.map((b, i) => [b, i]));
  // (series, breakdown value) -> rank, and per period: bucket -> cell, plus the totals cell.
  const lines = new Map<
    string,
    { series: number; value: string | null; kind: BreakdownKind | null; rank: number; current: Map<string | null, Cell>; previous: Map<string | null, Cell> }
  >();
  for (const row of rows) {
    const series = num(row.series_index, 'series_index');
    if (series === null || !Number.isInteger(series) || series < 0 || series >= definition.series.length) {
      throw new Error(`Trends query returned a row of an unknown series: ${String(row.series_index)}`);
    }
    const { kind, value } = breakdownLine(row, 'Trends');
    const key = JSON.stringify([series, kind, value]);
    let line = lines.get(key);
    if (!line) {
      line = { series, value, kind, rank: num(row.breakdown_rank, 'breakdown_rank') ?? 0, current: new Map(), previous: new Map() };
      lines.set(key, line);
    }
    const bucket = row.bucket === null || row.bucket === undefined || row.bucket === '' ? null : String(row.bucket);
    if (bucket !== null && !bucketIndex.has(bucket)) {
      // The previous period moved forward by whole days: around a daylight-saving change an hour of it
      // can land outside the range's hours (a 25-hour day against a 24-hour one). Its events still
      // count in previous_total; a current bucket outside the range is a bug.
      if (row.period === 'previous' && definition.interval === 'hour') continue;
      throw new Error(`Trends query returned a bucket outside the range: ${bucket}`);
    }
    const cell: Cell = {
      events: num(row.events, 'events') ?? 0,
      users: num(row.users, 'users') ?? 0,
      value_sum: num(row.value_sum, 'value_sum') ?? 0,
      value_count: num(row.value_count, 'value_count') ?? 0,
    };
    (row.period === 'previous' ? line.previous : line.current).set(bucket, cell);
  }
  const ordered = [...lines.values()].sort((a, b) => a.series - b.series || a.rank - b.rank || String(a.value).localeCompare(String(b.value)));
  // A series nobody sent still gets its line (zeros), without a breakdown value.
  for (let i = 0; i < definition.series.length; i++) {
    if (!ordered.some((l) => l.series === i)) {
      const at = ordered.findIndex((l) => l.series > i);
      const empty = { series: i, value: null, kind: null, rank: 0, current: new Map(), previous: new Map() };
      if (at < 0) ordered.push(empty);
      else ordered.splice(at, 0, empty);
    }
  }
  return {
    interval: definition.interval,
    date_from: definition.date_from,
    date_to: definition.date_to,
    previous: definition.compare ? previousPeriod(definition) : null,
    clipped,
    partial_from: partialAt < 0 ? null : partialAt,
    // The SQL keys a week by its Monday; a week the range starts inside of is labelled by the range's first day.
    buckets:
      definition.interval === 'hour'
        ? rangeHours(zone, definition.date_from, definition.date_to).map((h) => h.label)
        : buckets.map((b) => (b < definition.date_from ? definition.date_from : b)),
    breakdown: definition.breakdown ? { by: definition.breakdown, property: definition.breakdown_property ?? null } : null,
    lines: ordered.map((line) => {
      const s = definition.series[line.series]!;
      const values = (cells: Map<string | null, Cell>) => buckets.map((b) => measured(s.measure, cells.get(b)));
      return {
        series: line.series,
        event: s.event,
        measure: s.measure,
        property: s.property ?? null,
        breakdown_value: line.value,
        breakdown_kind: line.kind,
        values: values(line.current),
        total: measured(s.measure, line.current.get(null)),
        previous_values: definition.compare ? values(line.previous) : null,
        previous_total: definition.compare ? measured(s.measure, line.previous.get(null)) : null,
      };
    }),
  };
}
