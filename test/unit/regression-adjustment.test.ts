/**
 * CUPED known answers from gbstats (GrowthBook's statistics engine, commit
 * 8f1db4456915a8e7b7faf23d5632ca7219d2f469; docs/decisions/cuped.md). Each case names the gbstats test
 * its inputs come from; those tests compare values rounded to 5 decimals (their published figures are
 * checked too), and the full-precision figures below were printed by gbstats itself on the same inputs
 * (TwoSidedTTest and SequentialTwoSidedTTest over RegressionAdjustedStatistic with theta=None, i.e.
 * the pooled θ of create_theta_adjusted_statistics), so these hold to 1e-6.
 */
import { describe, expect, it } from 'vitest';
import { compareMetric } from '../../lambdas/domain/metric-comparison';
import { pooledTheta, varianceReduction } from '../../lambdas/domain/regression-adjustment';

const TOLERANCE = 1e-6;
function near(actual: number | null, expected: number, tolerance = TOLERANCE): void {
  expect(actual).not.toBeNull();
  expect(Math.abs(actual! - expected)).toBeLessThan(tolerance);
}

type Figures = { expected: number; ci: [number, number]; p: number };
function matches(c: ReturnType<typeof compareMetric>, absolute: Figures, relative: Figures): void {
  near(c.difference, absolute.expected);
  near(c.ci_low, absolute.ci[0]);
  near(c.ci_high, absolute.ci[1]);
  near(c.p_value, absolute.p);
  near(c.relative_difference, relative.expected);
  near(c.relative_ci_low, relative.ci[0]);
  near(c.relative_ci_high, relative.ci[1]);
  near(c.relative_p_value, relative.p);
}

// packages/stats/tests/frequentist/test_tests.py TestSequentialTTest.test_sequential_test_runs_ra:
// control post (1396.87, 52377.9767, n 3000), pre (16.87, 527.9767); treatment post (2422.7,
// 134698.29, n 3461), pre (22.7, 1348.29); post_pre_sum_of_products 1 in each.
const SEQ_A = { users: 3000, sum: 1396.87, sum_squares: 52377.9767, covariate: { sum: 16.87, sum_squares: 527.9767, sum_products: 1 } };
const SEQ_B = { users: 3461, sum: 2422.7, sum_squares: 134698.29, covariate: { sum: 22.7, sum_squares: 1348.29, sum_products: 1 } };

// packages/stats/tests/test_gbstats.py RA_STATISTICS_DF (TestAnalyzeMetricDfRegressionAdjustment):
// variation "zero" (control) main 300 / 600, covariate 210 / 415, product -20, 3001 users;
// "one" main 222 / 555, covariate 120 / 405, product -10, 3000 users.
const RA_A = { users: 3001, sum: 300, sum_squares: 600, covariate: { sum: 210, sum_squares: 415, sum_products: -20 } };
const RA_B = { users: 3000, sum: 222, sum_squares: 555, covariate: { sum: 120, sum_squares: 405, sum_products: -10 } };

