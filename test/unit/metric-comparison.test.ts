/**
 * Known answers from gbstats (GrowthBook's statistics engine): each case names the test in
 * packages/stats/tests/frequentist/test_tests.py it takes its inputs from. The suite compares values
 * rounded to 5 decimals; the full-precision figures below were printed by gbstats itself on the same
 * inputs, so these tests hold to 1e-6 (and the rounded published figures are checked too).
 */
import { describe, expect, it } from 'vitest';
import { compareMetric } from '../../lambdas/domain/metric-comparison';
import { metricMoments } from '../../lambdas/domain/metric-moments';
import { relativeLift } from '../../lambdas/domain/relative-lift';

const TOLERANCE = 1e-6;
function near(actual: number | null, expected: number, tolerance = TOLERANCE): void {
  expect(actual).not.toBeNull();
  expect(Math.abs(actual! - expected)).toBeLessThan(tolerance);
}

// setUp of TestTwoSidedTTest: SampleMeanStatistic(sum=1396.87, sum_squares=52377.9767, n=3407) and (2422.7, 134698.29, 3461).
const MEAN_A = { users: 3407, sum: 1396.87, sum_squares: 52377.9767 };
const MEAN_B = { users: 3461, sum: 2422.7, sum_squares: 134698.29 };
const FIXED = { sequential: false } as const;

describe('mean per enrolled user and its standard error', () => {
  it('a conversion metric is a proportion: variance p (1 - p), as gbstats ProportionStatistic', () => {
    const m = metricMoments('conversion', { users: 28, sum: 14, sum_squares: 14 })!;
    expect(m.mean).toBe(0.5);
    expect(m.variance).toBe(0.25);
    near(m.std_error, Math.sqrt(0.25 / 28), 1e-15);
  });

  it('count and sum metrics use the unbiased sample variance, as gbstats SampleMeanStatistic', () => {
    const values = [0, 0, 3, 1, 7, 0, 2];
    const sums = { users: values.length, sum: values.reduce((a, b) => a + b, 0), sum_squares: values.reduce((a, b) => a + b * b, 0) };
    const mean = sums.sum / values.length;
    const variance = values.reduce((a, v) => a + (v - mean) ** 2, 0) / (values.length - 1);
    for (const kind of ['count', 'sum'] as const) {
      const m = metricMoments(kind, sums)!;
      near(m.mean, mean, 1e-12);
      near(m.variance, variance, 1e-12);
      near(m.std_error, Math.sqrt(variance / values.length), 1e-12);
    }
  });

  it('has no mean without users, and refuses statistics the SQL cannot produce', () => {
    expect(metricMoments('sum', { users: 0, sum: 0, sum_squares: 0 })).toBeNull();
    expect(() => metricMoments('conversion', { users: 5, sum: 6, sum_squares: 6 })).toThrow(/number of users who converted/);
    expect(() => metricMoments('count', { users: 5, sum: -1, sum_squares: 1 })).toThrow(/cannot be negative/);
    expect(() => metricMoments('sum', { users: 1.5, sum: 1, sum_squares: 1 })).toThrow(/non-negative integer/);
  });
});

