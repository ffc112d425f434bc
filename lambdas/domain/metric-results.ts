/**
 * An experiment's metrics, each with its per-variant means and every variant against the control,
 * in the shape the admin API returns (issue 22):
 *   metrics: [{ name, kind, role, variants: [{ variant, users, mean, std_error }],
 *               comparisons: [{ variant, difference, ci_low, ci_high, p_value, relative_difference,
 *                               relative_ci_low, relative_ci_high, relative_p_value, adjusted_p_value }] }]
 * plus, for a guardrail, whether it is breached.
 *
 * The multiple-testing correction (p-value-correction.ts) runs over one family: every variant against
 * the control on every metric that is not a guardrail (the primary and the secondary metrics), as
 * GrowthBook's setAdjustedPValuesOnResults does. It corrects `p_value`, the p-value of the absolute
 * difference, which is the one Tally's verdict reads. A guardrail's adjusted_p_value is null, and so is
 * every adjusted_p_value when the experiment has no correction.
 *
 * CUPED (docs/decisions/cuped.md): when every variant's sums carry their covariate, the comparisons are
 * regression-adjusted (metric-comparison.ts) and the metric says so: `cuped` true and
 * `variance_reduction` the pooled 1 - adjusted / unadjusted variance (regression-adjustment.ts). The
 * variants' means stay the unadjusted ones, as gbstats reports them. `cuped` false and
 * `variance_reduction` null when CUPED is off or no user had pre-exposure data of the metric (θ = 0).
 */
import { guardrailBreached, type GuardrailDirection } from './guardrail-breach';
import { compareMetric, type ComparisonOptions, type MetricComparison } from './metric-comparison';
import { metricMoments, type MetricKind, type MetricSums } from './metric-moments';
import { adjustPValues, type Correction } from './p-value-correction';
import { hasCovariate, varianceReduction, type AdjustableSums, type CovariateAdjustable } from './regression-adjustment';

export type MetricRole = 'primary' | 'secondary' | 'guardrail';

export interface MetricInput {
  name: string;
  kind: MetricKind;
  role: MetricRole;
  /** A guardrail's bad direction. */
  direction?: GuardrailDirection;
  /** Per variant, control first, in the experiment's variant order. */
  variants: { variant: string; sums: MetricSums | AdjustableSums }[];
  /** For a `sum` metric: whether the summed property cannot be negative (see relative-interval-floor.ts). */
  values_non_negative?: boolean;
  /** Why the metric cannot be computed, in words: its result then carries only this (no means, no comparisons). */
  unavailable?: string;
}

export interface VariantMean {
  variant: string;
  users: number;
  mean: number | null;
  std_error: number | null;
}

export interface VariantComparison extends MetricComparison {
  variant: string;
  adjusted_p_value: number | null;
}

export interface MetricResult {
  name: string;
  kind: MetricKind;
  role: MetricRole;
  variants: VariantMean[];
  comparisons: VariantComparison[];
  /** Guardrails only: a variant moved the metric in its bad direction significantly (guardrail-breach.ts). */
  breached?: boolean;
  /** Whether the comparisons are CUPED-adjusted (absent on results computed before CUPED). */
  cuped?: boolean;
  /** 1 - adjusted / unadjusted variance per user, pooled across variants; null when cuped is false. */
  variance_reduction?: number | null;
  /**
   * Why this metric cannot be computed, in words; its variants and comparisons are then empty (and a
   * guardrail is not breached). Absent when it was computed. The other metrics are unaffected.
   */
  unavailable?: string;
}

export interface MetricResultsOptions extends Omit<ComparisonOptions, 'valuesNonNegative'> {
  /** Null or absent: no correction. */
  correction?: Correction | null;
}

export function metricResults(metrics: readonly MetricInput[], options: MetricResultsOptions = {}): MetricResult[] {
  const results = metrics.map((m) => oneMetric(m, options));
  if (options.correction) applyCorrection(results, options.correction);
  return results;
}

function oneMetric(m: MetricInput, options: MetricResultsOptions): MetricResult {
  if (m.role === 'guardrail' && m.direction === undefined) throw new RangeError(`guardrail metric ${m.name} needs a direction ('increase' or 'decrease')`);
  if (m.unavailable !== undefined) {
    const result: MetricResult = {
      name: m.name,
      kind: m.kind,
      role: m.role,
      variants: [],
      comparisons: [],
      cuped: false,
      variance_reduction: null,
      unavailable: m.unavailable,
    };
    if (m.role === 'guardrail') result.breached = false;
    return result;
  }
  const [control, ...treatments] = m.variants;
  const variants = m.variants.map(({ variant, sums }) => {
    const moments = metricMoments(m.kind, sums);
    return { variant, users: sums.users, mean: moments?.mean ?? null, std_error: moments?.std_error ?? null };
  });
  const comparisons =
    control === undefined
      ? []
      : treatments.map(({ variant, sums }) => ({
          variant,
          ...compareMetric(m.kind, control.sums, sums, { ...options, valuesNonNegative: m.kind === 'sum' ? (m.values_non_negative ?? false) : true }),
          adjusted_p_value: null,
        }));
  const adjustable = m.variants.map((v) => v.sums).filter(hasCovariate);
  const reduction = adjustable.length === m.variants.length && adjustable.length > 0 ? varianceReduction(m.kind, adjustable as CovariateAdjustable[]) : null;
  const result: MetricResult = { name: m.name, kind: m.kind, role: m.role, variants, comparisons, cuped: reduction !== null, variance_reduction: reduction };
  if (m.role === 'guardrail') result.breached = guardrailBreached(m.direction!, comparisons, options.confidence);
  return result;
}

function applyCorrection(results: MetricResult[], correction: Correction): void {
  const family = results.filter((r) => r.role !== 'guardrail').flatMap((r) => r.comparisons);
  const adjusted = adjustPValues(
    family.map((c) => c.p_value),
    correction,
  );
  family.forEach((c, i) => (c.adjusted_p_value = adjusted[i] ?? null));
}
