import { describe, expect, it } from 'vitest';
import { relativeLift } from '../../lambdas/domain/relative-lift';
import { regularizedIncompleteBeta, studentTCdf, studentTQuantile, studentTTwoSidedP } from '../../lambdas/domain/student-t';

describe('Student t distribution', () => {
  it('matches published table values (two-sided 5% critical values)', () => {
    // Critical values from standard t tables: t(0.975; df).
    expect(studentTQuantile(0.975, 1)).toBeCloseTo(12.7062, 3);
    expect(studentTQuantile(0.975, 5)).toBeCloseTo(2.5706, 4);
    expect(studentTQuantile(0.975, 30)).toBeCloseTo(2.0423, 4);
    expect(studentTQuantile(0.975, 1e6)).toBeCloseTo(1.95996, 4);
    expect(studentTQuantile(0.025, 10)).toBeCloseTo(-2.2281, 4);
  });

  it('has closed forms where they exist: df = 1 is Cauchy, df = 2 is algebraic', () => {
    for (const t of [-3, -0.5, 0, 0.7, 4]) {
      expect(studentTCdf(t, 1)).toBeCloseTo(0.5 + Math.atan(t) / Math.PI, 12);
      expect(studentTCdf(t, 2)).toBeCloseTo(0.5 + t / (2 * Math.sqrt(2 + t * t)), 12);
    }
    expect(studentTTwoSidedP(0, 7)).toBe(1);
  });

  it('inverts its CDF for non-integer degrees of freedom', () => {
    for (const df of [1.5, 3.3, 55.71, 400.2]) {
      for (const p of [0.001, 0.2, 0.9, 0.999]) expect(studentTCdf(studentTQuantile(p, df), df)).toBeCloseTo(p, 10);
    }
  });

  it('regularized incomplete beta: I_x(a, 1) = x^a and I_x(1, b) = 1 - (1 - x)^b', () => {
    expect(regularizedIncompleteBeta(0.3, 2.5, 1)).toBeCloseTo(0.3 ** 2.5, 12);
    expect(regularizedIncompleteBeta(0.8, 1, 3.7)).toBeCloseTo(1 - 0.2 ** 3.7, 12);
    expect(regularizedIncompleteBeta(1, 2, 2)).toBe(1);
    expect(Number.isNaN(regularizedIncompleteBeta(1.2, 2, 2))).toBe(true);
  });
});

describe('relative lift (delta method, Welch t-test, as gbstats)', () => {
  it('matches gbstats’ known answer: 16/30 against 14/28', () => {
    const lift = relativeLift({ converted: 14, enrolled: 28 }, { converted: 16, enrolled: 30 })!;
    expect(lift.estimate).toBeCloseTo(0.06667, 4);
    expect(Math.abs(lift.interval[0] - -0.47767)).toBeLessThan(1e-3);
    expect(Math.abs(lift.interval[1] - 0.61101)).toBeLessThan(1e-3);
    expect(Math.abs(lift.p_value - 0.80707)).toBeLessThan(1e-3);
  });

  it('is symmetric in sign and narrows as samples grow', () => {
    const small = relativeLift({ converted: 100, enrolled: 1000 }, { converted: 120, enrolled: 1000 })!;
    const large = relativeLift({ converted: 10_000, enrolled: 100_000 }, { converted: 12_000, enrolled: 100_000 })!;
    expect(small.estimate).toBeCloseTo(0.2, 12);
    expect(large.estimate).toBeCloseTo(0.2, 12);
    expect(large.interval[1] - large.interval[0]).toBeLessThan((small.interval[1] - small.interval[0]) / 5);
    expect(large.p_value).toBeLessThan(1e-10);
    expect(small.p_value).toBeGreaterThan(large.p_value);
  });

  it('is null where it is undefined: control never converts, one user, no variance', () => {
    expect(relativeLift({ converted: 0, enrolled: 50 }, { converted: 5, enrolled: 50 })).toBeNull();
    expect(relativeLift({ converted: 1, enrolled: 1 }, { converted: 5, enrolled: 50 })).toBeNull();
    expect(relativeLift({ converted: 50, enrolled: 50 }, { converted: 40, enrolled: 40 })).toBeNull();
  });
});
