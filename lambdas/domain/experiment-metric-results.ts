/**
 * An experiment's metric results (issue 22), as the results job stores them and the admin API returns
 * them: the primary metric first, a `conversion` named after the goal event whose per-user value is
 * 1 for a converted user (so `sum` is the converted users, from the same counts as `variants`), then
 * the experiment's metrics in its order, from the results query's per-variant sums. The options are
 * the experiment's: `sequential` and `correction`, their defaults (experiment-metric-fields.ts:
 * DEFAULT_SEQUENTIAL, DEFAULT_CORRECTION) when absent, as the experiment store fills them; a
 * `correction` of null is none.
 * `guardrail_breached` is true when any guardrail is breached (guardrail-breach.ts). Pure.
 */
import { DEFAULT_CORRECTION, DEFAULT_SEQUENTIAL } from './experiment-metric-fields';
import type { ExperimentMetric } from './experiment-metric';
import { metricResults, type MetricInput, type MetricResult } from './metric-results';
import type { Correction } from './p-value-correction';
import type { CovariateSums } from './regression-adjustment';

export interface MetricVariantSums {
  variant: string;
  users: number;
  sum: number;
  sum_squares: number;
  /** CUPED: the covariate's sums over the same users (regression-adjustment.ts); absent: unadjusted. */
  covariate?: CovariateSums;
}

export interface ExperimentMetricResults {
  metrics: MetricResult[];
  guardrail_breached: boolean;
}

export function experimentMetricResults(
  experiment: { goal_event: string; metrics?: readonly ExperimentMetric[]; sequential?: boolean; correction?: Correction | null },
  /** The goal's counts per variant, control first. */
  primary: ReadonlyArray<{ variant: string; enrolled: number; converted: number }>,
  /**
   * Per metric of experiment.metrics, in its order: the query's sums per variant, control first, or
   * why the metric cannot be computed (`unavailable`).
   */
  measured: ReadonlyArray<{ variants: readonly MetricVariantSums[]; values_non_negative: boolean; unavailable?: string }>,
  options: {
    confidence?: number;
    /**
     * CUPED: the goal's conversion counted as a metric (per variant, control first), whose covariate
     * adjusts the primary metric; its users and sum are the goal's enrolled and converted users.
     */
    primaryCovariates?: ReadonlyArray<{ variant: string; covariate?: CovariateSums }>;
  } = {},
): ExperimentMetricResults {
  const metrics = experiment.metrics ?? [];
  if (measured.length !== metrics.length) throw new RangeError(`${metrics.length} metrics but ${measured.length} measured`);
  const inputs: MetricInput[] = [
    {
      name: experiment.goal_event,
      kind: 'conversion',
      role: 'primary',
      variants: primary.map((v) => {
        const covariate = options.primaryCovariates?.find((c) => c.variant === v.variant)?.covariate;
        return { variant: v.variant, sums: { users: v.enrolled, sum: v.converted, sum_squares: v.converted, ...(covariate ? { covariate } : {}) } };
      }),
    },
    ...metrics.map((m, i): MetricInput => ({
      name: m.name,
      kind: m.kind,
      role: m.role,
      ...(m.direction !== undefined ? { direction: m.direction } : {}),
      variants: measured[i]!.variants.map(({ variant, users, sum, sum_squares, covariate }) => ({
        variant,
        sums: { users, sum, sum_squares, ...(covariate ? { covariate } : {}) },
      })),
      values_non_negative: measured[i]!.values_non_negative,
      ...unavailableReason(measured[i]!),
    })),
  ];
  const results = metricResults(inputs, {
    sequential: experiment.sequential ?? DEFAULT_SEQUENTIAL,
    correction: experiment.correction === undefined ? DEFAULT_CORRECTION : experiment.correction,
    ...(options.confidence !== undefined ? { confidence: options.confidence } : {}),
  });
  return { metrics: results, guardrail_breached: results.some((r) => r.breached === true) };
}

/**
 * Why a measured metric cannot be computed: the adapter's reason, or sums that are not finite numbers
 * (which the statistics cannot take). The metric is then reported with the reason; the others go on.
 */
function unavailableReason(m: { variants: readonly MetricVariantSums[]; unavailable?: string }): { unavailable?: string } {
  if (m.unavailable !== undefined) return { unavailable: m.unavailable };
  const finite = m.variants.every((v) => Number.isFinite(v.sum) && Number.isFinite(v.sum_squares) && v.sum_squares >= 0);
  return finite ? {} : { unavailable: 'its per-user values add up to a sum that is not a finite number, so its means and comparisons cannot be computed' };
}
