/**
 * Variant weights: whole percentages in the order of `variants`, summing to 100; null is the default,
 * an equal split. Weights reach every SDK without a client change through the bucketing rule
 * (`variants[bucket % variants.length]`, domain/bucketing.ts): a variant listed k times gets k shares
 * of the buckets. So the server's assignment and both lists an SDK buckets from (`GET
 * /v1/experiments/configs` and the legacy `GET /v1/experiments`) use the expanded list, the shortest
 * one that realises the weights. Pure.
 */

/** What weights add up to: they are percentages. */
export const WEIGHT_TOTAL = 100;

/**
 * What is wrong with these weights for these variants, naming the rule; undefined when they are fine.
 * Each weight is a whole number of at least 1 (a variant without traffic cannot be compared: remove it
 * instead), one per variant, and together they make 100.
 */
export function weightsProblem(variants: readonly string[], weights: readonly number[]): string | undefined {
  if (weights.length !== variants.length) {
    return `weights has ${weights.length} ${weights.length === 1 ? 'entry' : 'entries'} but variants has ${variants.length}: give one weight per variant, in the order of variants (or null for an equal split)`;
  }
  const bad = weights.find((w) => !Number.isInteger(w));
  if (bad !== undefined) return `weights must be whole percentages, got ${bad}`;
  const low = weights.findIndex((w) => w < 1);
  if (low >= 0) return `every weight must be at least 1 (variant "${variants[low]}" has ${weights[low]}): remove a variant instead of giving it no traffic`;
  const sum = weights.reduce((a, b) => a + b, 0);
  if (sum !== WEIGHT_TOTAL) return `weights must sum to ${WEIGHT_TOTAL}, got ${sum}`;
  return undefined;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/**
 * The list every bucketing uses: each variant, in the order of `variants`, repeated weight / g times
 * in a row, where g is the greatest common divisor of the weights. That is the shortest list that
 * realises the weights: 90/10 gives 9 × control then 1 × treatment (10 entries), 20/30/50 gives 2 + 3 + 5,
 * 33/33/34 gives 100 entries, and equal weights (or null) give the plain list, so experiments without
 * weights bucket exactly as before. Stable: it depends on nothing but `variants` and `weights`.
 */
export function expandedVariants(variants: readonly string[], weights: readonly number[] | null): string[] {
  if (!weights) return [...variants];
  const g = weights.reduce(gcd);
  return variants.flatMap((variant, i) => Array<string>(weights[i]! / g).fill(variant));
}

/** Each variant's expected share of enrolments (the sample-ratio check's null hypothesis), summing to 1. */
export function expectedShares(variants: readonly string[], weights: readonly number[] | null): number[] {
  return !weights ? variants.map(() => 1 / variants.length) : weights.map((w) => w / WEIGHT_TOTAL);
}

/**
 * Whole-percentage weights as close to an equal split as 100 allows (the largest remainders go to the
 * first variants): 50/50, 34/33/33. What the dashboard offers when someone starts setting weights.
 */
export function nearlyEqualWeights(count: number): number[] {
  const base = Math.floor(WEIGHT_TOTAL / count);
  const extra = WEIGHT_TOTAL - base * count;
  return Array.from({ length: count }, (_, i) => base + (i < extra ? 1 : 0));
}

/** Whether the weights are an equal split (they bucket like null). */
export function isEqualSplit(weights: readonly number[] | null): boolean {
  return weights === null || weights.every((w) => w === weights[0]);
}
