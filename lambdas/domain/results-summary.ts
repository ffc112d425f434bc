/**
 * An experiment's stored results at a glance, for the experiments list: how many users are enrolled,
 * each variant's lift on the goal event against the control (its relative difference, interval and
 * p-value), and the sample-ratio health. Pure: a projection of the results the results job stored.
 */
import type { Comparison, Srm, VariantStats } from './stats';

export type LiftSummary = Pick<Comparison, 'variant' | 'absolute_diff' | 'p_value' | 'relative_diff' | 'relative_ci_low' | 'relative_ci_high'>;

export interface ResultsSummary {
  /** When the summarized results were computed. */
  computed_at: string;
  /** Users enrolled in any variant. */
  enrolled: number;
  /** One per variant after the control, in the experiment's order. */
  lift: LiftSummary[];
  /** The sample-ratio check: flagged means the split is far from the intended one, and the results are not to be trusted. */
  srm: Srm;
}

export function summarizeResults(results: { computed_at: string; variants: VariantStats[]; comparisons: Comparison[]; srm: Srm }): ResultsSummary {
  return {
    computed_at: results.computed_at,
    enrolled: results.variants.reduce((sum, v) => sum + v.enrolled, 0),
    lift: results.comparisons.map((c) => ({
      variant: c.variant,
      absolute_diff: c.absolute_diff,
      p_value: c.p_value,
      relative_diff: c.relative_diff,
      relative_ci_low: c.relative_ci_low,
      relative_ci_high: c.relative_ci_high,
    })),
    srm: { flagged: results.srm.flagged, p_value: results.srm.p_value },
  };
}
