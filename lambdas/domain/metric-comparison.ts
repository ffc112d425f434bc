/**
 * One metric, one variant against the control: the absolute difference of the means per enrolled
 * user and the relative difference, each with a two-sided confidence interval and p-value, as gbstats
 * computes them (packages/stats/gbstats/frequentist/tests.py, models/tests.py, utils.py):
 *
 *   absolute   d = mT - mC,               var = vT/nT + vC/nC
 *   relative   r = (mT - mC) / |mC|,      var = (vT/nT) / mC^2 + (vC/nC) mT^2 / mC^4   (delta method)
 *   df         = (vT/nT + vC/nC)^2 / (vT^2 / (nT^2 (nT - 1)) + vC^2 / (nC^2 (nC - 1)))   (Welch-Satterthwaite)
 *
 * with v the variance of one user's value (metric-moments.ts). A fixed-horizon test (TwoSidedTTest)
 * uses Student's t with df degrees of freedom; a sequential test (SequentialTwoSidedTTest) uses the
 * always-valid interval and p-value of sequential-test.ts with n = nT + nC.
 *
 * Undefined (null), as in gbstats, when either variant's values do not vary (variance 0, which
 * includes fewer than two users) or the control mean is 0: gbstats then reports no result.
 * The relative interval is kept at or above -100% when values cannot be negative
 * (relative-interval-floor.ts).
 *
 * CUPED: when both variants carry covariate sums (regression-adjustment.ts) and the pooled θ is not 0,
 * every figure is gbstats' regression-adjusted one (RegressionAdjustedStatistic): adjusted means and
 * variances in the absolute difference, its degrees of freedom and the sequential interval, and the
 * relative difference over the control's unadjusted mean with frequentist_variance_relative_cuped.
 * θ = 0 (no pre-exposure variation) falls back to the unadjusted test, as gbstats does.
 */
import { floorRelativeInterval } from './relative-interval-floor';
import { metricMoments, type MetricKind, type MetricMoments } from './metric-moments';
import { adjustedMoments, hasCovariate, pooledTheta, relativeCupedVariance, type AdjustableSums, type CovariateAdjustable } from './regression-adjustment';
import { DEFAULT_SEQUENTIAL_TUNING, sequentialHalfWidth, sequentialPValue } from './sequential-test';
import { studentTQuantile, studentTTwoSidedP } from './student-t';

export interface MetricComparison {
  difference: number | null;
  ci_low: number | null;
  ci_high: number | null;
  p_value: number | null;
  relative_difference: number | null;
  relative_ci_low: number | null;
  relative_ci_high: number | null;
  relative_p_value: number | null;
}

export interface ComparisonOptions {
  /** Two-sided confidence level of the intervals. Default 0.95 (gbstats' alpha 0.05). */
  confidence?: number;
  /** Always-valid intervals and p-values (sequential-test.ts). Default true: results are looked at while the experiment runs. */
  sequential?: boolean;
  /** The sequential tuning parameter. Default 5000, GrowthBook's. */
  sequentialTuning?: number;
  /**
   * Whether per-user values cannot be negative, which bounds the relative change at -100%.
   * Default: true for `conversion` and `count`, false for `sum` (a property may be negative).
   */
  valuesNonNegative?: boolean;
}

export const DEFAULT_SEQUENTIAL = true;

interface Estimate {
  estimate: number;
  stdError: number;
}

export function compareMetric(kind: MetricKind, control: AdjustableSums, treatment: AdjustableSums, options: ComparisonOptions = {}): MetricComparison {
  const confidence = options.confidence ?? 0.95;
  if (!(confidence > 0 && confidence < 1)) throw new RangeError(`confidence must be in (0, 1), got ${confidence}`);
  const alpha = 1 - confidence;
  const sequential = options.sequential ?? DEFAULT_SEQUENTIAL;
  const tuning = options.sequentialTuning ?? DEFAULT_SEQUENTIAL_TUNING;
  if (!(tuning > 0)) throw new RangeError(`sequentialTuning must be positive, got ${tuning}`);
  const adjusted = hasCovariate(control) && hasCovariate(treatment) ? adjustedEstimates(kind, control, treatment) : undefined;
  const estimates = adjusted === undefined ? unadjustedEstimates(kind, control, treatment) : adjusted;
  if (estimates === null) return EMPTY;
  const { absolute, relative, df } = estimates;

  const n = control.users + treatment.users;
  const test = (e: Estimate): { interval: [number, number]; p: number } => {
    if (sequential) {
      const half = sequentialHalfWidth(e.stdError, n, alpha, tuning);
      return { interval: [e.estimate - half, e.estimate + half], p: sequentialPValue(e.estimate, e.stdError, n, alpha, tuning) };
    }
    const half = studentTQuantile(1 - alpha / 2, df) * e.stdError;
    return { interval: [e.estimate - half, e.estimate + half], p: studentTTwoSidedP(e.estimate / e.stdError, df) };
  };

  const a = test(absolute);
  const r = test(relative);
  const relativeInterval = floorRelativeInterval(r.interval, options.valuesNonNegative ?? kind !== 'sum');
  return {
    difference: absolute.estimate,
    ci_low: a.interval[0],
    ci_high: a.interval[1],
    p_value: a.p,
    relative_difference: relative.estimate,
    relative_ci_low: relativeInterval[0],
    relative_ci_high: relativeInterval[1],
    relative_p_value: r.p,
  };
}

