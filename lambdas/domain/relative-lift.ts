/**
 * Relative lift of a variant over control, as GrowthBook's gbstats computes it (frequentist
 * two-sided t-test on the relative difference), so a team comparing tools can line the numbers up:
 *
 *   lift      = pT / pC - 1
 *   variance  = vT / pC^2 + vC * pT^2 / pC^4        (delta method)
 *   vX        = pX (1 - pX) / nX                     (variance of the mean of the 0/1 outcomes)
 *   df        = (vC + vT)^2 / (vC^2 / (nC - 1) + vT^2 / (nT - 1))   (Welch–Satterthwaite)
 *   interval  = lift ± t(df, (1 + confidence) / 2) * sqrt(variance)
 *   p-value   = P(|T_df| >= |lift / sqrt(variance)|)
 *
 * Known answer from gbstats' tests: treatment 16 of 30 against control 14 of 28 gives lift
 * 0.06667, interval (-0.47767, 0.61101), p = 0.80707 (test/unit/relative-lift.test.ts).
 *
 * It is undefined (null) when control never converts (no ratio), a variant has fewer than two
 * users (no degrees of freedom), or both variances are zero (every outcome identical: no test).
 */
import { studentTQuantile, studentTTwoSidedP } from './student-t';

export interface Proportion {
  converted: number;
  enrolled: number;
}

export interface RelativeLift {
  /** pT / pC - 1. */
  estimate: number;
  interval: [number, number];
  p_value: number;
}

export function relativeLift(control: Proportion, treatment: Proportion, confidence = 0.95): RelativeLift | null {
  const nC = control.enrolled;
  const nT = treatment.enrolled;
  if (nC < 2 || nT < 2) return null;
  const pC = control.converted / nC;
  const pT = treatment.converted / nT;
  if (pC === 0) return null;
  const vC = (pC * (1 - pC)) / nC;
  const vT = (pT * (1 - pT)) / nT;
  const variance = vT / pC ** 2 + (vC * pT ** 2) / pC ** 4;
  if (!(variance > 0)) return null;
  const df = (vC + vT) ** 2 / (vC ** 2 / (nC - 1) + vT ** 2 / (nT - 1));
  const se = Math.sqrt(variance);
  const estimate = pT / pC - 1;
  const half = studentTQuantile((1 + confidence) / 2, df) * se;
  return {
    estimate,
    interval: [estimate - half, estimate + half],
    p_value: studentTTwoSidedP(estimate / se, df),
  };
}
