/**
 * CUPED (Deng, Xu, Kohavi, Walker 2013): regression adjustment of a metric by each user's own value
 * of the same metric before exposure (the covariate), as gbstats computes it
 * (packages/stats/gbstats/models/statistics.py RegressionAdjustedStatistic, compute_theta,
 * create_theta_adjusted_statistics; models/tests.py frequentist_variance_relative_cuped). Pure.
 *
 * Per variant, from the sums the results SQL supplies: n, Σy (post), Σy², Σx (pre), Σx², Σxy.
 *   variance of y and of x  as metric-moments.ts (conversion p(1-p), count and sum the sample variance)
 *   covariance              conversion Σxy/n - ΣyΣx/n²; count and sum (Σxy - ΣyΣx/n)/(n-1); 0 for n <= 1
 *   θ (pooled)              the two variants compared taken as one sample: cov(y, x) / var(x); 0 when
 *                           either pooled variance is 0 (no pre-exposure variation: gbstats then falls
 *                           back to the unadjusted test, and so does Tally)
 *   adjusted mean           mean(y) - θ mean(x)
 *   adjusted variance       var(y) + θ² var(x) - 2θ cov(y, x)   (0 for n <= 1)
 * The relative difference divides by the control's UNADJUSTED mean with the delta-method variance of
 * frequentist_variance_relative_cuped (relativeCupedVariance below).
 */
import { metricMoments, type MetricKind, type MetricSums } from './metric-moments';

/** The covariate's sums per variant (over the same enrolled users as the metric's MetricSums). */
export interface CovariateSums {
  /** Σx: the per-user pre-exposure values. */
  sum: number;
  /** Σx². */
  sum_squares: number;
  /** Σxy: each user's pre-exposure value times their (post-exposure) metric value. */
  sum_products: number;
}

export interface AdjustableSums extends MetricSums {
  covariate?: CovariateSums;
}

/** One variant's regression-adjusted figures at a given θ. */
export interface AdjustedMoments {
  users: number;
  mean: number;
  unadjusted_mean: number;
  variance: number;
  unadjusted_variance: number;
  pre_variance: number;
  covariance: number;
}

function variance(kind: MetricKind, users: number, sum: number, sumSquares: number): number {
  // metricMoments validates the metric's own sums; the covariate is read the same way (never NaN).
  if (users === 0) return 0;
  const mean = sum / users;
  if (kind === 'conversion') return mean * (1 - mean);
  return users <= 1 ? 0 : (sumSquares - (sum * sum) / users) / (users - 1);
}

function covariance(kind: MetricKind, users: number, sumY: number, sumX: number, sumXY: number): number {
  if (users <= 1) return 0;
  return kind === 'conversion' ? sumXY / users - (sumY * sumX) / users ** 2 : (sumXY - (sumY * sumX) / users) / (users - 1);
}

function assertCovariate(c: CovariateSums): void {
  if (![c.sum, c.sum_squares, c.sum_products].every(Number.isFinite) || c.sum_squares < 0) {
    throw new RangeError(`covariate sums must be finite and sum_squares non-negative, got ${c.sum}, ${c.sum_squares}, ${c.sum_products}`);
  }
}

/**
 * θ from variants taken together as one sample (gbstats compute_theta for two; Tally's
 * variance_reduction pools all variants the same way). 0 when the pooled pre or post variance is 0.
 */
export function pooledTheta(kind: MetricKind, variants: ReadonlyArray<CovariateAdjustable>): number {
  const j = joint(variants);
  const preVariance = variance(kind, j.users, j.x, j.xx);
  const postVariance = variance(kind, j.users, j.y, j.yy);
  if (preVariance === 0 || postVariance === 0) return 0;
  return covariance(kind, j.users, j.y, j.x, j.xy) / preVariance;
}

function joint(variants: ReadonlyArray<CovariateAdjustable>) {
  return variants.reduce(
    (a, v) => {
      assertCovariate(v.covariate);
      return {
        users: a.users + v.users,
        y: a.y + v.sum,
        yy: a.yy + v.sum_squares,
        x: a.x + v.covariate.sum,
        xx: a.xx + v.covariate.sum_squares,
        xy: a.xy + v.covariate.sum_products,
      };
    },
    { users: 0, y: 0, yy: 0, x: 0, xx: 0, xy: 0 },
  );
}

/** A variant's figures adjusted with θ; null without users. */
export function adjustedMoments(kind: MetricKind, sums: CovariateAdjustable, theta: number): AdjustedMoments | null {
  const post = metricMoments(kind, sums);
  if (post === null) return null;
  assertCovariate(sums.covariate);
  const { users } = sums;
  const x = sums.covariate;
  const preVariance = variance(kind, users, x.sum, x.sum_squares);
  const cov = covariance(kind, users, sums.sum, x.sum, x.sum_products);
  const adjusted = users <= 1 ? 0 : post.variance + theta ** 2 * preVariance - 2 * theta * cov;
  return {
    users,
    mean: post.mean - (theta * x.sum) / users,
    unadjusted_mean: post.mean,
    variance: adjusted,
    unadjusted_variance: post.variance,
    pre_variance: preVariance,
    covariance: cov,
  };
}

/** gbstats' frequentist_variance_relative_cuped: the delta-method variance of (mB - mA) / |unadjusted mA|. */
export function relativeCupedVariance(a: AdjustedMoments, b: AdjustedMoments, theta: number): number {
  const denTreatment = b.users * a.unadjusted_mean ** 2;
  const denControl = a.users * a.unadjusted_mean ** 2;
  if (denTreatment === 0 || denControl === 0) return 0;
  const vTreatment = b.variance / denTreatment;
  const k = -b.unadjusted_mean;
  const numA = (a.unadjusted_variance * k ** 2) / a.unadjusted_mean ** 2;
  const numB = (2 * theta * a.covariance * k) / a.unadjusted_mean;
  const numC = theta ** 2 * a.pre_variance;
  return vTreatment + (numA + numB + numC) / denControl;
}

/**
 * The metric's variance reduction, pooled across all variants: 1 - adjusted / unadjusted variance of
 * one user's value, with θ from all variants together (= the squared correlation of y and x there).
 * Null when θ is 0 (nothing to adjust with) or there is no variance.
 */
export function varianceReduction(kind: MetricKind, variants: ReadonlyArray<CovariateAdjustable>): number | null {
  const theta = pooledTheta(kind, variants);
  if (theta === 0) return null;
  const j = joint(variants);
  const post = variance(kind, j.users, j.y, j.yy);
  const adjusted = post + theta ** 2 * variance(kind, j.users, j.x, j.xx) - 2 * theta * covariance(kind, j.users, j.y, j.x, j.xy);
  return 1 - adjusted / post;
}

/** Sums that carry their covariate (CUPED requested and measured). */
export type CovariateAdjustable = MetricSums & { covariate: CovariateSums };

/** Whether a variant's sums carry their covariate. */
export function hasCovariate(sums: AdjustableSums): sums is CovariateAdjustable {
  return sums.covariate !== undefined;
}