describe('CUPED: gbstats RegressionAdjustedStatistic with the pooled theta', () => {
  it('theta as compute_theta: test_shared_models.py TestComputeTheta.test_returns_0_no_variance', () => {
    // METRIC_3 = [2, 1, 5, 3] (post) and METRIC_1 = [0.3, 0.5, 0.9, 22] (pre), N = 4, in both variants.
    const v = { users: 4, sum: 11, sum_squares: 39, covariate: { sum: 23.7, sum_squares: 485.15, sum_products: 71.6 } };
    near(pooledTheta('count', [v, v]), 0.018637909653276857);
    expect(pooledTheta('count', [v, v]).toFixed(5)).toBe('0.01864');
    // No pre-exposure variation: theta 0, and the comparison is exactly the unadjusted one.
    const none = { ...v, covariate: { sum: 0, sum_squares: 0, sum_products: 0 } };
    expect(pooledTheta('count', [none, none])).toBe(0);
    const { covariate: _c, ...plain } = v;
    void _c;
    const other = { users: 4, sum: 14, sum_squares: 60 };
    expect(compareMetric('count', none, { ...other, covariate: none.covariate })).toEqual(compareMetric('count', plain, other));
  });

  it('sequential, relative: test_tests.py TestSequentialTTest.test_sequential_test_runs_ra', () => {
    const c = compareMetric('sum', SEQ_A, SEQ_B, { sequential: true });
    // Published (rounded): expected 0.50338, ci (-0.50969, 1.51646), pValue 1.
    matches(
      c,
      { expected: 0.2343873339788538, ci: [-0.16010558651893275, 0.6288802544766403], p: 0.7600207129748536 },
      { expected: 0.503383995601997, ci: [-0.509694174070741, 1.516462165274735], p: 1 },
    );
    expect([c.relative_difference, c.relative_ci_low, c.relative_ci_high].map((x) => x!.toFixed(5))).toEqual(['0.50338', '-0.50969', '1.51646']);
  });

  it('fixed horizon on the same inputs (gbstats TwoSidedTTest)', () => {
    matches(
      compareMetric('sum', SEQ_A, SEQ_B, { sequential: false }),
      { expected: 0.2343873339788538, ci: [-0.020126810876695933, 0.48890147883440355], p: 0.07107240110004032 },
      { expected: 0.503383995601997, ci: [-0.15022145744574444, 1.1569894486497385], p: 0.13114746054543458 },
    );
  });

  it('a count metric, fixed horizon: test_gbstats.py test_analyze_metric_df_ra', () => {
    const c = compareMetric('count', RA_A, RA_B, { sequential: false });
    matches(
      c,
      { expected: -0.02816132827514771, ci: [-0.04987423944207356, -0.00644841710822186], p: 0.011029368646360727 },
      { expected: -0.2817071538457276, ci: [-0.47206764569207416, -0.09134666199938102], p: 0.003732548615239084 },
    );
    // Published (rounded): expected -0.281707154, pValue 0.003732549; and not the unadjusted lift.
    expect(c.relative_difference!.toFixed(5)).toBe('-0.28171');
    expect(c.relative_p_value!.toFixed(5)).toBe('0.00373');
    expect(c.relative_difference!.toFixed(3)).not.toBe(((0.074 - 0.099966678) / 0.099966678).toFixed(3));
    matches(
      compareMetric('count', RA_A, RA_B, { sequential: true }),
      { expected: -0.02816132827514771, ci: [-0.06179541736533611, 0.005472760815040688], p: 0.17406659717891823 },
      { expected: -0.2817071538457276, ci: [-0.5765824790745644, 0.013168171383109217], p: 0.07197882787660587 },
    );
  });

  it('a conversion metric: test_gbstats.py test_analyze_metric_df_ra_proportion (ProportionStatistic)', () => {
    const a = { users: 3001, sum: 300, sum_squares: 300, covariate: RA_A.covariate };
    const b = { users: 3000, sum: 222, sum_squares: 222, covariate: RA_B.covariate };
    const c = compareMetric('conversion', a, b, { sequential: false });
    matches(
      c,
      { expected: -0.03160967945681005, ci: [-0.04568355391996895, -0.017535804993651153], p: 1.0867366002642598e-5 },
      { expected: -0.3162021601662899, ci: [-0.4377753250777431, -0.19462899525483665], p: 3.5255068531192535e-7 },
    );
    // Published (rounded): expected -0.31620216, pValue 0.000000353.
    expect(c.relative_p_value!.toFixed(9)).toBe('0.000000353');
    matches(
      compareMetric('conversion', a, b, { sequential: true }),
      { expected: -0.03160967945681005, ci: [-0.053410555172566807, -0.00980880374105329], p: 0.0005028847504187076 },
      { expected: -0.3162021601662899, ci: [-0.5045228294705197, -0.12788149086206], p: 2.5248307658570884e-5 },
    );
  });
});

describe('variance reduction, pooled across variants', () => {
  it('is the squared correlation of the metric and its covariate over all users, null without one', () => {
    const users = Array.from({ length: 50 }, (_, i) => ({ x: i % 7, y: (i % 7) * 2 + (i % 3) }));
    const sums = (rows: typeof users) => ({
      users: rows.length,
      sum: rows.reduce((s, r) => s + r.y, 0),
      sum_squares: rows.reduce((s, r) => s + r.y * r.y, 0),
      covariate: {
        sum: rows.reduce((s, r) => s + r.x, 0),
        sum_squares: rows.reduce((s, r) => s + r.x * r.x, 0),
        sum_products: rows.reduce((s, r) => s + r.x * r.y, 0),
      },
    });
    const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
    const mx = mean(users.map((u) => u.x));
    const my = mean(users.map((u) => u.y));
    const cov = mean(users.map((u) => (u.x - mx) * (u.y - my)));
    const r2 = cov ** 2 / (mean(users.map((u) => (u.x - mx) ** 2)) * mean(users.map((u) => (u.y - my) ** 2)));
    near(varianceReduction('count', [sums(users.slice(0, 20)), sums(users.slice(20))]), r2, 1e-12);
    expect(varianceReduction('count', [{ ...sums(users), covariate: { sum: 0, sum_squares: 0, sum_products: 0 } }])).toBeNull();
  });
});
