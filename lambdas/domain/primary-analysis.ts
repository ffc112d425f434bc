/**
 * The experiment's own analysis of its primary metric, the one every surface that states a result reads
 * (the verdict, the metrics table, the interval chart, the experiments list and its API summary): each
 * treatment against the control on the goal's conversion, as the results' `metrics[0]` computes it with
 * the experiment's `sequential` and `correction` settings (experiment-metric-results.ts).
 *
 * The decision rests on the absolute difference and its p-value, adjusted where a correction applies
 * (the correction's family is every variant on the goal and the secondary metrics; metric-results.ts):
 * significant when that p-value is below ALPHA and the difference is not 0. Each interval keeps the
 * p-value of its own test: the absolute difference beside `p_value` (and `adjusted_p_value`), the
 * relative difference beside `relative_p_value`.
 *
 * Results computed before metrics existed have no analysis (null): the surfaces say so instead of
 * reading the older top-level `comparisons`, which are fixed-horizon and uncorrected. Pure.
 */
import { DEFAULT_CORRECTION, DEFAULT_SEQUENTIAL } from './experiment-metric-fields';
import type { MetricResult, VariantComparison } from './metric-results';
import type { Correction } from './p-value-correction';

/** Two-sided significance level of every decision. */
export const ALPHA = 0.05;

export type PrimaryOutcome = 'better' | 'worse' | 'no-significant-difference' | 'not-testable';

export interface PrimaryComparison extends VariantComparison {
  /** The p-value the decision rests on: adjusted_p_value where a correction applies, p_value otherwise. */
  decision_p_value: number | null;
  /** better or worse when decision_p_value < ALPHA and the difference is not 0; not-testable when there is no p-value. */
  outcome: PrimaryOutcome;
}

export interface PrimaryAnalysis {
  /** The goal event: the primary metric is the share of enrolled users who sent it. */
  metric: string;
  sequential: boolean;
  /** null: no correction. */
  correction: Correction | null;
  /** Comparisons in the correction's family (variants × the goal and secondary metrics); 0 without a correction. */
  family_size: number;
  comparisons: PrimaryComparison[];
}

export function primaryAnalysis(
  results: { metrics?: readonly MetricResult[] },
  experiment: { sequential?: boolean; correction?: Correction | null },
): PrimaryAnalysis | null {
  const primary = results.metrics?.find((m) => m.role === 'primary');
  if (!primary) return null;
  const correction = experiment.correction === undefined ? DEFAULT_CORRECTION : experiment.correction;
  const family = correction === null ? 0 : (results.metrics ?? []).filter((m) => m.role !== 'guardrail').reduce((n, m) => n + m.comparisons.length, 0);
  return {
    metric: primary.name,
    sequential: experiment.sequential ?? DEFAULT_SEQUENTIAL,
    correction,
    family_size: family,
    comparisons: primary.comparisons.map((c) => {
      const decision = correction === null ? c.p_value : c.adjusted_p_value;
      return { ...c, decision_p_value: decision, outcome: outcomeOf(c.difference, decision) };
    }),
  };
}

export function outcomeOf(difference: number | null, p: number | null): PrimaryOutcome {
  if (p === null || difference === null) return 'not-testable';
  if (p < ALPHA && difference !== 0) return difference > 0 ? 'better' : 'worse';
  return 'no-significant-difference';
}
