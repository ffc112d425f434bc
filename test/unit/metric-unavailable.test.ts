/**
 * A metric that cannot be computed (docs/api.md, "The numeric rule"): when an engine still returns a
 * sum that is not a finite number (Athena's text "Infinity", DuckDB's Infinity), that metric carries
 * the reason while the goal, the other metrics and the correction across them go on; nothing is
 * turned into 0 and nothing throws.
 */
import { describe, expect, it } from 'vitest';
import { metricSlots, toCountResult } from '../../lambdas/adapters/sql/render';
import { experimentMetricResults } from '../../lambdas/domain/experiment-metric-results';
import type { ExperimentMetric } from '../../lambdas/domain/experiment-metric';
import type { CountRequest } from '../../lambdas/ports';

const REVENUE: ExperimentMetric = { name: 'Revenue', event: 'purchase', kind: 'sum', property: 'amount', role: 'guardrail', direction: 'decrease' };
const VIEWS: ExperimentMetric = { name: 'Views', event: 'page_view', kind: 'count', role: 'secondary' };
const REQUEST: CountRequest = {
  projectId: 'p',
  experimentId: 'e',
  experimentName: 'E',
  variants: ['a', 'b'],
  goalEvent: 'signup',
  from: '2026-04-01T00:00:00.000Z',
  to: '2026-04-02T00:00:00.000Z',
  projectCreatedAt: '2026-03-01T00:00:00.000Z',
  metrics: [REVENUE, VIEWS],
};

describe('a metric whose sums are not finite', () => {
  const [, revenueSlot, viewsSlot] = metricSlots(REQUEST.metrics!);
  const row = (variant: string, metric: string, fields: Record<string, unknown>) => ({
    variant,
    period: null,
    metric,
    enrolled: '10',
    converted: '0',
    ...fields,
  });
  const ROWS = [
    row('a', '[]', { converted: '3' }),
    row('b', '[]', { converted: '4' }),
    // Athena returns doubles as text: "Infinity" is what an overflowing sum would read as.
    row('a', revenueSlot!, { metric_sum: 'Infinity', metric_sum_squares: 'Infinity', metric_min: '1.0' }),
    row('b', revenueSlot!, { metric_sum: '20.0', metric_sum_squares: '80.0', metric_min: '1.0' }),
    row('a', viewsSlot!, { metric_sum: '30.0', metric_sum_squares: '100.0', metric_min: '1.0' }),
    row('b', viewsSlot!, { metric_sum: '35.0', metric_sum_squares: '130.0', metric_min: '1.0' }),
  ];

  it('toCountResult reports it unavailable, with the goal and the other metric counted', () => {
    const counted = toCountResult(REQUEST, ROWS);
    expect(counted.variants).toEqual([
      { variant: 'a', enrolled: 10, converted: 3 },
      { variant: 'b', enrolled: 10, converted: 4 },
    ]);
    expect(counted.metrics![0]!.unavailable).toMatch(/not a finite number/);
    expect(counted.metrics![1]).toMatchObject({
      name: 'Views',
      variants: [
        { variant: 'a', users: 10, sum: 30 },
        { variant: 'b', users: 10, sum: 35 },
      ],
    });
    expect(counted.metrics![1]!.unavailable).toBeUndefined();
  });

  it('the results carry that metric with its reason; the goal, the other metric and the correction go on', () => {
    const counted = toCountResult(REQUEST, ROWS);
    const { metrics, guardrail_breached } = experimentMetricResults({ goal_event: 'signup', metrics: [REVENUE, VIEWS] }, counted.variants, counted.metrics!);
    expect(metrics.map((m) => [m.name, m.unavailable === undefined])).toEqual([
      ['signup', true],
      ['Revenue', false],
      ['Views', true],
    ]);
    expect(metrics[1]).toMatchObject({ variants: [], comparisons: [], breached: false });
    expect(metrics[1]!.unavailable).toMatch(/cannot be computed/);
    expect(metrics[2]!.comparisons[0]!.adjusted_p_value).toEqual(expect.any(Number));
    expect(guardrail_breached).toBe(false);
  });

  it('sums that reach the statistics as Infinity or NaN are reported, never thrown or turned into 0', () => {
    const measured = [
      {
        variants: [
          { variant: 'a', users: 10, sum: Infinity, sum_squares: Infinity },
          { variant: 'b', users: 10, sum: 1, sum_squares: 1 },
        ],
        values_non_negative: true,
      },
      {
        variants: [
          { variant: 'a', users: 10, sum: NaN, sum_squares: 1 },
          { variant: 'b', users: 10, sum: 1, sum_squares: 1 },
        ],
        values_non_negative: true,
      },
    ];
    const { metrics } = experimentMetricResults({ goal_event: 'signup', metrics: [REVENUE, VIEWS] }, counted(), measured);
    expect(metrics.slice(1).map((m) => m.unavailable)).toEqual([expect.stringMatching(/not a finite number/), expect.stringMatching(/not a finite number/)]);
  });
});

function counted() {
  return [
    { variant: 'a', enrolled: 10, converted: 3 },
    { variant: 'b', enrolled: 10, converted: 4 },
  ];
}
