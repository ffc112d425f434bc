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
 */
import { floorRelativeInterval } from './relative-interval-floor';
import { metricMoments, type MetricKind, type MetricMoments, type MetricSums } from './metric-moments';
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

export function compareMetric(kind: MetricKind, control: MetricSums, treatment: MetricSums, options: ComparisonOptions = {}): MetricComparison {
  const confidence = options.confidence ?? 0.95;
  if (!(confidence > 0 && confidence < 1)) throw new RangeError(`confidence must be in (0, 1), got ${confidence}`);
  const alpha = 1 - confidence;
  const sequential = options.sequential ?? DEFAULT_SEQUENTIAL;
  const tuning = options.sequentialTuning ?? DEFAULT_SEQUENTIAL_TUNING;
  if (!(tuning > 0)) throw new RangeError(`sequentialTuning must be positive, got ${tuning}`);
  const c = metricMoments(kind, control);
  const t = metricMoments(kind, treatment);
  if (c === null || t === null || !comparable(c, t)) return EMPTY;

  const df = welchDegreesOfFreedom(c, t);
  const n = c.users + t.users;
  const test = (e: Estimate): { interval: [number, number]; p: number } => {
    if (sequential) {
      const half = sequentialHalfWidth(e.stdError, n, alpha, tuning);
      return { interval: [e.estimate - half, e.estimate + half], p: sequentialPValue(e.estimate, e.stdError, n, alpha, tuning) };
    }
    const half = studentTQuantile(1 - alpha / 2, df) * e.stdError;
    return { interval: [e.estimate - half, e.estimate + half], p: studentTTwoSidedP(e.estimate / e.stdError, df) };
  };

  const absolute = absoluteDifference(c, t);
  const relative = relativeDifference(c, t);
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

export function welchDegreesOfFreedom(c: MetricMoments, t: MetricMoments): number {
  const vt = t.variance / t.users;
  const vc = c.variance / c.users;
  return (vt + vc) ** 2 / (t.variance ** 2 / (t.users ** 2 * (t.users - 1)) + c.variance ** 2 / (c.users ** 2 * (c.users - 1)));
}
