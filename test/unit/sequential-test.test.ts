/**
 * Sequential testing against gbstats' SequentialTwoSidedTTest: each case names the test in
 * packages/stats/tests/frequentist/test_tests.py (class TestSequentialTTest) it takes its inputs
 * from; full-precision figures printed by gbstats on those inputs, so they hold to 1e-6.
 */
import { describe, expect, it } from 'vitest';
import { compareMetric } from '../../lambdas/domain/metric-comparison';
import { DEFAULT_SEQUENTIAL_TUNING, sequentialRho } from '../../lambdas/domain/sequential-test';

function near(actual: number | null, expected: number, tolerance = 1e-6): void {
  expect(actual).not.toBeNull();
  expect(Math.abs(actual! - expected)).toBeLessThan(tolerance);
}

// SampleMeanStatistic(sum=1396.87, sum_squares=52377.9767, n=3000) against (2422.7, 134698.29, 3461).
const A = { users: 3000, sum: 1396.87, sum_squares: 52377.9767 };
const B = { users: 3461, sum: 2422.7, sum_squares: 134698.29 };

describe('sequential testing (gbstats SequentialTwoSidedTTest)', () => {
  it('uses GrowthBook’s default tuning parameter, 5000 (SequentialConfig)', () => {
    expect(DEFAULT_SEQUENTIAL_TUNING).toBe(5000);
    // eq. 161 of Waudby-Smith et al.: rho = sqrt((-2 ln a + ln(-2 ln a + 1)) / tuning)
    near(sequentialRho(0.05, 5000), Math.sqrt((-2 * Math.log(0.05) + Math.log(-2 * Math.log(0.05) + 1)) / 5000), 1e-15);
  });

  it('TestSequentialTTest.test_sequential_test_runs (tuning 1000)', () => {
    const c = compareMetric('sum', A, B, { sequential: true, sequentialTuning: 1000 });
    near(c.relative_difference, 0.5033610858562358);
    near(c.relative_ci_low, -0.5584405051077315);
    near(c.relative_ci_high, 1.5651626768202032);
    expect(c.relative_p_value).toBe(1);
    // Absolute difference, same inputs, printed by gbstats with difference_type="absolute".
    near(c.difference, 0.23437666666666668);
    near(c.ci_low, -0.17908917909394972);
    near(c.ci_high, 0.6478425124272831);
    expect(c.p_value).toBe(1);
  });

  it('TestSequentialTTest.test_sequential_test_runs_prop (a conversion metric, default tuning)', () => {
    const c = compareMetric('conversion', { users: 3000, sum: 1396, sum_squares: 1396 }, { users: 3461, sum: 2422, sum_squares: 2422 });
    near(c.relative_difference, 0.5038633516821496);
    near(c.relative_ci_low, 0.4009784966859415);
    near(c.relative_ci_high, 0.6067482066783576);
    near(c.relative_p_value, 5.174716682839778e-44, 1e-50);
    near(c.difference, 0.23446441298276027);
    near(c.ci_low, 0.19804879693925878);
    near(c.ci_high, 0.2708800290262618);
  });

  it('TestSequentialTTest.test_sequential_test_tuning_as_expected: tightest near the actual sample size', () => {
    const at = (tuning: number) => compareMetric('sum', A, B, { sequential: true, sequentialTuning: tuning });
    const below = at(10);
    const near6461 = at(6461);
    const above = at(10000);
    near(below.relative_ci_low, -0.7678482306106571);
    near(below.relative_ci_high, 1.7745704023231288);
    near(near6461.relative_ci_low, -0.5086146655205721);
    near(near6461.relative_ci_high, 1.5153368372330438);
    near(above.relative_ci_low, -0.5148453538427125);
    near(above.relative_ci_high, 1.5215675255551842);
    near(above.relative_p_value, 0.9538458772232895);
    const width = (c: typeof below) => c.relative_ci_high! - c.relative_ci_low!;
    expect(width(below)).toBeGreaterThan(width(above));
    expect(width(above)).toBeGreaterThan(width(near6461));
  });

  it('is wider than the fixed-horizon interval on the same data, and on by default', () => {
    const conversion = [
      { users: 3000, sum: 300, sum_squares: 300 },
      { users: 3000, sum: 360, sum_squares: 360 },
    ] as const;
    const sequential = compareMetric('conversion', ...conversion);
    const fixed = compareMetric('conversion', ...conversion, { sequential: false });
    // gbstats on these inputs: sequential (-0.06887779529844595, 0.46887779529844575) p 0.3224503846711159,
    // fixed (0.02642214118185618, 0.37357785881814365) p 0.02393370000004813.
    near(sequential.relative_ci_low, -0.06887779529844595);
    near(sequential.relative_p_value, 0.3224503846711159);
    near(fixed.relative_ci_low, 0.02642214118185618);
    near(fixed.relative_p_value, 0.02393370000004813);
  });

  it('looking after every batch of users does not inflate false positives, unlike the fixed-horizon test', () => {
    // A/A experiments (both arms convert at 10%), looked at 40 times each: how many are ever "significant"?
    const random = mulberry32(22);
    const experiments = 300;
    let everFixed = 0;
    let everSequential = 0;
    for (let e = 0; e < experiments; e++) {
      const arms = [
        { users: 0, sum: 0, sum_squares: 0 },
        { users: 0, sum: 0, sum_squares: 0 },
      ];
      let fixedHit = false;
      let sequentialHit = false;
      for (let look = 0; look < 40; look++) {
        for (const arm of arms) {
          for (let u = 0; u < 50; u++) {
            arm.users++;
            if (random() < 0.1) {
              arm.sum++;
              arm.sum_squares++;
            }
          }
        }
        const [control, treatment] = arms as [(typeof arms)[0], (typeof arms)[0]];
        if ((compareMetric('conversion', control, treatment, { sequential: false }).p_value ?? 1) < 0.05) fixedHit = true;
        if ((compareMetric('conversion', control, treatment, { sequential: true }).p_value ?? 1) < 0.05) sequentialHit = true;
      }
      if (fixedHit) everFixed++;
      if (sequentialHit) everSequential++;
    }
    // Peeking at a fixed-horizon test finds "effects" far more often than the 5% it promises...
    expect(everFixed / experiments).toBeGreaterThan(0.15);
    // ...while the always-valid p-value keeps its promise at every look.
    expect(everSequential / experiments).toBeLessThanOrEqual(0.05);
  });
});

function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
