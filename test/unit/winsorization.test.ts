/**
 * Capping (`cap`) as GrowthBook's percentile capping does it: one threshold at a percentile of the
 * pooled per-user values (packages/back-end/src/integrations/sql/clauses/percentile-cap-select-clause.ts),
 * then LEAST(COALESCE(value, 0), threshold) per user (sql/primitives/cap-coalesce-value.ts).
 * The threshold is the continuous percentile; the expected figures are numpy.percentile's (method
 * "linear", the same definition as SQL's PERCENTILE_CONT).
 */
import { describe, expect, it } from 'vitest';
import { compareMetric } from '../../lambdas/domain/metric-comparison';
import { capThreshold, capValue } from '../../lambdas/domain/winsorization';

function near(actual: number | null, expected: number): void {
  expect(Math.abs(actual! - expected)).toBeLessThan(1e-9);
}

describe('winsorization (cap)', () => {
  it('takes the continuous percentile of the pooled per-user values, zeros included', () => {
    const values = [0, 0, 0, 1, 2, 3, 100];
    near(capThreshold(values, 0.9), 41.80000000000003); // numpy.percentile(values, 90)
    near(capThreshold(values, 0.99), 94.17999999999995); // numpy.percentile(values, 99)
    near(capThreshold(values, 0.5), 1);
    const unsorted = [5.5, 0, 0, 12.25, 0, 3, 0, 0, 40, 7.75, 0, 1];
    near(capThreshold(unsorted, 0.95), 24.73749999999998);
    near(capThreshold(unsorted, 0.8), 7.300000000000002);
    expect(capThreshold([], 0.99)).toBeNull();
    expect(capThreshold([4], 0.99)).toBe(4);
  });

  it('caps only values above the threshold', () => {
    expect(capValue(100, 41.8)).toBe(41.8);
    expect(capValue(3, 41.8)).toBe(3);
  });

  it('refuses a cap that is not a percentile', () => {
    for (const cap of [0, 1, 99, -0.5, Number.NaN]) expect(() => capThreshold([1, 2], cap)).toThrow(/between 0 and 1/);
  });

  it('keeps one whale from hiding a real difference', () => {
    // Revenue per user: the treatment lifts most users' spend by 20%, but one control user spent 5000.
    const control: number[] = Array.from({ length: 400 }, (_, i) => (i % 4 === 0 ? 10 : 0));
    control[0] = 5000;
    const treatment = Array.from({ length: 400 }, (_, i) => (i % 4 === 0 ? 12 : 0));
    const sums = (values: number[]) => ({ users: values.length, sum: values.reduce((a, b) => a + b, 0), sum_squares: values.reduce((a, b) => a + b * b, 0) });
    const threshold = capThreshold([...control, ...treatment], 0.99)!;
    const capped = (values: number[]) => sums(values.map((v) => capValue(v, threshold)));
    const raw = compareMetric('sum', sums(control), sums(treatment), { sequential: false });
    const winsorized = compareMetric('sum', capped(control), capped(treatment), { sequential: false });
    expect(raw.relative_difference!).toBeLessThan(0); // the whale makes the treatment look worse
    expect(winsorized.relative_difference!).toBeGreaterThan(0);
    expect(winsorized.p_value!).toBeLessThan(raw.p_value!);
  });
});
