/**
 * Planning: how many users an experiment needs, and how long it must run, to detect a given relative
 * change with a given power. As GrowthBook's power calculator computes power
 * (packages/shared/src/power/power.ts: powerEstFrequentist, powerStandardError,
 * sequentialPowerStandardError):
 *
 *   se     = sqrt(v / (m^2 nT) + v m^2 (1 + mde)^2 / (m^4 nC))     (delta method, relative change)
 *   power  = 1 - Phi(z - mde / se) + Phi(-z - mde / se),   z = Phi^-1(1 - alpha / 2)
 *
 * with m the control's mean (a conversion metric's baseline rate), v the variance of one user's value
 * (p (1 - p) for a conversion metric), nC and nT the users in the control and in the treatment. With
 * sequential testing the standard error is widened so that z se equals the always-valid half-width
 * after nC + nT users (sequential-test.ts), as GrowthBook does.
 *
 * GrowthBook splits users equally (n / variants per variant); here a variant gets its weight's share
 * (equal weights by default give GrowthBook's figures), and the experiment needs enough users for
 * every treatment against the control: the smallest arm decides. GrowthBook reports the first whole
 * week at which power reaches the target; here the sample size is the smallest total of users with
 * at least the target power (power grows with users), and the run time is that total over the
 * expected users enrolled per day, rounded up to whole days. The inverse question (the smallest change
 * a given number of users detects: minimumDetectableEffect) searches the same power function.
 *
 * CUPED (docs/decisions/cuped.md): with an expected variance reduction r the regression-adjusted
 * comparison has the variance of one user's value times (1 - r), and so does the plan: the same power
 * with (1 - r) times the users, to the rounding of the search; both questions take it.
 */
import { inverseNormalCdf, normalCdf } from './numerics';
import { DEFAULT_SEQUENTIAL } from './metric-comparison';
import { DEFAULT_SEQUENTIAL_TUNING, sequentialHalfWidth } from './sequential-test';

export type PlanningMetric = { kind: 'conversion'; baseline_rate: number } | { kind: 'mean'; mean: number; variance: number };

export interface PlanningInput {
  metric: PlanningMetric;
  /** Minimum detectable effect, relative to the control's mean: 0.05 is +5%. */
  mde: number;
  /** Default 0.8. */
  power?: number;
  /** Two-sided confidence level. Default 0.95 (alpha 0.05). */
  confidence?: number;
  /** Number of variants, control included. Default 2. */
  variants?: number;
  /** Share of users per variant, control first; any positive numbers (normalized). Default equal. */
  weights?: number[];
  /** Plan for the sequential test the results will use. Default true, as the results. */
  sequential?: boolean;
  sequentialTuning?: number;
  /** Users expected to enroll per day, all variants together; gives the run time. */
  users_per_day?: number;
  /** CUPED's expected variance reduction, 0 <= r < 1. Default 0 (none). */
  variance_reduction?: number;
}

export interface SampleSizePlan {
  /** Users needed, all variants together. */
  users_total: number;
  /** Users needed per variant, control first (each the variant's share of users_total, rounded up). */
  users_per_variant: number[];
  /** Whole days to enroll users_total at users_per_day; null without users_per_day. */
  days: number | null;
}

/** Largest total the search considers: beyond it the plan answers null (effect too small to detect). */
export const MAX_PLANNED_USERS = 1e12;

interface Normalized {
  mean: number;
  variance: number;
  mde: number;
  alpha: number;
  shares: number[];
  sequential: boolean;
  tuning: number;
}

/** Power of the weakest treatment-against-control comparison with `usersTotal` users. */
export function plannedPower(input: PlanningInput, usersTotal: number): number {
  return powerAt(normalize(input), usersTotal);
}

/** The smallest number of users with at least the target power, or null if more than MAX_PLANNED_USERS are needed. */
export function sampleSize(input: PlanningInput): SampleSizePlan | null {
  const p = normalize(input);
  const target = input.power ?? 0.8;
  if (!(target > p.alpha && target < 1)) throw new RangeError(`power must be between alpha (${p.alpha}) and 1, got ${target}`);
  const perDay = input.users_per_day;
  if (perDay !== undefined && !(perDay > 0)) throw new RangeError(`users_per_day must be positive, got ${perDay}`);
  // The fewest users that give every variant at least one: the search never answers fewer.
  const least = Math.max(p.shares.length, Math.ceil(1 / Math.min(...p.shares) - 1e-9));
  let hi = least;
  while (checked(powerAt(p, hi)) < target) {
    hi *= 2;
    if (hi > MAX_PLANNED_USERS) return null;
  }
  let lo = Math.max(Math.floor(hi / 2), least - 1);
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (checked(powerAt(p, mid)) >= target) hi = mid;
    else lo = mid;
  }
  return {
    users_total: hi,
    users_per_variant: p.shares.map((s) => Math.ceil(hi * s - 1e-9)),
    days: perDay === undefined ? null : Math.ceil(hi / perDay),
  };
}

export interface DetectableEffectInput extends Omit<PlanningInput, 'mde' | 'users_per_day'> {
  /** Users enrolled by the end, all variants together. */
  users_total: number;
  /** The largest relative change considered (the planner's bound); a conversion rate is also capped below 100%. */
  max_mde: number;
}

