/**
 * Statistics for A/B experiment results: per-variant conversion rates with Wilson intervals,
 * variant-vs-control comparisons (difference interval, z-test, Bayesian chance to beat control)
 * and a sample-ratio-mismatch check.
 *
 * Pure and dependency-free on purpose: the results job and the tests call it directly, and the
 * numbers must not depend on which version of some npm statistics package happens to be installed.
 * Every special function it needs (erfc, inverse normal CDF, log-gamma, incomplete gamma) is
 * implemented in numerics.ts with the reference it follows.
 *
 * Conventions:
 * - The first variant in the input is the control.
 * - A quantity that is undefined for the data (no one enrolled, a zero control rate for the
 *   relative difference, a degenerate z-test) is `null`, never NaN or Infinity.
 * - Malformed counts (negative, fractional, converted > enrolled) are a bug upstream, not a data
 *   state, so they throw a RangeError rather than being silently reported.
 */
import { chiSquareSf, clamp01, erfc, inverseNormalCdf, logBeta, normalCdf } from './numerics';
import { floorRelativeInterval } from './relative-interval-floor';
import { relativeLift } from './relative-lift';

export interface VariantCounts {
  variant: string;
  enrolled: number;
  converted: number;
}

export interface VariantStats {
  variant: string;
  enrolled: number;
  converted: number;
  conversion_rate: number | null;
  ci_low: number | null;
  ci_high: number | null;
}

export interface Comparison {
  variant: string;
  control: string;
  absolute_diff: number | null;
  relative_diff: number | null;
  /** Interval and p-value of absolute_diff: Newcombe's hybrid score interval, pooled z-test. */
  ci_low: number | null;
  ci_high: number | null;
  p_value: number | null;
  /**
   * Interval and p-value of relative_diff as gbstats computes them (delta method, Welch t-test: domain/relative-lift.ts),
   * the interval floored at -100% (domain/relative-interval-floor.ts: a conversion rate cannot fall below 0).
   */
  relative_ci_low: number | null;
  relative_ci_high: number | null;
  relative_p_value: number | null;
  chance_to_beat_control: number | null;
}

export interface Srm {
  p_value: number | null;
  flagged: boolean;
}

export interface ExperimentStats {
  variants: VariantStats[];
  comparisons: Comparison[];
  srm: Srm;
}

export interface ExperimentStatsOptions {
  /** Two-sided confidence level of the rate and difference intervals. Default 0.95. */
  confidence?: number;
  /** Sample-ratio mismatch is flagged when the chi-square p-value is below this. Default 0.001. */
  srmThreshold?: number;
  /**
   * Each variant's configured share of enrolments, in the order of the counts (the experiment's
   * weights as fractions: domain/variant-weights.ts expectedShares). Default: an equal split.
   */
  expectedShares?: readonly number[];
}

export const DEFAULT_CONFIDENCE = 0.95;
export const DEFAULT_SRM_THRESHOLD = 0.001;

// ---------------------------------------------------------------------------------------------
// Experiment-level API
// ---------------------------------------------------------------------------------------------

export function experimentStats(counts: VariantCounts[], options?: ExperimentStatsOptions): ExperimentStats {
  const confidence = options?.confidence ?? DEFAULT_CONFIDENCE;
  const srmThreshold = options?.srmThreshold ?? DEFAULT_SRM_THRESHOLD;
  if (!(confidence > 0 && confidence < 1)) throw new RangeError(`confidence must be in (0, 1), got ${confidence}`);
  if (!(srmThreshold >= 0 && srmThreshold <= 1)) {
    throw new RangeError(`srmThreshold must be in [0, 1], got ${srmThreshold}`);
  }
  counts.forEach(assertValidCounts);

  const z = criticalZ(confidence);
  const variants = counts.map((c) => variantStats(c, z));
  const [control, ...treatments] = counts;
  const comparisons = control === undefined ? [] : treatments.map((v) => compareToControl(v, control, z, confidence));
  const srmP = srmPValue(
    counts.map((c) => c.enrolled),
    options?.expectedShares,
  );
  return {
    variants,
    comparisons,
    srm: { p_value: srmP, flagged: srmP !== null && srmP < srmThreshold },
  };
}

function assertValidCounts(c: VariantCounts): void {
  const { variant, enrolled, converted } = c;
  if (!Number.isSafeInteger(enrolled) || enrolled < 0) {
    throw new RangeError(`variant ${variant}: enrolled must be a non-negative integer, got ${enrolled}`);
  }
  if (!Number.isSafeInteger(converted) || converted < 0 || converted > enrolled) {
    throw new RangeError(`variant ${variant}: converted must be an integer in [0, enrolled], got ${converted}`);
  }
}

/** The z with P(|Z| <= z) = confidence, e.g. 1.959963984540054 for 0.95. */
export function criticalZ(confidence: number): number {
  return inverseNormalCdf(1 - (1 - confidence) / 2);
}

