/**
 * The weighted-assignment scenario of the compatibility tests (issue 23): two weighted experiments,
 * IDs from a fixed seed, and the check that counts match the weights within sampling error.
 */
import { prng } from '../../bin/prng';

/** The test experiments: a risky treatment at 10%, and three variants at 20/30/50. */
export const WEIGHTED_EXPERIMENTS = [
  { name: 'Risky Checkout', variants: ['control', 'treatment'], weights: [90, 10] },
  { name: 'Three Prices', variants: ['low', 'mid', 'high'], weights: [20, 30, 50] },
] as const;

export const ID_SEED = 23;

/** `count` anonymous IDs shaped like the MGM SDK's ($anon_ and 12 hex digits), the same for the same seed. */
export function seededIds(count: number, seed = ID_SEED): string[] {
  const next = prng(seed);
  const hex = () =>
    Math.floor(next() * 0x1000000)
      .toString(16)
      .padStart(6, '0');
  return Array.from({ length: count }, (_, i) => `$anon_${hex()}${hex()}_${i}`);
}

/** How many IDs got each variant, in the order of `variants`. */
export function tally(assigned: readonly string[], variants: readonly string[]): number[] {
  return variants.map((v) => assigned.filter((a) => a === v).length);
}

/**
 * Where each share lies against its weight, in standard errors of a share of `n` draws
 * (sqrt(w (1 - w) / n)). Within sampling error: every one under 4 (a false alarm about once in
 * 16,000 checks per variant). An equal split instead of 90/10 would be over 100 standard errors away
 * at 20,000 IDs.
 */
export function standardErrorsOff(counts: readonly number[], weights: readonly number[]): number[] {
  const n = counts.reduce((a, b) => a + b, 0);
  return counts.map((c, i) => {
    const w = weights[i]! / 100;
    return Math.abs(c / n - w) / Math.sqrt((w * (1 - w)) / n);
  });
}
