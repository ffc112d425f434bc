/**
 * A relative change of a metric whose per-user values cannot be negative is at least -100%: the
 * treatment mean cannot fall below 0. The delta-method interval (symmetric around the estimate) can
 * still reach below -1 when the sample is small, e.g. "-384.9% to +684.9%" with 13 users.
 *
 * The rule: intersect the interval with the possible values, [-1, infinity). This never lowers
 * coverage, because the true relative change always lies in [-1, infinity): it is inside the
 * reported interval exactly when it is inside the delta-method one. The estimate, the upper bound
 * and the p-value stay as gbstats computes them, so every figure that can be compared with gbstats
 * still matches it. (A log-ratio interval would also stay above -1, but then the interval would no
 * longer match gbstats and would disagree with the p-value printed beside it.)
 *
 * For a metric whose values may be negative (a `sum` of a property that can be negative, such as
 * refunds), nothing bounds the relative change and the interval is left as it is.
 */
export const RELATIVE_FLOOR = -1;

export function floorRelativeInterval(interval: [number, number], valuesNonNegative: boolean): [number, number] {
  if (!valuesNonNegative) return interval;
  return [Math.max(RELATIVE_FLOOR, interval[0]), Math.max(RELATIVE_FLOOR, interval[1])];
}