function variantStats(c: VariantCounts, z: number): VariantStats {
  const ci = wilsonInterval(c.converted, c.enrolled, z);
  return {
    variant: c.variant,
    enrolled: c.enrolled,
    converted: c.converted,
    conversion_rate: c.enrolled > 0 ? c.converted / c.enrolled : null,
    ci_low: ci?.[0] ?? null,
    ci_high: ci?.[1] ?? null,
  };
}

function compareToControl(v: VariantCounts, control: VariantCounts, z: number, confidence: number): Comparison {
  const base = { variant: v.variant, control: control.variant };
  // Without enrolled users in either arm there is nothing to compare. The Bayesian posterior would
  // technically exist (it is the prior), but reporting a 50% "chance to beat" with no data misleads.
  if (v.enrolled === 0 || control.enrolled === 0) {
    return {
      ...base,
      absolute_diff: null,
      relative_diff: null,
      ci_low: null,
      ci_high: null,
      p_value: null,
      relative_ci_low: null,
      relative_ci_high: null,
      relative_p_value: null,
      chance_to_beat_control: null,
    };
  }
  const pV = v.converted / v.enrolled;
  const pC = control.converted / control.enrolled;
  const ci = newcombeDifferenceInterval(v.converted, v.enrolled, control.converted, control.enrolled, z);
  const lift = relativeLift(control, v, confidence);
  // Conversions are 0 or 1 per user, never negative: the relative change cannot pass below -100%.
  const relativeInterval = lift ? floorRelativeInterval(lift.interval, true) : null;
  return {
    ...base,
    absolute_diff: pV - pC,
    relative_diff: pC > 0 ? pV / pC - 1 : null,
    ci_low: ci[0],
    ci_high: ci[1],
    p_value: twoProportionZTestPValue(v.converted, v.enrolled, control.converted, control.enrolled),
    relative_ci_low: relativeInterval?.[0] ?? null,
    relative_ci_high: relativeInterval?.[1] ?? null,
    relative_p_value: lift?.p_value ?? null,
    chance_to_beat_control: probabilityBBeatsA(1 + control.converted, 1 + control.enrolled - control.converted, 1 + v.converted, 1 + v.enrolled - v.converted),
  };
}

// ---------------------------------------------------------------------------------------------
// Frequentist pieces
// ---------------------------------------------------------------------------------------------

/**
 * Wilson score interval for x successes out of n at critical value z (Wilson 1927; method 3 of
 * Newcombe 1998, Stat Med 17:857-872). Chosen over the Wald interval because it stays inside
 * [0, 1] and keeps close to nominal coverage for small n and rates near 0 or 1.
 * Returns null when n = 0 (no information about the rate).
 */
export function wilsonInterval(x: number, n: number, z: number): [number, number] | null {
  if (n === 0) return null;
  const p = x / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const halfWidth = (z / denom) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  // At x = 0 (x = n) the bound is exactly 0 (1) in exact arithmetic; pin it so rounding cannot
  // produce -1e-17 or 1.0000000000000002.
  const low = x === 0 ? 0 : Math.max(0, centre - halfWidth);
  const high = x === n ? 1 : Math.min(1, centre + halfWidth);
  return [low, high];
}

/**
 * Interval for the difference p1 - p2 of two independent proportions by Newcombe's hybrid score
 * method (method 10 of Newcombe 1998, Stat Med 17:873-890): combine the Wilson intervals of each
 * arm, (l1, u1) and (l2, u2), as
 *   low  = d - sqrt((p1 - l1)^2 + (u2 - p2)^2)
 *   high = d + sqrt((u1 - p1)^2 + (p2 - l2)^2).
 * Used instead of the unpooled Wald interval because it inherits Wilson's good behaviour at small
 * counts and at rates of 0 or 1, where Wald collapses to zero width. Both n must be positive.
 */
export function newcombeDifferenceInterval(x1: number, n1: number, x2: number, n2: number, z: number): [number, number] {
  const w1 = wilsonInterval(x1, n1, z);
  const w2 = wilsonInterval(x2, n2, z);
  if (w1 === null || w2 === null) throw new RangeError('newcombeDifferenceInterval needs n1 > 0 and n2 > 0');
  const p1 = x1 / n1;
  const p2 = x2 / n2;
  const d = p1 - p2;
  const low = d - Math.hypot(p1 - w1[0], w2[1] - p2);
  const high = d + Math.hypot(w1[1] - p1, p2 - w2[0]);
  return [Math.max(-1, low), Math.min(1, high)];
}

/**
 * Two-sided p-value of the two-proportion z-test with the pooled standard error (equivalent to the
 * Pearson chi-square test on the 2x2 table without continuity correction).
 * Null when either n is 0, or when the pooled rate is 0 or 1: the standard error is then 0 and
 * z is undefined (both arms identical at all-or-nothing).
 */
export function twoProportionZTestPValue(x1: number, n1: number, x2: number, n2: number): number | null {
  if (n1 === 0 || n2 === 0) return null;
  const pooled = (x1 + x2) / (n1 + n2);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
  if (!(se > 0)) return null;
  const zStat = (x1 / n1 - x2 / n2) / se;
  // 2 * (1 - Phi(|z|)) = erfc(|z| / sqrt 2); erfc keeps full relative precision for tiny p.
  return Math.min(1, erfc(Math.abs(zStat) / Math.SQRT2));
}