describe('fixed-horizon comparison (gbstats TwoSidedTTest)', () => {
  it('relative difference of a mean metric: test_tests.py TestTwoSidedTTest.test_two_sided_ttest', () => {
    const c = compareMetric('sum', MEAN_A, MEAN_B, FIXED);
    near(c.relative_difference, 0.7073170731707317);
    near(c.relative_ci_low, -0.03526008906611777);
    near(c.relative_ci_high, 1.449894235407581);
    near(c.relative_p_value, 0.06191182745618362);
    // The suite's rounded figures: expected 0.70732, ci (-0.03526, 1.44989), pValue 0.06191.
    expect(c.relative_p_value!.toFixed(5)).toBe('0.06191');
  });

  it('absolute difference of a mean metric: TestTwoSidedTTest.test_two_sided_ttest_absolute', () => {
    const c = compareMetric('count', MEAN_A, MEAN_B, FIXED);
    near(c.difference, 0.29);
    near(c.ci_low, 0.04537789255929012);
    near(c.ci_high, 0.5346221074407098);
    near(c.p_value, 0.020158402643587037);
  });

  it('a conversion metric: TestTwoSidedTTest.test_two_sided_ttest_binom (16/30 against 14/28)', () => {
    const c = compareMetric('conversion', { users: 28, sum: 14, sum_squares: 14 }, { users: 30, sum: 16, sum_squares: 16 }, FIXED);
    near(c.relative_difference, 0.06666666666666665);
    near(c.relative_ci_low, -0.4776740282706786);
    near(c.relative_ci_high, 0.6110073616040119);
    near(c.relative_p_value, 0.8070716832021887);
    // Absolute difference on the same inputs, printed by gbstats with difference_type="absolute".
    near(c.difference, 0.033333333333333326);
    near(c.ci_low, -0.2296095491043773);
    near(c.ci_high, 0.29627621577104396);
    near(c.p_value, 0.8004455444388894);
  });

  it('keeps the existing conversion figures: the same relative interval as relative-lift.ts', () => {
    for (const [c, t] of [
      [
        { converted: 14, enrolled: 28 },
        { converted: 16, enrolled: 30 },
      ],
      [
        { converted: 100, enrolled: 1000 },
        { converted: 120, enrolled: 1000 },
      ],
      [
        { converted: 40, enrolled: 900 },
        { converted: 31, enrolled: 1100 },
      ],
    ] as const) {
      const lift = relativeLift(c, t)!;
      const m = compareMetric(
        'conversion',
        { users: c.enrolled, sum: c.converted, sum_squares: c.converted },
        { users: t.enrolled, sum: t.converted, sum_squares: t.converted },
        FIXED,
      );
      near(m.relative_difference, lift.estimate, 1e-12);
      near(m.relative_ci_low, lift.interval[0], 1e-9);
      near(m.relative_ci_high, lift.interval[1], 1e-9);
      near(m.relative_p_value, lift.p_value, 1e-9);
    }
  });

  it('reports nothing where gbstats does: TestTwoSidedTTest.test_two_sided_ttest_missing_variance', () => {
    // n = 2 with these sums gives a negative sample variance: gbstats returns its default output.
    const c = compareMetric('sum', { users: 2, sum: 1396.87, sum_squares: 52377.9767 }, MEAN_B, FIXED);
    expect(Object.values(c).every((v) => v === null)).toBe(true);
    // A control that never converts: no relative change exists (gbstats: BASELINE_VARIATION_ZERO / zero variance).
    const zero = compareMetric('conversion', { users: 50, sum: 0, sum_squares: 0 }, { users: 50, sum: 5, sum_squares: 5 }, FIXED);
    expect(zero.relative_difference).toBeNull();
  });
});

describe('relative intervals never pass below -100%', () => {
  // 13 users: control 2 of 6 converted, treatment 1 of 7. gbstats prints (-1.6267803769700309, 0.48392323411288807).
  const control = { users: 6, sum: 2, sum_squares: 2 };
  const treatment = { users: 7, sum: 1, sum_squares: 1 };

  it('a conversion or count metric is floored at -100%; the upper bound and p-value stay gbstats’', () => {
    const c = compareMetric('conversion', control, treatment, FIXED);
    expect(c.relative_ci_low).toBe(-1);
    near(c.relative_ci_high, 0.48392323411288807);
    near(c.relative_difference, -0.5714285714285714);
    near(c.relative_p_value, 0.2522804418105542);
  });

  it('a sum metric whose values may be negative keeps the delta-method bound', () => {
    const sums = (s: { users: number; sum: number }) => ({ ...s, sum_squares: s.sum });
    const raw = compareMetric('sum', sums(control), sums(treatment), FIXED);
    expect(raw.relative_ci_low!).toBeLessThan(-1);
    const floored = compareMetric('sum', sums(control), sums(treatment), { ...FIXED, valuesNonNegative: true });
    expect(floored.relative_ci_low).toBe(-1);
  });
});
