/**
 * Planning's baseline from the project's own recent events (issue 22, "Planning"): the sums of the
 * baseline query (lambdas/adapters/sql/planning-baseline.sql) over a look-back of N days become what
 * sampleSize needs. Pure.
 *
 * - Users per day (the expected enrolments per day): the active users of the look-back (distinct
 *   canonical users with any event) over the days the look-back has data for: from its first event to
 *   its end, at least 1 day and at most N. An experiment enrolls a user once, so the rate at which
 *   distinct users arrive is the rate at which it enrolls them; a project younger than N days is not
 *   diluted by days before its first event.
 * - Conversion: the share of active users who sent the event.
 * - Count and sum: the mean per active user of the event's count (or the property's sum), users without
 *   the event counting 0, and the sample variance (n - 1) of those values.
 */
import type { PlanningMetric } from './sample-size';

export const PLANNING_METRIC_KINDS = ['conversion', 'count', 'sum'] as const;
export type PlanningMetricKind = (typeof PLANNING_METRIC_KINDS)[number];

/** The look-back when the request names none, and the longest it may name. */
export const DEFAULT_LOOKBACK_DAYS = 14;
export const MAX_LOOKBACK_DAYS = 90;

const DAY_MS = 86_400_000;

export interface BaselineCounts {
  users: number;
  converted: number;
  value_sum: number;
  value_sum_squares: number;
  first_seen: string | null;
}

export interface MeasuredBaseline {
  /** What the metric looks like today, as sampleSize takes it. */
  metric: PlanningMetric;
  users: number;
  users_per_day: number;
  /** Days the look-back has data for (users_per_day's denominator). */
  days_observed: number;
}

/** The baseline, or why the events cannot give one (a sentence saying what to send instead). */
export function measuredBaseline(
  kind: PlanningMetricKind,
  counts: BaselineCounts,
  window: { to: string; lookbackDays: number },
): MeasuredBaseline | { problem: string } {
  const { users } = counts;
  if (users === 0 || counts.first_seen === null) {
    return { problem: `the project has no events in the last ${window.lookbackDays} days` };
  }
  const observedMs = Date.parse(window.to) - Date.parse(counts.first_seen);
  const days = Math.min(window.lookbackDays, Math.max(1, observedMs / DAY_MS));
  const base = { users, users_per_day: users / days, days_observed: days };
  if (kind === 'conversion') {
    const rate = counts.converted / users;
    if (rate === 0) return { problem: `none of the ${users} active users sent the event in the last ${window.lookbackDays} days` };
    if (rate === 1) return { problem: `every one of the ${users} active users sent the event, so no increase can be detected` };
    return { ...base, metric: { kind: 'conversion', baseline_rate: rate } };
  }
  const mean = counts.value_sum / users;
  if (mean === 0) return { problem: `the ${users} active users' mean is 0 in the last ${window.lookbackDays} days, so a relative change means nothing` };
  if (users < 2) return { problem: 'one active user cannot give a variance' };
  const variance = Math.max(0, (counts.value_sum_squares - (counts.value_sum * counts.value_sum) / users) / (users - 1));
  if (!(variance > 0)) return { problem: `every active user has the same value (${mean}), so the variance is 0` };
  return { ...base, metric: { kind: 'mean', mean, variance } };
}
