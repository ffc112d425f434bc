/**
 * Winsorization (a metric's `cap`): each enrolled user's value is capped at the `cap` percentile of
 * the pooled per-user values, as GrowthBook's percentile capping does
 * (packages/back-end/src/integrations/sql/primitives/cap-coalesce-value.ts and
 * sql/clauses/percentile-cap-select-clause.ts): one threshold over the users of every variant
 * together, then LEAST(COALESCE(value, 0), threshold) per user, before the sums and sums of squares.
 * Only large values are capped; a cap of 0.99 leaves the lowest 99% of users untouched.
 *
 * What the SQL must compute: the threshold is the continuous percentile (linear interpolation between
 * order statistics, SQL's PERCENTILE_CONT, DuckDB's quantile_cont, numpy's default "linear" method)
 * of the per-user values of all enrolled users of the experiment, zeros included (every enrolled user
 * has a value, 0 if they never sent the event). With the pooled values sorted ascending,
 * v_1 <= ... <= v_N, and h = (N - 1) cap:
 *
 *   threshold = v_(floor h + 1) + (h - floor h) (v_(floor h + 2) - v_(floor h + 1))
 *
 * GrowthBook uses APPROX_PERCENTILE on Athena/Presto; Tally needs the exact value, because DuckDB
 * (local) and Athena must agree and the incremental job must equal a full recompute. Athena has no
 * exact percentile aggregate, so the SQL gets it from ranks (row_number() over (order by value) and
 * count(*), both exact in Trino and DuckDB) and this formula. The threshold depends on every user's
 * value in the run, so capped sums cannot be added up slice by slice: the SQL must keep per-user
 * values (or recompute the threshold over all users) on each run.
 */

/** The continuous `cap` percentile of the values (PERCENTILE_CONT), or null when there are none. */
export function capThreshold(values: readonly number[], cap: number): number | null {
  assertCap(cap);
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const h = (sorted.length - 1) * cap;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  const low = sorted[lo]!;
  return low + (h - lo) * (sorted[hi]! - low);
}

/** A user's value after capping at the threshold. */
export function capValue(value: number, threshold: number): number {
  return Math.min(value, threshold);
}

/** A cap is a percentile strictly between 0 and 1 (GrowthBook: value < 1; 0 means no capping). */
export function assertCap(cap: number): void {
  if (!(cap > 0 && cap < 1)) throw new RangeError(`cap is a percentile between 0 and 1 exclusive (e.g. 0.99), got ${cap}`);
}
