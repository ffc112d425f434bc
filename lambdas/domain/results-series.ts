/**
 * Experiment results over time (issue 13; docs/identity-and-experiments.md, "Experiment results"):
 * cumulates the per-day counts of the results query into one point per UTC day of the run, then the
 * statistics of each point (experimentStats, the same as the final results).
 *
 * The point of day D is what the cumulative results would be if the run had been computed at the end
 * of day D (23:59:59.999Z), or at the run's end for its last day: the users who enrolled up to then
 * and, of those, the ones whose first goal event at or after enrollment is up to then. Identities are
 * resolved as now, so a link made later re-attributes earlier days; that keeps the series consistent
 * with the final numbers (the last point is the totals).
 *
 * Pure: the results job (services/compute-results.ts) and the results store (which keeps only the
 * counts and rebuilds the statistics on read) call it.
 */
import { experimentStats, type Comparison, type VariantCounts, type VariantStats } from './stats';

/**
 * At most this many points (the last days of the run; the counts still cumulate from its first day).
 * Bounds the stored item: with 26 variants, 400 points of counts take about 150 KB of DynamoDB's
 * 400 KB item limit.
 */
export const MAX_SERIES_DAYS = 400;

const DAY_MS = 86_400_000;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** What the results query returns per variant and UTC day: users who enrolled, and who converted, on that day. */
export interface DayCounts {
  variant: string;
  /** YYYY-MM-DD (UTC). */
  day: string;
  enrolled: number;
  converted: number;
}

/** The cumulative counts of one day, one entry per variant in configuration order. */
export interface SeriesCountsPoint {
  date: string;
  counts: VariantCounts[];
}

/** One point of the response's `series`. */
export interface SeriesPoint {
  /** The UTC day, YYYY-MM-DD. */
  date: string;
  /** The time the point is cumulated to: the end of the day, or the run's end on its last day. */
  as_of: string;
  variants: VariantStats[];
  comparisons: Comparison[];
}

/** The UTC days from the day of `from` to the day of `to`, both included. */
export function runDays(from: string, to: string): string[] {
  const start = Date.parse(`${isoDay(from, 'from')}T00:00:00.000Z`);
  const end = Date.parse(`${isoDay(to, 'to')}T00:00:00.000Z`);
  if (end < start) throw new RangeError(`The run ends (${to}) before it starts (${from})`);
  const days: string[] = [];
  for (let t = start; t <= end; t += DAY_MS) days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}

function isoDay(value: string, label: string): string {
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) throw new RangeError(`${label} is not an ISO 8601 time: "${value}"`);
  return new Date(ms).toISOString().slice(0, 10);
}

/** The point's as_of: the end of `date`, or `to` when the run ends before that. */
export function pointAsOf(date: string, to: string): string {
  const endOfDay = Date.parse(`${date}T23:59:59.999Z`);
  return new Date(Math.min(endOfDay, Date.parse(to))).toISOString();
}

/**
 * Cumulates per-day counts into one point per day of the run (window.from to window.to), keeping the
 * last `maxDays` points. Every configured variant is in every point (zeros before anyone enrolled).
 * A day outside the run, an unknown variant or a malformed count is a bug upstream: RangeError.
 */
export function cumulateSeries(window: { from: string; to: string }, variants: string[], days: DayCounts[], maxDays = MAX_SERIES_DAYS): SeriesCountsPoint[] {
  const allDays = runDays(window.from, window.to);
  const dayIndex = new Map(allDays.map((d, i) => [d, i]));
  const variantIndex = new Map(variants.map((v, i) => [v, i]));
  const enrolled = allDays.map(() => variants.map(() => 0));
  const converted = allDays.map(() => variants.map(() => 0));
  for (const d of days) {
    const i = DAY.test(d.day) ? dayIndex.get(d.day) : undefined;
    if (i === undefined) throw new RangeError(`Day ${d.day} is outside the run ${window.from} to ${window.to}`);
    const j = variantIndex.get(d.variant);
    if (j === undefined) throw new RangeError(`Variant ${d.variant} is not configured`);
    for (const n of [d.enrolled, d.converted]) {
      if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`Day ${d.day}, variant ${d.variant}: counts must be non-negative integers`);
    }
    enrolled[i]![j]! += d.enrolled;
    converted[i]![j]! += d.converted;
  }
  const running = variants.map(() => ({ enrolled: 0, converted: 0 }));
  const points = allDays.map((date, i) => {
    const counts = variants.map((variant, j) => {
      running[j]!.enrolled += enrolled[i]![j]!;
      running[j]!.converted += converted[i]![j]!;
      return { variant, enrolled: running[j]!.enrolled, converted: running[j]!.converted };
    });
    return { date, counts };
  });
  return points.slice(Math.max(0, points.length - Math.max(0, maxDays)));
}

/** The statistics of each point, as the response carries them. */
export function seriesPoints(window: { to: string }, points: SeriesCountsPoint[]): SeriesPoint[] {
  return points.map(({ date, counts }) => {
    const stats = experimentStats(counts);
    return { date, as_of: pointAsOf(date, window.to), variants: stats.variants, comparisons: stats.comparisons };
  });
}
