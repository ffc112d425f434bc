/**
 * The numerics library the experiment statistics (stats.ts) are built on: normal and chi-square
 * distributions and the special functions behind them (erfc, inverse normal CDF, log-gamma,
 * incomplete gamma), each with the reference it follows.
 *
 * Implemented here rather than taken from an npm statistics package so that results do not depend on
 * which version of such a package happens to be installed. Pure and dependency-free.
 */

const EPS = Number.EPSILON; // convergence tolerance of the series and continued fractions
const TINY = 1e-300; // guards divisions by zero in Lentz's algorithm
const MAX_ITERATIONS = 100_000;
const SQRT_PI = Math.sqrt(Math.PI);

export function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}

/** Standard normal CDF, via erfc so that the lower tail keeps full relative precision. */
export function normalCdf(x: number): number {
  return 0.5 * erfc(-x / Math.SQRT2);
}

/**
 * Complementary error function, accurate to ~1e-15 relative for x >= 0.
 * - |x| < 2: the everywhere-positive series erf(x) = 2/sqrt(pi) e^{-x^2} sum_n 2^n x^{2n+1} / (2n+1)!!
 *   (Abramowitz & Stegun 7.1.6). Its terms never alternate, so there is no cancellation, and
 *   erfc = 1 - erf loses nothing here because erfc(2) is still ~5e-3.
 * - x >= 2: the continued fraction erfc(x) = e^{-x^2}/sqrt(pi) * 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + ...))))
 *   (A&S 7.1.14), evaluated with the modified Lentz method; it converges quickly for large x,
 *   exactly where 1 - erf would lose all precision.
 * - x < 0: erfc(x) = 2 - erfc(-x).
 */
export function erfc(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (x < 0) return 2 - erfc(-x);
  if (x < 2) return 1 - erfSeries(x);
  if (x > 27) return 0; // e^{-729} underflows double precision
  return erfcContinuedFraction(x);
}

function erfSeries(x: number): number {
  const twoX2 = 2 * x * x;
  let term = x;
  let sum = x;
  for (let n = 1; n < MAX_ITERATIONS; n++) {
    term *= twoX2 / (2 * n + 1);
    sum += term;
    if (term < sum * EPS) break;
  }
  return (2 / SQRT_PI) * Math.exp(-x * x) * sum;
}

function erfcContinuedFraction(x: number): number {
  // f = x + a1/(x + a2/(x + ...)) with a_j = j/2 (modified Lentz).
  let f = x;
  let c = x;
  let d = 0;
  for (let j = 1; j < MAX_ITERATIONS; j++) {
    const a = j / 2;
    d = x + a * d;
    if (d === 0) d = TINY;
    c = x + a / c;
    if (c === 0) c = TINY;
    d = 1 / d;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < EPS) break;
  }
  return Math.exp(-x * x) / (SQRT_PI * f);
}

// Acklam's rational approximation to the inverse normal CDF (relative error < 1.15e-9),
// P. J. Acklam, "An algorithm for computing the inverse normal cumulative distribution function".
const ACKLAM_A = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
const ACKLAM_B = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
const ACKLAM_C = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
const ACKLAM_D = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
const ACKLAM_P_LOW = 0.02425;

/** Horner evaluation of c[0] x^{n-1} + ... + c[n-1] (highest degree first). */
function polynomial(coefficients: readonly number[], x: number): number {
  return coefficients.reduce((acc, c) => acc * x + c, 0);
}

/**
 * Inverse standard normal CDF. Acklam's approximation followed by one Halley step against the
 * accurate normalCdf above, which brings it to near machine precision.
 */
export function inverseNormalCdf(p: number): number {
  if (Number.isNaN(p) || p < 0 || p > 1) return NaN;
  if (p === 0) return -Infinity;
  if (p === 1) return Infinity;

  let x: number;
  if (p < ACKLAM_P_LOW) {
    const q = Math.sqrt(-2 * Math.log(p));
    x = polynomial(ACKLAM_C, q) / (polynomial(ACKLAM_D, q) * q + 1);
  } else if (p <= 1 - ACKLAM_P_LOW) {
    const q = p - 0.5;
    const r = q * q;
    x = (polynomial(ACKLAM_A, r) * q) / (polynomial(ACKLAM_B, r) * r + 1);
  } else {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    x = -polynomial(ACKLAM_C, q) / (polynomial(ACKLAM_D, q) * q + 1);
  }

  // Halley refinement: e = Phi(x) - p, u = e / phi(x), x <- x - u / (1 + x u / 2).
  const e = normalCdf(x) - p;
  const u = e * Math.sqrt(2 * Math.PI) * Math.exp((x * x) / 2);
  return x - u / (1 + (x * u) / 2);
}

// Lanczos approximation, g = 7, n = 9 (the coefficients popularised by Numerical Recipes / Godfrey);
// relative error around 1e-15 for the gamma function over the positive reals.
const LANCZOS_G = 7;
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012,
  9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Gamma(x) for x > 0 (reflection formula below 0.5, where Lanczos loses accuracy). */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
  const xm1 = x - 1;
  let series = LANCZOS[0] ?? 0;
  for (let i = 1; i < LANCZOS.length; i++) series += (LANCZOS[i] ?? 0) / (xm1 + i);
  const t = xm1 + LANCZOS_G + 0.5;
  return 0.5 * Math.log(2 * Math.PI) + (xm1 + 0.5) * Math.log(t) - t + Math.log(series);
}

/** ln B(a, b) = ln Gamma(a) + ln Gamma(b) - ln Gamma(a + b). */
export function logBeta(a: number, b: number): number {
  return logGamma(a) + logGamma(b) - logGamma(a + b);
}

/**
 * Regularized upper incomplete gamma Q(a, x) = Gamma(a, x) / Gamma(a), following Numerical
 * Recipes (gser/gcf): the series for P converges fast for x < a + 1, the Lentz continued fraction
 * for Q converges fast for x >= a + 1. Computing Q directly in the tail (rather than 1 - P) keeps
 * small p-values accurate.
 */
export function upperRegularizedGamma(a: number, x: number): number {
  if (!(a > 0) || x < 0 || Number.isNaN(x)) return NaN;
  if (x === 0) return 1;
  if (x === Infinity) return 0;
  if (x < a + 1) return 1 - lowerGammaSeries(a, x);
  return upperGammaContinuedFraction(a, x);
}

/** exp(-x) x^a / Gamma(a), the common prefactor of both expansions. */
function gammaPrefactor(a: number, x: number): number {
  return Math.exp(-x + a * Math.log(x) - logGamma(a));
}

function lowerGammaSeries(a: number, x: number): number {
  let ap = a;
  let term = 1 / a;
  let sum = term;
  for (let n = 1; n < MAX_ITERATIONS; n++) {
    ap += 1;
    term *= x / ap;
    sum += term;
    if (Math.abs(term) < Math.abs(sum) * EPS) break;
  }
  return sum * gammaPrefactor(a, x);
}

function upperGammaContinuedFraction(a: number, x: number): number {
  let b = x + 1 - a;
  let c = 1 / TINY;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < MAX_ITERATIONS; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < TINY) d = TINY;
    c = b + an / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < EPS) break;
  }
  return gammaPrefactor(a, x) * h;
}

/** Chi-square survival function P(X > x) for df degrees of freedom: Q(df/2, x/2). */
export function chiSquareSf(x: number, df: number): number {
  if (x <= 0) return 1;
  return clamp01(upperRegularizedGamma(df / 2, x / 2));
}
