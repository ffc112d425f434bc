/**
 * Experiment results over time (issue 13; issue 22 for hourly points; docs/identity-and-experiments.md,
 * "Experiment results"): cumulates the per-period counts of the results query into one point per UTC
 * hour of the run while the run is under 3 days (HOURLY_SERIES_UNDER_MS), else one per UTC day, then
 * the statistics of each point (experimentStats, the same as the final results).
 *
 * The point of period P is what the cumulative results would be if the run had been computed at the
 * end of P (HH:59:59.999Z for an hour, 23:59:59.999Z for a day), or at the run's end for its last
 * period: the users who enrolled up to then and, of those, the ones whose first goal event at or
 * after enrollment is up to then. Identities are resolved as now, so a link made later re-attributes
 * earlier periods; that keeps the series consistent with the final numbers (the last point is the
 * totals).
 *
 * Pure: the results job (services/compute-results.ts) and the results store (which keeps only the
 * counts and rebuilds the statistics on read) call it.
 */
import { experimentStats, type Comparison, type VariantCounts, type VariantStats } from './stats';

/**
 * At most this many points (the last periods of the run; the counts still cumulate from its first).
 * Bounds the stored item: with 26 variants, 400 points of counts take about 150 KB of DynamoDB's
 * 400 KB item limit. An hourly series (a run under 3 days) has at most 73 points.
 */
export const MAX_SERIES_DAYS = 400;

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** A run shorter than this (from its start to its end, or to now while running) has hourly points. */
export const HOURLY_SERIES_UNDER_MS = 3 * DAY_MS;

/** What one point of a series covers: a UTC hour or a UTC day. */
export type SeriesInterval = 'hour' | 'day';

/** The query's period of each interval: a day YYYY-MM-DD, an hour YYYY-MM-DDTHH (a timestamp's first 10 or 13 characters). */
const PERIOD: Record<SeriesInterval, RegExp> = { day: /^\d{4}-\d{2}-\d{2}$/, hour: /^\d{4}-\d{2}-\d{2}T\d{2}$/ };
const PERIOD_LENGTH: Record<SeriesInterval, number> = { day: 10, hour: 13 };
const INTERVAL_MS: Record<SeriesInterval, number> = { day: DAY_MS, hour: HOUR_MS };

/** What the results query returns per variant and UTC period: users who enrolled, and who converted, in it. */
export interface PeriodCounts {
  variant: string;
  /** YYYY-MM-DD (a UTC day) or YYYY-MM-DDTHH (a UTC hour). */
  period: string;
  enrolled: number;
  converted: number;
}

/** The cumulative counts of one period, one entry per variant in configuration order. */
export interface SeriesCountsPoint {
  /** The point's `date`: a day YYYY-MM-DD, or an hour's start YYYY-MM-DDTHH:00:00.000Z. */
  date: string;
  counts: VariantCounts[];
}

/** One point of the response's `series`. */
export interface SeriesPoint {
  /** The UTC day, YYYY-MM-DD, or the start of the UTC hour, YYYY-MM-DDTHH:00:00.000Z (interval "hour"). */
  date: string;
  /** What the point covers: "hour" while the run is under 3 days, else "day". */
  interval: SeriesInterval;
  /** The time the point is cumulated to: the end of its hour or day, or the run's end for the last one. */
  as_of: string;
  variants: VariantStats[];
  comparisons: Comparison[];
}

/** The series' interval of a run: hourly while it is under 3 days (start to end, or to now), else daily. */
export function seriesInterval(window: { from: string; to: string }): SeriesInterval {
  return toMs(window.to, 'to') - toMs(window.from, 'from') < HOURLY_SERIES_UNDER_MS ? 'hour' : 'day';
}