/**
 * The inverse question, with the same power function: the smallest relative change `mde` that
 * `users_total` users detect with at least the target power, or null when not even `max_mde` (or, for
 * a conversion rate, the change that would take it to 100%) is detectable with so few users. Power
 * grows with the change (mde / se(mde) increases: its derivative has the sign of a + b (1 + mde) > 0),
 * so a bisection finds it, to a relative 1e-10. The answer is the upper end of the last interval: its
 * power is at least the target, so sizing an experiment for it (sampleSize) needs at most `users_total`.
 */
export function minimumDetectableEffect(input: DetectableEffectInput): number | null {
  const target = input.power ?? 0.8;
  const { users_total: users } = input;
  if (!(users > 0 && Number.isFinite(users))) throw new RangeError(`users_total must be positive, got ${users}`);
  const at = (mde: number) => checked(powerAt(normalize({ ...input, mde }), users));
  const alpha = normalize({ ...input, mde: input.max_mde }).alpha;
  if (!(target > alpha && target < 1)) throw new RangeError(`power must be between alpha (${alpha}) and 1, got ${target}`);
  // A rate p can rise by less than 1 / p - 1 before it reaches 100%.
  const ceiling = input.metric.kind === 'conversion' ? (1 / input.metric.baseline_rate - 1) * (1 - 1e-9) : Infinity;
  let hi = Math.min(input.max_mde, ceiling);
  if (at(hi) < target) return null;
  let lo = 0;
  while (hi - lo > hi * 1e-10) {
    const mid = (lo + hi) / 2;
    if (at(mid) >= target) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** A power the search can compare: a NaN would end it at its first step with a meaningless plan. */
function checked(power: number): number {
  if (Number.isNaN(power)) throw new RangeError('the power is not a number for these inputs: they are outside the bounds the planner computes in');
  return power;
}

function powerAt(p: Normalized, usersTotal: number): number {
  const z = inverseNormalCdf(1 - p.alpha / 2);
  const [control = 0, ...treatments] = p.shares;
  const nC = usersTotal * control;
  let weakest = 1;
  for (const share of treatments) {
    const nT = usersTotal * share;
    // v / (m^2 nT) + v m^2 (1 + mde)^2 / (m^4 nC), with v / m^2 taken once: no m^4 to overflow or underflow.
    const cv2 = p.variance / p.mean / p.mean;
    let se = Math.sqrt(cv2 / nT + (cv2 * (1 + p.mde) ** 2) / nC);
    if (p.sequential) se = sequentialHalfWidth(se, nC + nT, p.alpha, p.tuning) / z;
    const standardized = p.mde / se;
    weakest = Math.min(weakest, 1 - normalCdf(z - standardized) + normalCdf(-z - standardized));
  }
  return weakest;
}

function normalize(input: PlanningInput): Normalized {
  const { metric, mde } = input;
  const confidence = input.confidence ?? 0.95;
  if (!(confidence > 0 && confidence < 1)) throw new RangeError(`confidence must be in (0, 1), got ${confidence}`);
  if (!(mde > 0 && Number.isFinite(mde))) throw new RangeError(`mde is the relative change to detect and must be positive (0.05 for +5%), got ${mde}`);
  let mean: number;
  let variance: number;
  if (metric.kind === 'conversion') {
    if (!(metric.baseline_rate > 0 && metric.baseline_rate < 1)) throw new RangeError(`baseline_rate must be in (0, 1), got ${metric.baseline_rate}`);
    mean = metric.baseline_rate;
    variance = mean * (1 - mean);
  } else {
    if (!(metric.mean !== 0 && Number.isFinite(metric.mean))) throw new RangeError(`mean must be a non-zero number, got ${metric.mean}`);
    if (!(metric.variance > 0 && Number.isFinite(metric.variance))) throw new RangeError(`variance must be positive, got ${metric.variance}`);
    mean = metric.mean;
    variance = metric.variance;
  }
  const reduction = input.variance_reduction ?? 0;
  if (!(reduction >= 0 && reduction < 1)) throw new RangeError(`variance_reduction must be in [0, 1), got ${reduction}`);
  variance *= 1 - reduction;
  const variants = input.variants ?? input.weights?.length ?? 2;
  if (!(Number.isSafeInteger(variants) && variants >= 2)) throw new RangeError(`variants must be an integer of at least 2, got ${variants}`);
  const weights = input.weights ?? new Array<number>(variants).fill(1);
  if (weights.length !== variants) throw new RangeError(`weights must have one entry per variant (${variants}), got ${weights.length}`);
  if (!weights.every((w) => w > 0 && Number.isFinite(w))) throw new RangeError(`weights must be positive numbers, got ${weights.join(', ')}`);
  const total = weights.reduce((a, b) => a + b, 0);
  const tuning = input.sequentialTuning ?? DEFAULT_SEQUENTIAL_TUNING;
  if (!(tuning > 0)) throw new RangeError(`sequentialTuning must be positive, got ${tuning}`);
  return {
    mean,
    variance,
    mde,
    alpha: 1 - confidence,
    shares: weights.map((w) => w / total),
    sequential: input.sequential ?? DEFAULT_SEQUENTIAL,
    tuning,
  };
}
