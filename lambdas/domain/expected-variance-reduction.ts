/**
 * The variance reduction CUPED can be expected to give a metric, measured from the project's own
 * history (docs/decisions/cuped.md, "Planning with a measured reduction"). Pure.
 *
 * With the covariate x (the user's value over CUPED's window before a pseudo-exposure point, 0 without
 * events there, as the results keep it) and the metric y (the user's value after it), the adjusted
 * metric y − θ(x − x̄) with the optimal θ = cov(x, y) / var(x) has variance var(y)·(1 − ρ²), ρ the
 * correlation of x and y across users (Deng, Xu, Kohavi, Walker 2013, the control-variates derivation of
 * CUPED): the expected
 * reduction is ρ². It is clamped to [0, 0.9] (the planner's bounds) and null when fewer than
 * MIN_USERS users give it, or when x or y does not vary (no correlation exists).
 */

import { PLAN_BOUNDS } from './plan-bounds';

/** Sums over users of the covariate x and the metric y. */
export interface CovariateSums {
  n: number;
  sum_x: number;
  sum_x2: number;
  sum_y: number;
  sum_y2: number;
  sum_xy: number;
}

/**
 * Users below which a measured correlation is mostly noise: the standard error of a sample
 * correlation near 0 is about 1 / sqrt(n), so with 100 users ρ is known to about ±0.1.
 */
export const MIN_USERS_FOR_REDUCTION = 100;

/** The planner's largest reduction. */
export const MAX_EXPECTED_REDUCTION = PLAN_BOUNDS.varianceReduction.max;

/** ρ² from the sums, clamped to [0, MAX_EXPECTED_REDUCTION]; null when it cannot be measured. */
export function expectedVarianceReduction(sums: CovariateSums): number | null {
  const { n } = sums;
  if (!(n >= MIN_USERS_FOR_REDUCTION)) return null;
  // n times the (population) variances and covariance: the n's cancel in ρ².
  const sxx = sums.sum_x2 - (sums.sum_x * sums.sum_x) / n;
  const syy = sums.sum_y2 - (sums.sum_y * sums.sum_y) / n;
  const sxy = sums.sum_xy - (sums.sum_x * sums.sum_y) / n;
  // Relative tolerance: a constant column leaves only rounding in its centred sum of squares.
  const flat = (centred: number, raw: number) => !(centred > 1e-12 * Math.max(1, raw));
  if (flat(sxx, sums.sum_x2) || flat(syy, sums.sum_y2)) return null;
  const rho2 = (sxy * sxy) / (sxx * syy);
  if (!Number.isFinite(rho2)) return null;
  return Math.min(MAX_EXPECTED_REDUCTION, Math.max(0, rho2));
}

/** The planning baseline query's sums (ports BaselineSums) for one metric kind. */
export interface BaselineCovariateSums {
  users: number;
  converted: number;
  value_sum: number;
  value_sum_squares: number;
  covariate_converted: number;
  covariate_converted_products: number;
  covariate_value_sum: number;
  covariate_value_sum_squares: number;
  covariate_value_sum_products: number;
}

/**
 * The sums for a metric kind: conversion's x and y are 0/1 (so Σx² = Σx, Σy² = Σy, as the results'
 * covariate of a conversion is), count's and sum's are the user's value.
 */
export function covariateSumsFor(kind: 'conversion' | 'count' | 'sum', b: BaselineCovariateSums): CovariateSums {
  return kind === 'conversion'
    ? {
        n: b.users,
        sum_x: b.covariate_converted,
        sum_x2: b.covariate_converted,
        sum_y: b.converted,
        sum_y2: b.converted,
        sum_xy: b.covariate_converted_products,
      }
    : {
        n: b.users,
        sum_x: b.covariate_value_sum,
        sum_x2: b.covariate_value_sum_squares,
        sum_y: b.value_sum,
        sum_y2: b.value_sum_squares,
        sum_xy: b.covariate_value_sum_products,
      };
}