/** The UTC periods (query form) from the period of `from` to that of `to`, both included. */
export function runPeriods(from: string, to: string, interval: SeriesInterval): string[] {
  const step = INTERVAL_MS[interval];
  const start = Math.floor(toMs(from, 'from') / step) * step;
  const end = Math.floor(toMs(to, 'to') / step) * step;
  if (end < start) throw new RangeError(`The run ends (${to}) before it starts (${from})`);
  const periods: string[] = [];
  for (let t = start; t <= end; t += step) periods.push(new Date(t).toISOString().slice(0, PERIOD_LENGTH[interval]));
  return periods;
}

/** The UTC days from the day of `from` to the day of `to`, both included. */
export function runDays(from: string, to: string): string[] {
  return runPeriods(from, to, 'day');
}

function toMs(value: string, label: string): number {
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) throw new RangeError(`${label} is not an ISO 8601 time: "${value}"`);
  return ms;
}

/** A point's `date` for a query period: the day as is, an hour as the ISO time of its start. */
function pointDate(period: string, interval: SeriesInterval): string {
  return interval === 'day' ? period : `${period}:00:00.000Z`;
}

/** The interval of a point's `date` (stored points carry only the date). */
export function dateInterval(date: string): SeriesInterval {
  return PERIOD.day.test(date) ? 'day' : 'hour';
}

/** The point's as_of: the end of its day or hour (`date`), or `to` when the run ends before that. */
export function pointAsOf(date: string, to: string): string {
  const interval = dateInterval(date);
  const start = Date.parse(interval === 'day' ? `${date}T00:00:00.000Z` : date);
  return new Date(Math.min(start + INTERVAL_MS[interval] - 1, Date.parse(to))).toISOString();
}

/**
 * Cumulates per-period counts into one point per period of the run (window.from to window.to; hours
 * or days as seriesInterval says, which the query's periods must match), keeping the last
 * `maxPoints` points. Every configured variant is in every point (zeros before anyone enrolled). A
 * period outside the run or of the other interval, an unknown variant or a malformed count is a bug
 * upstream: RangeError.
 */
export function cumulateSeries(
  window: { from: string; to: string },
  variants: string[],
  periods: PeriodCounts[],
  maxPoints = MAX_SERIES_DAYS,
): SeriesCountsPoint[] {
  const interval = seriesInterval(window);
  const allPeriods = runPeriods(window.from, window.to, interval);
  const periodIndex = new Map(allPeriods.map((d, i) => [d, i]));
  const variantIndex = new Map(variants.map((v, i) => [v, i]));
  const enrolled = allPeriods.map(() => variants.map(() => 0));
  const converted = allPeriods.map(() => variants.map(() => 0));
  for (const d of periods) {
    const i = PERIOD[interval].test(d.period) ? periodIndex.get(d.period) : undefined;
    if (i === undefined) throw new RangeError(`Period ${d.period} is outside the run ${window.from} to ${window.to} (or not one of its ${interval}s)`);
    const j = variantIndex.get(d.variant);
    if (j === undefined) throw new RangeError(`Variant ${d.variant} is not configured`);
    for (const n of [d.enrolled, d.converted]) {
      if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`Period ${d.period}, variant ${d.variant}: counts must be non-negative integers`);
    }
    enrolled[i]![j]! += d.enrolled;
    converted[i]![j]! += d.converted;
  }
  const running = variants.map(() => ({ enrolled: 0, converted: 0 }));
  const points = allPeriods.map((period, i) => {
    const counts = variants.map((variant, j) => {
      running[j]!.enrolled += enrolled[i]![j]!;
      running[j]!.converted += converted[i]![j]!;
      return { variant, enrolled: running[j]!.enrolled, converted: running[j]!.converted };
    });
    return { date: pointDate(period, interval), counts };
  });
  return points.slice(Math.max(0, points.length - Math.max(0, maxPoints)));
}

/** The statistics of each point, as the response carries them. */
export function seriesPoints(window: { to: string }, points: SeriesCountsPoint[]): SeriesPoint[] {
  return points.map(({ date, counts }) => {
    const stats = experimentStats(counts);
    return { date, interval: dateInterval(date), as_of: pointAsOf(date, window.to), variants: stats.variants, comparisons: stats.comparisons };
  });
}
