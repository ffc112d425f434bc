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
import { addDays } from './date-range';
import type { TrendInterval, TrendMeasure, TrendsDefinition } from './trends-definition';
import { previousPeriod } from './date-range';

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
  /** Bucket starts: YYYY-MM-DDTHH:00Z (hour), YYYY-MM-DD (day), the Monday YYYY-MM-DD (week). */
  buckets: string[];
  breakdown: { by: string; property: string | null } | null;
  lines: TrendLine[];
}

/** The buckets of a range: every hour, day or week (starting Monday, UTC) that overlaps it. */
export function trendBuckets(interval: TrendInterval, from: string, to: string): string[] {
  const out: string[] = [];
  if (interval === 'week') {
    const weekday = (new Date(`${from}T00:00:00Z`).getUTCDay() + 6) % 7; // Monday 0
    for (let d = addDays(from, -weekday); d <= to; d = addDays(d, 7)) out.push(d);
    return out;
  }
  for (let d = from; d <= to; d = addDays(d, 1)) {
    if (interval === 'day') out.push(d);
    else for (let h = 0; h < 24; h++) out.push(`${d}T${String(h).padStart(2, '0')}:00Z`);
  }
  return out;
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

export function toTrendsResult(definition: TrendsDefinition, rows: Array<Record<string, unknown>>): TrendsResult {
  const buckets = trendBuckets(definition.interval, definition.date_from, definition.date_to);
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
    if (bucket !== null && !bucketIndex.has(bucket)) throw new Error(`Trends query returned a bucket outside the range: ${bucket}`);
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
    buckets,
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
