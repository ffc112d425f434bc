import { describe, expect, it } from 'vitest';
import { guardrailBreached } from '../../lambdas/domain/guardrail-breach';
import { compareMetric } from '../../lambdas/domain/metric-comparison';
import { metricResults, type MetricInput } from '../../lambdas/domain/metric-results';
import { holm } from '../../lambdas/domain/p-value-correction';

const conversion = (users: number, converted: number) => ({ users, sum: converted, sum_squares: converted });
const variants = (...sums: ReturnType<typeof conversion>[]) => sums.map((s, i) => ({ variant: ['control', 'b', 'c'][i]!, sums: s }));

const METRICS: MetricInput[] = [
  { name: 'signup', kind: 'conversion', role: 'primary', variants: variants(conversion(2000, 200), conversion(2000, 250), conversion(2000, 210)) },
  {
    name: 'pageviews',
    kind: 'count',
    role: 'secondary',
    variants: variants(
      { users: 2000, sum: 6000, sum_squares: 30000 },
      { users: 2000, sum: 6400, sum_squares: 33000 },
      { users: 2000, sum: 5900, sum_squares: 29000 },
    ),
  },
  {
    name: 'errors',
    kind: 'count',
    role: 'guardrail',
    direction: 'increase',
    variants: variants({ users: 2000, sum: 100, sum_squares: 150 }, { users: 2000, sum: 190, sum_squares: 300 }, { users: 2000, sum: 98, sum_squares: 140 }),
  },
];

describe('an experiment’s metrics in the API’s shape', () => {
  it('keeps the metrics’ order (primary first) with per-variant means and every variant against the control', () => {
    const results = metricResults(METRICS, { sequential: false });
    expect(results.map((r) => r.name)).toEqual(['signup', 'pageviews', 'errors']);
    const signup = results[0]!;
    const expected = [
      ['control', 0.1],
      ['b', 0.125],
      ['c', 0.105],
    ] as const;
    signup.variants.forEach((v, i) => {
      const [variant, mean] = expected[i]!;
      expect(v).toMatchObject({ variant, users: 2000 });
      expect(v.mean).toBeCloseTo(mean, 12);
      expect(v.std_error).toBeCloseTo(Math.sqrt((mean * (1 - mean)) / 2000), 12);
    });
    expect(signup.comparisons.map((c) => c.variant)).toEqual(['b', 'c']);
    expect(Object.keys(signup.comparisons[0]!).sort()).toEqual(
      [
        'variant',
        'difference',
        'ci_low',
        'ci_high',
        'p_value',
        'relative_difference',
        'relative_ci_low',
        'relative_ci_high',
        'relative_p_value',
        'adjusted_p_value',
      ].sort(),
    );
    expect(signup.comparisons[0]).toMatchObject(compareMetric('conversion', conversion(2000, 200), conversion(2000, 250), { sequential: false }));
  });

  it('corrects across variants × non-guardrail metrics, and leaves guardrails raw', () => {
    const results = metricResults(METRICS, { sequential: false, correction: 'holm' });
    const family = results.slice(0, 2).flatMap((r) => r.comparisons);
    expect(family).toHaveLength(4);
    expect(family.map((c) => c.adjusted_p_value)).toEqual(holm(family.map((c) => c.p_value!)));
    expect(results[2]!.comparisons.every((c) => c.adjusted_p_value === null)).toBe(true);
    // Without a correction there is no adjusted p-value at all.
    expect(metricResults(METRICS, { sequential: false }).flatMap((r) => r.comparisons.map((c) => c.adjusted_p_value))).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
    ]);
  });

  it('marks a guardrail breached when a variant moves it significantly in its bad direction', () => {
    const results = metricResults(METRICS, { sequential: false });
    expect(results[2]!.breached).toBe(true); // variant b nearly doubles errors
    expect(results[0]!.breached).toBeUndefined();
    const goodDirection = metricResults([{ ...METRICS[2]!, direction: 'decrease' }], { sequential: false });
    expect(goodDirection[0]!.breached).toBe(false);
    expect(guardrailBreached('decrease', [{ difference: -0.2, p_value: 0.01 }])).toBe(true);
    expect(guardrailBreached('decrease', [{ difference: -0.2, p_value: 0.2 }])).toBe(false);
    expect(guardrailBreached('increase', [{ difference: null, p_value: null }])).toBe(false);
    expect(() => metricResults([{ ...METRICS[2]!, direction: undefined }])).toThrow(/needs a direction/);
  });
});
