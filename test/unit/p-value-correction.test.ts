/**
 * Known answers from GrowthBook's tests of its corrections, packages/shared/test/experiments.test.ts
 * (describe "pvalue correction method" and "pvalue correction on results"). GrowthBook returns the
 * p-values sorted with their indices; the expectations below put them back in input order.
 */
import { describe, expect, it } from 'vitest';
import { adjustPValues, benjaminiHochberg, holm } from '../../lambdas/domain/p-value-correction';

function allNear(actual: (number | null)[], expected: (number | null)[]): void {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((a, i) => {
    const e = expected[i];
    if (e === null || e === undefined) expect(a).toBeNull();
    else expect(Math.abs(a! - e)).toBeLessThan(1e-6);
  });
}

describe('multiple-testing correction', () => {
  it('Holm: "pvalue correction method › does HB procedure correctly"', () => {
    // GrowthBook: [0.03, 0.05, 0.12, 0.12, 1, 1] at indices [3, 0, 2, 1, 4, 5].
    allNear(holm([0.01, 0.04, 0.03, 0.005, 0.55, 0.6]), [0.05, 0.12, 0.12, 0.03, 1, 1]);
  });

  it('Benjamini–Hochberg: "pvalue correction method › does BH procedure correctly"', () => {
    // GrowthBook: [0.964, 0.964, 0.7532, 0.2415, 0.2415, 0.0245, 0.0245] at indices [3, 0, 4, 1, 6, 2, 5].
    allNear(benjaminiHochberg([0.898, 0.138, 0.007, 0.964, 0.538, 0.006, 0.138]), [0.964, 0.2415, 0.0245, 0.964, 0.7532, 0.0245, 0.2415]);
  });

  it('"pvalue correction on results › pvals and CIs adjusted in place": two metrics, one variant', () => {
    allNear(adjustPValues([0.025, 0.03], 'holm'), [0.05, 0.05]);
    allNear(adjustPValues([0.025, 0.03], 'benjamini-hochberg'), [0.03, 0.03]);
  });

  it('leaves comparisons without a p-value out of the family, in place', () => {
    // Without the null the family has three members: Holm multiplies the smallest by 3, not 4.
    allNear(adjustPValues([0.01, null, 0.02, 0.5], 'holm'), [0.03, null, 0.04, 0.5]);
    allNear(adjustPValues([null, null], 'benjamini-hochberg'), [null, null]);
    expect(() => adjustPValues([1.2], 'holm')).toThrow(/\[0, 1\]/);
  });

  it('never makes a p-value smaller, and Holm is never below Benjamini–Hochberg', () => {
    const raw = [0.001, 0.2, 0.04, 0.03, 0.9, 0.012, 0.5];
    const h = holm(raw);
    const bh = benjaminiHochberg(raw);
    raw.forEach((p, i) => {
      expect(bh[i]!).toBeGreaterThanOrEqual(p);
      expect(h[i]!).toBeGreaterThanOrEqual(bh[i]!);
      expect(h[i]!).toBeLessThanOrEqual(1);
    });
  });
});
