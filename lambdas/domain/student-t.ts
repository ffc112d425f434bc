/**
 * Student's t distribution with real (non-integer) degrees of freedom, as Welch's test needs:
 * the two-sided tail probability and the quantile. Built on the regularized incomplete beta
 * function, evaluated with the continued fraction of Numerical Recipes (betacf, Lentz's method).
 * Pure and dependency-free, like the rest of the statistics.
 */
import { logBeta } from './numerics';

const EPS = Number.EPSILON;
const TINY = 1e-300;
const MAX_ITERATIONS = 10_000;

/** Regularized incomplete beta I_x(a, b) for a, b > 0 and 0 <= x <= 1. */
export function regularizedIncompleteBeta(x: number, a: number, b: number): number {
  if (!(a > 0) || !(b > 0) || !(x >= 0 && x <= 1)) return NaN;
  if (x === 0 || x === 1) return x;
  const front = Math.exp(a * Math.log(x) + b * Math.log(1 - x) - logBeta(a, b));
  // The continued fraction converges fast for x < (a + 1) / (a + b + 2); use the symmetry otherwise.
  if (x < (a + 1) / (a + b + 2)) return (front * betaContinuedFraction(x, a, b)) / a;
  return 1 - (front * betaContinuedFraction(1 - x, b, a)) / b;
}

function betaContinuedFraction(x: number, a: number, b: number): number {
  const qab = a + b;
  const qap = a + 1;
  const qam = a - 1;
  let c = 1;
  let d = 1 - (qab * x) / qap;
  if (Math.abs(d) < TINY) d = TINY;
  d = 1 / d;
  let h = d;
  for (let m = 1; m < MAX_ITERATIONS; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < EPS) break;
  }
  return h;
}

/** P(|T| >= |t|) for T ~ Student's t with df > 0 degrees of freedom. */
export function studentTTwoSidedP(t: number, df: number): number {
  if (!(df > 0) || Number.isNaN(t)) return NaN;
  if (!Number.isFinite(t)) return 0;
  return regularizedIncompleteBeta(df / (df + t * t), df / 2, 0.5);
}

/** P(T <= t). */
export function studentTCdf(t: number, df: number): number {
  const tail = studentTTwoSidedP(t, df) / 2;
  return t >= 0 ? 1 - tail : tail;
}

/**
 * The quantile: the t with P(T <= t) = p, for 0 < p < 1. Bisection on the CDF, which is monotone:
 * 200 halvings of a bracket that doubles until it holds the answer reach double precision.
 */
export function studentTQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1) || !(df > 0)) return NaN;
  if (p === 0.5) return 0;
  const upper = p > 0.5;
  const target = upper ? p : 1 - p;
  let lo = 0;
  let hi = 1;
  while (studentTCdf(hi, df) < target) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > EPS * hi; i++) {
    const mid = (lo + hi) / 2;
    if (studentTCdf(mid, df) < target) lo = mid;
    else hi = mid;
  }
  const t = (lo + hi) / 2;
  return upper ? t : -t;
}
