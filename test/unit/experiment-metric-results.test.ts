/** The results' metrics (issue 22, domain/experiment-metric-results.ts): what the results job stores. */
import { describe, expect, it } from 'vitest';
import { experimentMetricResults } from '../../lambdas/domain/experiment-metric-results';
import type { ExperimentMetric } from '../../lambdas/domain/experiment-metric';

const PRIMARY = [
  { variant: 'a', enrolled: 1000, converted: 100 },
  { variant: 'b', enrolled: 1000, converted: 130 },
];
const REVENUE: ExperimentMetric = { name: 'Revenue', event: 'purchase', kind: 'sum', property: 'amount', role: 'guardrail', direction: 'decrease' };
const VIEWS: ExperimentMetric = { name: 'Views', event: 'page_view', kind: 'count', role: 'secondary' };
const MEASURED = [
  {
    variants: [
      { variant: 'a', users: 1000, sum: 50_000, sum_squares: 5_000_000 },
      { variant: 'b', users: 1000, sum: 40_000, sum_squares: 4_000_000 },
    ],
    values_non_negative: true,
  },
  {
    variants: [
      { variant: 'a', users: 1000, sum: 3000, sum_squares: 12_000 },
      { variant: 'b', users: 1000, sum: 3100, sum_squares: 12_500 },
    ],
    values_non_negative: true,
  },
];

describe('experimentMetricResults', () => {
  it('puts the primary metric first, a conversion named after the goal event from the goal counts, then the experiment’s metrics in order', () => {
    const { metrics } = experimentMetricResults({ goal_event: 'signup', metrics: [REVENUE, VIEWS] }, PRIMARY, MEASURED);
    expect(metrics.map((m) => [m.name, m.kind, m.role])).toEqual([
      ['signup', 'conversion', 'primary'],
      ['Revenue', 'sum', 'guardrail'],
      ['Views', 'count', 'secondary'],
    ]);
    expect(metrics[0]!.variants).toEqual([
      { variant: 'a', users: 1000, mean: 0.1, std_error: expect.any(Number) },
      { variant: 'b', users: 1000, mean: 0.13, std_error: expect.any(Number) },
    ]);
  });

  it('is sequential unless the experiment turns it off (wider intervals), and corrects by Holm unless it says none (null)', () => {
    const byDefault = experimentMetricResults({ goal_event: 'signup', metrics: [REVENUE, VIEWS], correction: null }, PRIMARY, MEASURED);
    const fixed = experimentMetricResults({ goal_event: 'signup', metrics: [REVENUE, VIEWS], sequential: false, correction: null }, PRIMARY, MEASURED);
    const width = (r: typeof byDefault) => r.metrics[0]!.comparisons[0]!.ci_high! - r.metrics[0]!.comparisons[0]!.ci_low!;
    expect(width(byDefault)).toBeGreaterThan(width(fixed));
    expect(byDefault.metrics.flatMap((m) => m.comparisons.map((c) => c.adjusted_p_value))).toEqual([null, null, null]);
    const holm = experimentMetricResults({ goal_event: 'signup', metrics: [REVENUE, VIEWS] }, PRIMARY, MEASURED);
    // The guardrail stays out of the family.
    expect(holm.metrics.map((m) => m.comparisons[0]!.adjusted_p_value === null)).toEqual([false, true, false]);
  });

  it('says guardrail_breached when a guardrail moves significantly in its bad direction, and not otherwise', () => {
    const breached = experimentMetricResults({ goal_event: 'signup', metrics: [REVENUE, VIEWS] }, PRIMARY, MEASURED);
    expect([breached.metrics[1]!.breached, breached.guardrail_breached]).toEqual([true, true]);
    const fine = experimentMetricResults({ goal_event: 'signup', metrics: [{ ...REVENUE, direction: 'increase' }, VIEWS] }, PRIMARY, MEASURED);
    expect([fine.metrics[1]!.breached, fine.guardrail_breached]).toEqual([false, false]);
    expect(experimentMetricResults({ goal_event: 'signup' }, PRIMARY, [])).toMatchObject({ guardrail_breached: false });
  });
});