/**
 * Sample-ratio mismatch: chi-square goodness-of-fit p-value of the enrolled counts against the
 * configured split (`shares`, one positive fraction per count, summing to 1; default an equal split),
 * df = k - 1. Null when there are fewer than two variants or nobody enrolled.
 */
export function srmPValue(enrolled: number[], shares?: readonly number[]): number | null {
  const k = enrolled.length;
  const total = enrolled.reduce((a, b) => a + b, 0);
  if (k < 2 || total === 0) return null;
  if (shares !== undefined && (shares.length !== k || shares.some((s) => !(s > 0)) || Math.abs(shares.reduce((a, b) => a + b, 0) - 1) > 1e-9)) {
    throw new RangeError(`expected shares must be ${k} positive fractions summing to 1, got ${JSON.stringify(shares)}`);
  }
  const chi2 = enrolled.reduce((acc, o, i) => {
    const expected = total * (shares?.[i] ?? 1 / k);
    return acc + ((o - expected) * (o - expected)) / expected;
  }, 0);
  return chiSquareSf(chi2, k - 1);
}

// ---------------------------------------------------------------------------------------------
// Bayesian chance to beat control
// ---------------------------------------------------------------------------------------------

/**
 * Above this smallest Beta parameter the exact sum below would need more than a million terms, so
 * a normal approximation is used instead. Its error comes from the skewness of the Beta
 * posteriors, about 2/sqrt(param), giving an error in the probability under ~2e-4 at this size.
 */
const EXACT_SUM_MAX_TERMS = 1_000_000;

/**
 * P(pB > pA) for independent pA ~ Beta(aA, bA), pB ~ Beta(aB, bB) with integer parameters >= 1.
 *
 * Exact closed form (Evan Miller, "Formulas for Bayesian A/B Testing", 2015):
 *   P = sum_{i=0}^{aB-1} B(aA+i, bA+bB) / ((bB+i) B(1+i, bB) B(aA, bA)).
 * Instead of three log-beta calls per term, successive terms follow the ratio
 *   t_{i+1} / t_i = (aA+i)(bB+i) / ((aA+bA+bB+i)(1+i)),   t_0 = B(aA, bA+bB) / B(aA, bA),
 * accumulated in log space so neither t_0 nor any term under- or overflows.
 *
 * The sum has aB terms, but by symmetry any of the four parameters can play that role:
 *   P(pB > pA) = 1 - P(pA > pB)                       (aA terms)
 *              = P(1-pA > 1-pB)  with 1-p ~ Beta(b, a) (bA terms)
 *              = 1 - P(1-pB > 1-pA)                   (bB terms)
 * so the cost is O(min(aA, bA, aB, bB)).
 */
export function probabilityBBeatsA(aA: number, bA: number, aB: number, bB: number): number {
  for (const p of [aA, bA, aB, bB]) {
    if (!Number.isSafeInteger(p) || p < 1) throw new RangeError(`Beta parameters must be integers >= 1, got ${p}`);
  }
  const smallest = Math.min(aA, bA, aB, bB);
  if (smallest > EXACT_SUM_MAX_TERMS) return probabilityBBeatsANormal(aA, bA, aB, bB);
  let p: number;
  if (smallest === aB) p = evanMillerSum(aA, bA, aB, bB);
  else if (smallest === aA) p = 1 - evanMillerSum(aB, bB, aA, bA);
  else if (smallest === bA) p = evanMillerSum(bB, aB, bA, aA);
  else p = 1 - evanMillerSum(bA, aA, bB, aB);
  return clamp01(p);
}

/** Evan Miller's sum, aB terms (see probabilityBBeatsA). */
function evanMillerSum(aA: number, bA: number, aB: number, bB: number): number {
  let logTerm = logBeta(aA, bA + bB) - logBeta(aA, bA);
  // Running log-sum-exp: sum = exp(maxLog) * scaled.
  let maxLog = logTerm;
  let scaled = 1;
  for (let i = 0; i < aB - 1; i++) {
    logTerm += Math.log(((aA + i) * (bB + i)) / ((aA + bA + bB + i) * (1 + i)));
    if (logTerm > maxLog) {
      scaled = scaled * Math.exp(maxLog - logTerm) + 1;
      maxLog = logTerm;
    } else {
      scaled += Math.exp(logTerm - maxLog);
    }
  }
  return Math.exp(maxLog) * scaled;
}

/** Large-count fallback: pB - pA treated as normal with the Beta means and variances. */
function probabilityBBeatsANormal(aA: number, bA: number, aB: number, bB: number): number {
  const mean = (a: number, b: number) => a / (a + b);
  const variance = (a: number, b: number) => (a * b) / ((a + b) * (a + b) * (a + b + 1));
  const sd = Math.sqrt(variance(aA, bA) + variance(aB, bB));
  return normalCdf((mean(aB, bB) - mean(aA, bA)) / sd);
}
