/**
 * The bounds of a plan's numbers (docs/api.md "Bounds"): where each of them still means something to a
 * person planning an experiment, and where the sample-size formula (sample-size.ts) computes it in
 * doubles without underflow, overflow or NaN. A request outside them is refused with a 400 naming the
 * field; a baseline measured from the project's events outside them is a 422 saying what to send. Pure.
 */
import type { PlanningMetric } from './sample-size';

export const PLAN_BOUNDS = {
  /** 0.1% to +1000%: a smaller change needs more users than any product has; a larger one is no experiment. */
  mde: { min: 0.001, max: 10 },
  /** 50% to 99.9%: below a coin's chance the plan finds nothing; 100% needs infinitely many users. */
  power: { min: 0.5, max: 0.999 },
  /** 0.1% to 50% (99.9% to 50% confidence): a smaller alpha is not a product decision's risk. */
  alpha: { min: 0.001, max: 0.5 },
  /** One in a million to all but one in a million. */
  rate: { min: 1e-6, max: 1 - 1e-6 },
  /** |mean| from a millionth to a trillion per user, in the metric's unit (cents of a year's revenue fit). */
  mean: { min: 1e-6, max: 1e12 },
  /** The square of the mean's bounds: the spread of a value within them. */
  variance: { min: 1e-12, max: 1e24 },
  /** One user in 100 days to ten billion a day (more people than there are). */
  usersPerDay: { min: 0.01, max: 1e10 },
  /** How long an experiment may run, for the smallest change it detects: a week to a year, whole weeks. */
  weeks: { min: 1, max: 52 },
  /**
   * CUPED's expected variance reduction (docs/decisions/cuped.md), 0 (none) to 0.9 (10× the users'
   * worth): above that a covariate would predict the metric almost exactly, which no history does.
   */
  varianceReduction: { min: 0, max: 0.9 },
} as const;

type Bounded = keyof typeof PLAN_BOUNDS;

/** "from 0.001 to 10" */
export const boundsText = (name: Bounded): string => `from ${PLAN_BOUNDS[name].min} to ${PLAN_BOUNDS[name].max}`;

/** Whether a finite number is within a bound (for mean: its magnitude). */
export function withinBound(name: Bounded, value: number): boolean {
  const v = name === 'mean' ? Math.abs(value) : value;
  return Number.isFinite(v) && v >= PLAN_BOUNDS[name].min && v <= PLAN_BOUNDS[name].max;
}

/**
 * What is wrong with a baseline (the request's or one measured from events) for a change of `mde`,
 * in words naming the baseline's field; undefined when it plans. A conversion rate that would pass
 * 100% after the change cannot change that much.
 */
export function baselineProblem(metric: PlanningMetric, mde: number): string | undefined {
  if (metric.kind === 'conversion') {
    const rate = metric.baseline_rate;
    if (!withinBound('rate', rate)) return `the conversion rate is ${rate}, but it must be ${boundsText('rate')}`;
    if (rate * (1 + mde) >= 1) {
      return `a conversion rate of ${rate} cannot rise by ${mde} (it would reach ${rate * (1 + mde)}, above 1): the largest change it can have is below ${1 / rate - 1}`;
    }
    return undefined;
  }
  if (!withinBound('mean', metric.mean)) return `the mean per user is ${metric.mean}, but its magnitude must be ${boundsText('mean')}`;
  if (!withinBound('variance', metric.variance)) return `the variance per user is ${metric.variance}, but it must be ${boundsText('variance')}`;
  return undefined;
}
