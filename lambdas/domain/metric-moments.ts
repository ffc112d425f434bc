/**
 * The mean per enrolled user of one metric in one variant, with its variance and standard error,
 * from the sufficient statistics the results SQL supplies (users, sum of values, sum of squares).
 *
 * As gbstats computes them (packages/stats/gbstats/models/statistics.py):
 * - `conversion` is a ProportionStatistic: each user's value is 0 or 1, `sum` is the number of
 *   converted users, and the variance of one user's value is p (1 - p) with p = sum / users;
 * - `count` and `sum` are SampleMeanStatistics: the unbiased sample variance
 *   (sum_squares - sum^2 / users) / (users - 1), and 0 when fewer than two users are enrolled.
 * The standard error of the mean is sqrt(variance / users).
 *
 * Null when no one is enrolled (there is no mean), as elsewhere in the statistics: never NaN.
 * Malformed statistics (negative users, more converters than users, a negative count) are a bug
 * upstream and throw a RangeError.
 */
export type MetricKind = 'conversion' | 'count' | 'sum';

export const METRIC_KINDS: readonly MetricKind[] = ['conversion', 'count', 'sum'];

/** What the results SQL must produce per metric and variant (after capping, when the metric has a `cap`). */
export interface MetricSums {
  /** Enrolled users of the variant: every one of them counts, with 0 if they never sent the event. */
  users: number;
  /** Sum over enrolled users of each user's value (for `conversion`: the number of users who converted). */
  sum: number;
  /** Sum over enrolled users of each user's value squared (for `conversion` it equals `sum` and is not read). */
  sum_squares: number;
}

export interface MetricMoments {
  users: number;
  mean: number;
  /** Variance of one user's value. */
  variance: number;
  /** Standard error of the mean: sqrt(variance / users). */
  std_error: number;
}

export function metricMoments(kind: MetricKind, sums: MetricSums): MetricMoments | null {
  assertValidSums(kind, sums);
  const { users, sum, sum_squares } = sums;
  if (users === 0) return null;
  const mean = sum / users;
  const variance = kind === 'conversion' ? mean * (1 - mean) : sampleVariance(users, sum, sum_squares);
  return { users, mean, variance, std_error: Math.sqrt(Math.max(0, variance) / users) };
}

/** Unbiased sample variance from sufficient statistics; 0 below two users, as gbstats' SampleMeanStatistic. */
function sampleVariance(users: number, sum: number, sumSquares: number): number {
  if (users <= 1) return 0;
  return (sumSquares - (sum * sum) / users) / (users - 1);
}

function assertValidSums(kind: MetricKind, s: MetricSums): void {
  if (!Number.isSafeInteger(s.users) || s.users < 0) throw new RangeError(`users must be a non-negative integer, got ${s.users}`);
  if (!Number.isFinite(s.sum) || !Number.isFinite(s.sum_squares) || s.sum_squares < 0) {
    throw new RangeError(`sum and sum_squares must be finite and sum_squares non-negative, got ${s.sum} and ${s.sum_squares}`);
  }
  if (kind === 'conversion' && !(Number.isSafeInteger(s.sum) && s.sum >= 0 && s.sum <= s.users)) {
    throw new RangeError(`a conversion metric's sum is the number of users who converted, an integer in [0, users], got ${s.sum}`);
  }
  if (kind === 'count' && s.sum < 0) throw new RangeError(`a count metric's sum cannot be negative, got ${s.sum}`);
}
