import { describe, expect, it } from 'vitest';
import { bucketOf, variantFor } from '../../lambdas/domain/bucketing';
import { expandedVariants, expectedShares, isEqualSplit, nearlyEqualWeights, weightsProblem } from '../../lambdas/domain/variant-weights';

describe('expandedVariants: the list every bucketing uses', () => {
  it('is the shortest list that realises the weights, each variant in a row, in the order of variants', () => {
    expect(expandedVariants(['control', 'treatment'], [90, 10])).toEqual([...Array(9).fill('control'), 'treatment']);
    expect(expandedVariants(['a', 'b', 'c'], [20, 30, 50])).toEqual(['a', 'a', 'b', 'b', 'b', 'c', 'c', 'c', 'c', 'c']);
    expect(expandedVariants(['a', 'b', 'c'], [33, 33, 34])).toHaveLength(100);
    expect(expandedVariants(['a', 'b', 'c'], [33, 33, 34]).filter((v) => v === 'c')).toHaveLength(34);
    expect(expandedVariants(['a', 'b'], [75, 25])).toEqual(['a', 'a', 'a', 'b']);
  });

  it('is the plain list for equal weights and for the default (null)', () => {
    expect(expandedVariants(['a', 'b'], [50, 50])).toEqual(['a', 'b']);
    expect(expandedVariants(['a', 'b', 'c', 'd'], [25, 25, 25, 25])).toEqual(['a', 'b', 'c', 'd']);
    expect(expandedVariants(['a', 'b', 'c'], null)).toEqual(['a', 'b', 'c']);
  });
});

describe('weightsProblem: the rule a 400 names', () => {
  it('accepts whole percentages of at least 1, one per variant, summing to 100', () => {
    expect(weightsProblem(['a', 'b'], [90, 10])).toBeUndefined();
    expect(weightsProblem(['a', 'b', 'c'], [1, 1, 98])).toBeUndefined();
  });

  it.each([
    [['a', 'b'], [100], 'weights has 1 entry but variants has 2'],
    [['a', 'b'], [50, 40], 'weights must sum to 100, got 90'],
    [['a', 'b'], [50.5, 49.5], 'weights must be whole percentages, got 50.5'],
    [['a', 'b'], [100, 0], 'every weight must be at least 1 (variant "b" has 0)'],
  ])('refuses %j weighted %j: %s', (variants, weights, message) => {
    expect(weightsProblem(variants, weights)).toContain(message);
  });
});

describe('expectedShares and the dashboard helpers', () => {
  it('are the weights as fractions, or an equal split by default', () => {
    expect(expectedShares(['a', 'b'], [90, 10])).toEqual([0.9, 0.1]);
    expect(expectedShares(['a', 'b', 'c', 'd'], null)).toEqual([0.25, 0.25, 0.25, 0.25]);
    expect(nearlyEqualWeights(3)).toEqual([34, 33, 33]);
    expect(nearlyEqualWeights(2)).toEqual([50, 50]);
    expect(isEqualSplit([50, 50])).toBe(true);
    expect(isEqualSplit([34, 33, 33])).toBe(false);
  });
});

/**
 * The golden vectors the MGM SDKs publish for on-device bucketing (Mostly-Good-Metrics/mostly-good-metrics-js,
 * src/sha256.test.ts, shared with the Swift, Android and Flutter SDKs): with equal weights (the default,
 * or weights that are all equal) the expanded list is the plain list, so every vector still holds.
 */
const GOLDEN = [
  ['7b1e8a90-4c2d-4f6a-9e3b-2a1d5c8f0e71', 'user_123', ['control', 'treatment'], 11452140836674321702n, 'control'],
  ['7b1e8a90-4c2d-4f6a-9e3b-2a1d5c8f0e71', '$anon_abc123def456', ['control', 'treatment'], 10935638356306450407n, 'treatment'],
  ['3f9c2d11-8b7a-4e5f-a0c6-91d2e3f4a5b6', 'user_123', ['a', 'b', 'c'], 3772238658190659659n, 'c'],
  ['3f9c2d11-8b7a-4e5f-a0c6-91d2e3f4a5b6', 'chris@nihongo.example', ['a', 'b', 'c'], 15293329125595004806n, 'b'],
  ['c0ffee00-1234-5678-9abc-def012345678', 'u', ['on', 'off'], 5314609686893464838n, 'on'],
  ['c0ffee00-1234-5678-9abc-def012345678', '日本語ユーザー', ['on', 'off'], 15854517259962621242n, 'on'],
  ['aaaaaaaa-bbbb-cccc-dddd-eeeeffff0000', 'user_with_long_id_' + 'x'.repeat(64), ['v1', 'v2', 'v3', 'v4', 'v5'], 16479651874404423415n, 'v1'],
  ['aaaaaaaa-bbbb-cccc-dddd-eeeeffff0000', '', ['v1', 'v2'], 2902893145859674316n, 'v1'],
] as const;

describe('published golden bucketing vectors, equal weights', () => {
  it.each(GOLDEN)('experiment %s, user %j', (experiment, user, variants, bucket, expected) => {
    expect(bucketOf(experiment, user)).toBe(bucket);
    expect(variantFor(experiment, user, expandedVariants(variants, null))).toBe(expected);
    const equal = Array<number>(variants.length).fill(100 / variants.length);
    if (equal.every(Number.isInteger)) expect(variantFor(experiment, user, expandedVariants(variants, equal))).toBe(expected);
  });
});
