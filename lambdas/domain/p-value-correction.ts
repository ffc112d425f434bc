/**
 * Multiple-testing correction: adjusted p-values for a family of tests, as GrowthBook computes them
 * (packages/shared/src/experiments/experiments.ts: adjustPValuesHolmBonferroni,
 * adjustPValuesBenjaminiHochberg) and applies them in setAdjustedPValuesOnResults: one family of
 * every variant against the control on every metric that is not a guardrail.
 *
 * - `holm` (Holm 1979) controls the family-wise error rate: sorted ascending, p_(i) (m - i + 1),
 *   made non-decreasing by a running maximum, capped at 1.
 * - `benjamini-hochberg` (Benjamini and Hochberg 1995) controls the false discovery rate: sorted
 *   descending, p_(i) m / i, made non-increasing by a running minimum, capped at 1.
 *
 * An adjusted p-value is compared with the same alpha as a raw one. Null p-values (a comparison
 * that could not be made) are not part of the family and stay null; the rest keep their positions.
 */
export type Correction = 'holm' | 'benjamini-hochberg';

export const CORRECTIONS: readonly Correction[] = ['holm', 'benjamini-hochberg'];

export function adjustPValues(pValues: readonly (number | null)[], correction: Correction): (number | null)[] {
  const family = pValues.flatMap((p, index) => (p === null ? [] : [{ p, index }]));
  for (const { p } of family) if (!(p >= 0 && p <= 1)) throw new RangeError(`p-values must be in [0, 1], got ${p}`);
  const adjusted = correction === 'holm' ? holm(family.map((f) => f.p)) : benjaminiHochberg(family.map((f) => f.p));
  const out: (number | null)[] = pValues.map(() => null);
  family.forEach((f, i) => (out[f.index] = adjusted[i] ?? null));
  return out;
}

/** Holm's step-down adjusted p-values, in the input's order. */
export function holm(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const out = new Array<number>(m);
  let runningMax = 0;
  ranked(pValues, 'ascending').forEach(({ p, index }, rank) => {
    runningMax = Math.max(runningMax, Math.min(1, p * (m - rank)));
    out[index] = runningMax;
  });
  return out;
}

/** Benjamini–Hochberg step-up adjusted p-values (q-values), in the input's order. */
export function benjaminiHochberg(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const out = new Array<number>(m);
  let runningMin = 1;
  ranked(pValues, 'descending').forEach(({ p, index }, rank) => {
    runningMin = Math.min(runningMin, (p * m) / (m - rank));
    out[index] = runningMin;
  });
  return out;
}

function ranked(pValues: readonly number[], order: 'ascending' | 'descending'): { p: number; index: number }[] {
  const sign = order === 'ascending' ? 1 : -1;
  return pValues.map((p, index) => ({ p, index })).sort((a, b) => sign * (a.p - b.p));
}
