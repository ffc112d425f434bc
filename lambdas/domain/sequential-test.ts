/**
 * Sequential testing: always-valid confidence intervals and p-values, so results may be looked at
 * as often as one likes without inflating false positives. As GrowthBook's SequentialTwoSidedTTest
 * computes them (packages/stats/gbstats/frequentist/tests.py), the asymptotic confidence sequence of
 * Waudby-Smith et al., "Time-uniform central limit theory and asymptotic confidence sequences"
 * (arXiv:2103.06476v7):
 *
 *   rho       = sqrt((-2 ln(alpha) + ln(-2 ln(alpha) + 1)) / tuning)                  (eq. 161)
 *   halfwidth = sqrt(s2) * sqrt(2 (n rho^2 + 1) ln(sqrt(n rho^2 + 1) / alpha) / (n rho)^2)   (eq. 9)
 *   p-value   = min(1, 1 / e),  e = exp(rho^2 S / (2 (n rho^2 + 1))) / sqrt(n rho^2 + 1)    (eq. 155)
 *
 * where n = users in the two variants compared, se the standard error of the estimate (absolute or
 * relative difference), s2 = se^2 n, and S = (estimate / se)^2 n. `tuning` is the number of users
 * (both variants together) at which the interval is tightest; GrowthBook's default is 5000.
 */

/** GrowthBook's default sequential tuning parameter (SequentialConfig.sequential_tuning_parameter). */
export const DEFAULT_SEQUENTIAL_TUNING = 5000;

export function sequentialRho(alpha: number, tuning: number): number {
  const l = -2 * Math.log(alpha);
  return Math.sqrt((l + Math.log(l + 1)) / tuning);
}

/**
 * Half-width of the two-sided always-valid interval for an estimate with standard error `stdError`
 * after `n` users (both variants together).
 */
export function sequentialHalfWidth(stdError: number, n: number, alpha: number, tuning = DEFAULT_SEQUENTIAL_TUNING): number {
  const rho = sequentialRho(alpha, tuning);
  const s2 = stdError * stdError * n;
  const nr2p1 = n * rho * rho + 1;
  return Math.sqrt(s2) * Math.sqrt((2 * nr2p1 * Math.log(Math.sqrt(nr2p1) / alpha)) / (n * rho) ** 2);
}

/**
 * Always-valid p-value of estimate = 0 from the e-value of the same confidence sequence. The e-value
 * grows without bound for a clear effect; exp overflows to Infinity and the p-value is then 0, as in
 * gbstats (numpy).
 */
export function sequentialPValue(estimate: number, stdError: number, n: number, alpha: number, tuning = DEFAULT_SEQUENTIAL_TUNING): number {
  const rho = sequentialRho(alpha, tuning);
  const st2 = (estimate * estimate * n) / (stdError * stdError);
  const nr2p1 = n * rho * rho + 1;
  const eValue = Math.exp((rho * rho * st2) / (2 * nr2p1)) / Math.sqrt(nr2p1);
  return Math.min(1 / eValue, 1);
}
