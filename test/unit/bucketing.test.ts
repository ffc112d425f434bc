import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { bucketOf, variantFor } from '../../lambdas/domain/bucketing';
import { experimentNameSpellings, referencedExperiments, snakeCase, transitionRefusal } from '../../lambdas/domain/experiment';
import { sdkSnakeCase } from '../../lambdas/domain/sdk-snake-case';

const EXPERIMENT = '3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f';

describe('bucketing (spec rule)', () => {
  it('matches the fixed vector computed by hand from the digest', () => {
    // sha256("3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f:user-42") = 726e39ecf926a6fc 09b2b373...
    // first 8 bytes big-endian: 0x726e39ecf926a6fc = 8245591657717081852
    expect(bucketOf(EXPERIMENT, 'user-42')).toBe(0x726e39ecf926a6fcn);
    expect(0x726e39ecf926a6fcn).toBe(8245591657717081852n);
    expect(variantFor(EXPERIMENT, 'user-42', ['a', 'b'])).toBe('a'); // 8245591657717081852 % 2 = 0
    expect(variantFor(EXPERIMENT, 'user-42', ['a', 'b', 'c'])).toBe('b'); // % 3 = 1
    expect(variantFor(EXPERIMENT, 'user-42', ['a', 'b', 'c', 'd', 'e'])).toBe('c'); // % 5 = 2
  });

  it('agrees with an independent node:crypto computation for many IDs', () => {
    for (let i = 0; i < 500; i++) {
      const id = `id-${i}-ü`;
      const expected = createHash('sha256').update(`${EXPERIMENT}:${id}`).digest().readBigUInt64BE(0);
      expect(bucketOf(EXPERIMENT, id)).toBe(expected);
    }
  });

  it.each([2, 3, 5])('spreads 100,000 IDs within 1%% of uniform over %i variants', (k) => {
    const variants = Array.from({ length: k }, (_, i) => `v${i}`);
    const counts = new Map<string, number>();
    for (let i = 0; i < 100_000; i++) {
      const v = variantFor(EXPERIMENT, `user-${i}`, variants);
      counts.set(v, (counts.get(v) ?? 0) + 1);
    }
    for (const v of variants) expect(Math.abs(counts.get(v)! / 100_000 - 1 / k)).toBeLessThan(0.01);
  });
});

describe('snakeCase', () => {
  it('lower-cases, splits camelCase and folds runs of other characters into one underscore', () => {
    expect(snakeCase('Checkout Flow')).toBe('checkout_flow');
    expect(snakeCase('checkout-flow')).toBe('checkout_flow');
    expect(snakeCase('checkoutFlow')).toBe('checkout_flow');
    expect(snakeCase('  New--Pricing   Page!! ')).toBe('new_pricing_page');
    expect(snakeCase('HTMLParser v2')).toBe('html_parser_v2');
    expect(snakeCase('already_snake')).toBe('already_snake');
    expect(snakeCase('---')).toBe('');
  });

  it('finds the experiments an event names, by exposure or super property', () => {
    // As sent: matching against an experiment's spellings is the caller's (experimentNameSpellings).
    expect(referencedExperiments('$experiment_exposure', { $experiment_name: 'Checkout Flow', $variant: 'b' })).toEqual(['Checkout Flow']);
    expect(referencedExperiments('page_view', { $experiment_checkout__flow: 'b', other: 1 })).toEqual(['checkout__flow']);
  });
});

describe("sdkSnakeCase (the MGM SDKs' snake_case)", () => {
  it('prefixes each capital with "_", folds each run of blanks or hyphens into "_", lower-cases, strips one leading "_"', () => {
    expect(sdkSnakeCase('Hero Banner')).toBe('hero__banner');
    expect(sdkSnakeCase('checkoutFlow')).toBe('checkout_flow');
    expect(sdkSnakeCase('button-color')).toBe('button_color');
    expect(sdkSnakeCase('ABTest')).toBe('a_b_test');
    expect(sdkSnakeCase('new - pricing\t page')).toBe('new_pricing_page');
    expect(sdkSnakeCase('Pricing-Page')).toBe('pricing__page');
    expect(sdkSnakeCase('__x')).toBe('_x');
    expect(sdkSnakeCase('v2.1 Über')).toBe('v2.1_über');
  });

  it('gives every experiment up to three distinct spellings', () => {
    expect(experimentNameSpellings('Hero Banner')).toEqual(['Hero Banner', 'hero_banner', 'hero__banner']);
    expect(experimentNameSpellings('checkoutFlow')).toEqual(['checkoutFlow', 'checkout_flow']);
    expect(experimentNameSpellings('pricing')).toEqual(['pricing']);
  });

  it('explains refused transitions with the current status', () => {
    expect(transitionRefusal('start', 'stopped')).toMatch(/status is stopped.*Stopped is final/);
    expect(transitionRefusal('stop', 'created')).toMatch(/status is created; only a running experiment can be stopped/);
  });
});