const EMPTY: MetricComparison = {
  difference: null,
  ci_low: null,
  ci_high: null,
  p_value: null,
  relative_difference: null,
  relative_ci_low: null,
  relative_ci_high: null,
  relative_p_value: null,
};

interface Estimates {
  absolute: Estimate;
  relative: Estimate;
  df: number;
}

/** The unadjusted estimates; null when gbstats gives no result. */
function unadjustedEstimates(kind: MetricKind, control: AdjustableSums, treatment: AdjustableSums): Estimates | null {
  const c = metricMoments(kind, control);
  const t = metricMoments(kind, treatment);
  if (c === null || t === null || !comparable(c, t)) return null;
  return { absolute: absoluteDifference(c, t), relative: relativeDifference(c, t), df: welchDegreesOfFreedom(c, t) };
}

/**
 * The regression-adjusted estimates (gbstats EffectMoments over RegressionAdjustedStatistics), null
 * when gbstats gives no result (a zero or negative adjusted variance, a zero control mean), undefined
 * when θ is 0 and the unadjusted test applies.
 */
function adjustedEstimates(kind: MetricKind, control: CovariateAdjustable, treatment: CovariateAdjustable): Estimates | null | undefined {
  const theta = pooledTheta(kind, [control, treatment]);
  if (theta === 0) return undefined;
  const c = adjustedMoments(kind, control, theta);
  const t = adjustedMoments(kind, treatment, theta);
  if (c === null || t === null) return null;
  const absoluteVariance = t.variance / t.users + c.variance / c.users;
  const relativeVariance = relativeCupedVariance(c, t, theta);
  if (!(c.variance > 0 && t.variance > 0 && absoluteVariance > 0 && relativeVariance > 0) || c.mean === 0 || c.unadjusted_mean === 0) return null;
  return {
    absolute: { estimate: t.mean - c.mean, stdError: Math.sqrt(absoluteVariance) },
    relative: { estimate: (t.mean - c.mean) / Math.abs(c.unadjusted_mean), stdError: Math.sqrt(relativeVariance) },
    // gbstats' TTest.dof: Welch-Satterthwaite over the adjusted variances.
    df: welchDegreesOfFreedom(c, t),
  };
}

/** gbstats' EffectMoments refuses a zero or negative variance and a zero control mean. */
function comparable(c: MetricMoments, t: MetricMoments): boolean {
  return c.variance > 0 && t.variance > 0 && c.mean !== 0;
}

function absoluteDifference(c: MetricMoments, t: MetricMoments): Estimate {
  return { estimate: t.mean - c.mean, stdError: Math.sqrt(t.variance / t.users + c.variance / c.users) };
}

function relativeDifference(c: MetricMoments, t: MetricMoments): Estimate {
  const variance = t.variance / t.users / c.mean ** 2 + ((c.variance / c.users) * t.mean ** 2) / c.mean ** 4;
  return { estimate: (t.mean - c.mean) / Math.abs(c.mean), stdError: Math.sqrt(variance) };
}

export function welchDegreesOfFreedom(c: Pick<MetricMoments, 'users' | 'variance'>, t: Pick<MetricMoments, 'users' | 'variance'>): number {
  const vt = t.variance / t.users;
  const vc = c.variance / c.users;
  return (vt + vc) ** 2 / (t.variance ** 2 / (t.users ** 2 * (t.users - 1)) + c.variance ** 2 / (c.users ** 2 * (c.users - 1)));
}
