/**
 * An experiment's stored results at a glance, for the experiments list: how many users are enrolled,
 * each variant against the control on the goal event as the experiment's own analysis states it
 * (primary-analysis.ts: its sequential and correction settings, the same figures as the results page),
 * and the sample-ratio health. Pure: a projection of the results the results job stored.
 */
import type { MetricResult } from './metric-results';
import type { Correction } from './p-value-correction';
import { primaryAnalysis, type PrimaryComparison } from './primary-analysis';
import type { Srm, VariantStats } from './stats';

/** One treatment on the primary metric: the relative difference with its own interval and p-value, and the decision. */
export type LiftSummary = Pick<
  PrimaryComparison,
  'variant' | 'difference' | 'decision_p_value' | 'outcome' | 'relative_difference' | 'relative_ci_low' | 'relative_ci_high' | 'relative_p_value'
>;

export interface ResultsSummary {
  /** When the summarized results were computed. */
  computed_at: string;
  /** Users enrolled in any variant. */
  enrolled: number;
  /** The analysis the lift is stated in; null for results computed before experiments had one (refresh them). */
  analysis: { sequential: boolean; correction: Correction | null } | null;
  /** One per variant after the control, in the experiment's order; [] without an analysis. */
  lift: LiftSummary[];
  /** The sample-ratio check: flagged means the split is far from the intended one, and the results are not to be trusted. */
  srm: Srm;
}

export function summarizeResults(
  results: { computed_at: string; variants: VariantStats[]; srm: Srm; metrics?: readonly MetricResult[] },
  experiment: { sequential?: boolean; correction?: Correction | null },
): ResultsSummary {
  const analysis = primaryAnalysis(results, experiment);
  return {
    computed_at: results.computed_at,
    enrolled: results.variants.reduce((sum, v) => sum + v.enrolled, 0),
    analysis: analysis && { sequential: analysis.sequential, correction: analysis.correction },
    lift: (analysis?.comparisons ?? []).map((c) => ({
      variant: c.variant,
      difference: c.difference,
      decision_p_value: c.decision_p_value,
      outcome: c.outcome,
      relative_difference: c.relative_difference,
      relative_ci_low: c.relative_ci_low,
      relative_ci_high: c.relative_ci_high,
      relative_p_value: c.relative_p_value,
    })),
    srm: { flagged: results.srm.flagged, p_value: results.srm.p_value },
  };
}
