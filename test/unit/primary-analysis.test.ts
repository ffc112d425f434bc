/** The experiment's own analysis of its primary metric: the one figure set every surface states. */
import { describe, expect, it } from 'vitest';
import { experimentMetricResults } from '../../lambdas/domain/experiment-metric-results';
import { primaryAnalysis } from '../../lambdas/domain/primary-analysis';
import { summarizeResults } from '../../lambdas/domain/results-summary';

const counts = [
  { variant: 'control', enrolled: 1000, converted: 100 },
  { variant: 'a', enrolled: 1000, converted: 170 },
  { variant: 'b', enrolled: 1000, converted: 104 },
];
const revenue = { name: 'Revenue', kind: 'sum' as const, event: 'purchase', property: 'amount', role: 'secondary' as const };
const measured = [
  {
    values_non_negative: true,
    variants: counts.map((c, i) => ({ variant: c.variant, users: c.enrolled, sum: 5000 + i * 100, sum_squares: 400_000 + i * 1000 })),
  },
];

function resultsOf(settings: { sequential?: boolean; correction?: 'holm' | 'benjamini-hochberg' | null }) {
  const experiment = { goal_event: 'purchase', metrics: [revenue], ...settings };
  return { experiment, metrics: experimentMetricResults(experiment, counts, measured).metrics };
}

describe('primary analysis', () => {
  it('decides on the adjusted p-value when the experiment corrects, on the raw one when it does not', () => {
    const holm = resultsOf({});
    const analysis = primaryAnalysis(holm, holm.experiment)!;
    expect(analysis).toMatchObject({ metric: 'purchase', sequential: true, correction: 'holm', family_size: 4 });
    const [a, b] = analysis.comparisons;
    expect(a!.decision_p_value).toBe(holm.metrics[0]!.comparisons[0]!.adjusted_p_value);
    expect(a!.decision_p_value).toBeGreaterThan(a!.p_value!);
    expect(a!.outcome).toBe('better');
    expect(b!.outcome).toBe('no-significant-difference');

    const none = resultsOf({ correction: null, sequential: false });
    const plain = primaryAnalysis(none, none.experiment)!;
    expect(plain).toMatchObject({ sequential: false, correction: null, family_size: 0 });
    expect(plain.comparisons[0]!.decision_p_value).toBe(none.metrics[0]!.comparisons[0]!.p_value);
    // Fixed-horizon intervals are narrower than the sequential ones of the same counts.
    const width = (c: { ci_low: number | null; ci_high: number | null }) => c.ci_high! - c.ci_low!;
    expect(width(plain.comparisons[0]!)).toBeLessThan(width(a!));
  });

  it('keeps each interval with its own p-value and has no analysis for results without metrics', () => {
    const holm = resultsOf({});
    const c = primaryAnalysis(holm, holm.experiment)!.comparisons[0]!;
    expect(c).toMatchObject({ relative_p_value: holm.metrics[0]!.comparisons[0]!.relative_p_value, p_value: holm.metrics[0]!.comparisons[0]!.p_value });
    expect(primaryAnalysis({}, {})).toBeNull();
  });

  it('gives the experiments list the same figures as the analysis', () => {
    const holm = resultsOf({ correction: 'benjamini-hochberg' });
    const stored = { computed_at: 't', variants: [], srm: { flagged: false, p_value: 0.5 }, metrics: holm.metrics };
    const summary = summarizeResults(stored, holm.experiment);
    const analysis = primaryAnalysis(holm, holm.experiment)!;
    expect(summary.analysis).toEqual({ sequential: true, correction: 'benjamini-hochberg' });
    expect(summary.lift).toEqual(
      analysis.comparisons.map((c) => ({
        variant: c.variant,
        difference: c.difference,
        decision_p_value: c.decision_p_value,
        outcome: c.outcome,
        relative_difference: c.relative_difference,
        relative_ci_low: c.relative_ci_low,
        relative_ci_high: c.relative_ci_high,
        relative_p_value: c.relative_p_value,
      })),
    );
    expect(summarizeResults({ ...stored, metrics: undefined }, {})).toMatchObject({ analysis: null, lift: [] });
  });
});
