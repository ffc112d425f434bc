/**
 * Planning against GrowthBook's power calculator, packages/shared/src/power/power.ts, with the cases
 * of packages/shared/test/power.test.ts (describe "backend"). That suite compares values rounded to
 * 5 decimals; the full-precision figures below were printed by GrowthBook's power.ts itself on the
 * same inputs, so these tests hold to 1e-6.
 */
import { describe, expect, it } from 'vitest';
import { minimumDetectableEffect, plannedPower, sampleSize, type PlanningInput } from '../../lambdas/domain/sample-size';

function near(actual: number, expected: number): void {
  expect(Math.abs(actual - expected)).toBeLessThan(1e-6);
}

const FIXED = { sequential: false } as const;
// "calculates power correctly": mean 10, standard deviation sqrt(3909.9997749994377), effect 5%, 3 variations.
const MEAN_METRIC: PlanningInput = { metric: { kind: 'mean', mean: 10, variance: 3909.9997749994377 }, mde: 0.05, variants: 3 };
// "checks power": click_through_rate (10%, effect 5%) and revenue (mean 0.1, variance 0.5, effect 30%), 3 variations, 4500 users a week.
const CTR: PlanningInput = { metric: { kind: 'conversion', baseline_rate: 0.1 }, mde: 0.05, variants: 3 };
const REVENUE: PlanningInput = { metric: { kind: 'mean', mean: 0.1, variance: 0.5 }, mde: 0.3, variants: 3 };
const WEEKS = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((w) => w * 4500);

describe('power (GrowthBook powerEstFrequentist)', () => {
  it('"calculates power correctly": 400000 users, fixed horizon', () => {
    near(plannedPower({ ...MEAN_METRIC, ...FIXED }, 400000), 0.5214409191602974);
  });

  it('"calculates sequential power correctly": 400000 users, tuning 5000', () => {
    near(plannedPower({ ...MEAN_METRIC, sequential: true, sequentialTuning: 5000 }, 400000), 0.20595674320506613);
  });

  it('"checks power": the weekly power of both metrics, fixed horizon', () => {
    const ctr = [
      0.07299561306818009, 0.09649896558941112, 0.12039523107725725, 0.14457838863373365, 0.16895085715432212, 0.19342312061396172, 0.21791334819674693,
      0.24234701254263774, 0.266656508941771,
    ];
    const revenue = [
      0.17053353752503803, 0.29388880878369794, 0.4112174445318741, 0.5174850759160693, 0.6103729346463415, 0.6893782871503702, 0.7551251253740622,
      0.8088642321392728, 0.8521290962750642,
    ];
    WEEKS.forEach((users, week) => {
      near(plannedPower({ ...CTR, ...FIXED }, users), ctr[week]!);
      near(plannedPower({ ...REVENUE, ...FIXED }, users), revenue[week]!);
    });
  });

  it('"checks sequential power": the weekly power with sequential testing (tuning 5000)', () => {
    const ctr = [
      0.05935973367402219, 0.06912067542072894, 0.07848640724525517, 0.08761050734703703, 0.09657054432240235, 0.1054097184295075, 0.11415428020753424,
      0.12282115781210631, 0.13142171192176627,
    ];
    const revenue = [
      0.09831932223843864, 0.14992228534225102, 0.19971535406378157, 0.2478384272100106, 0.29425532067185345, 0.33888407163000006, 0.3816467550336886,
      0.4224852286354771, 0.46136471196551115,
    ];
    WEEKS.forEach((users, week) => {
      near(plannedPower({ ...CTR, sequential: true }, users), ctr[week]!);
      near(plannedPower({ ...REVENUE, sequential: true }, users), revenue[week]!);
    });
  });
});

describe('sample size and run time', () => {
  it('"checks power": revenue reaches 80% power in week 8 (36000 users), so it needs more than 31500 and at most 36000', () => {
    const plan = sampleSize({ ...REVENUE, ...FIXED, users_per_day: 4500 / 7 })!;
    expect(plan.users_total).toBeGreaterThan(31500);
    expect(plan.users_total).toBeLessThanOrEqual(36000);
    expect(plannedPower({ ...REVENUE, ...FIXED }, plan.users_total)).toBeGreaterThanOrEqual(0.8);
    expect(plannedPower({ ...REVENUE, ...FIXED }, plan.users_total - 1)).toBeLessThan(0.8);
    expect(plan.days).toBe(Math.ceil(plan.users_total / (4500 / 7)));
    expect(plan.days!).toBeGreaterThan(49);
    expect(plan.days!).toBeLessThanOrEqual(56);
    expect(plan.users_per_variant).toHaveLength(3);
    expect(plan.users_per_variant.every((n) => n === Math.ceil(plan.users_total / 3))).toBe(true);
  });

  it('a conversion metric with two variants: between GrowthBook’s 64000 (power 0.78833) and 70000 (0.82307)', () => {
    const input: PlanningInput = { metric: { kind: 'conversion', baseline_rate: 0.05 }, mde: 0.1, ...FIXED };
    near(plannedPower(input, 64000), 0.7883273436195916);
    near(plannedPower(input, 70000), 0.8230713869847426);
    const plan = sampleSize(input)!;
    expect(plan.users_total).toBeGreaterThan(64000);
    expect(plan.users_total).toBeLessThanOrEqual(70000);
    expect(plan.days).toBeNull();
  });

  it('sequential testing needs more users than a fixed horizon', () => {
    const input: PlanningInput = { metric: { kind: 'conversion', baseline_rate: 0.05 }, mde: 0.1 };
    const fixed = sampleSize({ ...input, ...FIXED })!.users_total;
    const sequential = sampleSize(input)!.users_total; // sequential is the default, as in the results
    expect(sequential / fixed).toBeGreaterThan(1.5);
  });

  it('takes variant weights: equal weights are the default, and a small treatment arm needs more users in total', () => {
    const input: PlanningInput = { metric: { kind: 'conversion', baseline_rate: 0.05 }, mde: 0.1, ...FIXED };
    expect(sampleSize({ ...input, weights: [1, 1] })).toEqual(sampleSize(input));
    const skewed = sampleSize({ ...input, weights: [3, 1] })!;
    expect(skewed.users_total).toBeGreaterThan(sampleSize(input)!.users_total);
    expect(skewed.users_per_variant[0]! / skewed.users_per_variant[1]!).toBeCloseTo(3, 2);
    // The weakest comparison decides: a third variant with a small share raises the total.
    const three = sampleSize({ ...input, weights: [1, 1, 0.25] })!;
    expect(three.users_total).toBeGreaterThan(sampleSize({ ...input, weights: [1, 1, 1] })!.users_total);
  });

  it('refuses inputs a calculator cannot answer, saying which', () => {
    expect(() => sampleSize({ metric: { kind: 'conversion', baseline_rate: 1.5 }, mde: 0.1 })).toThrow(/baseline_rate/);
    expect(() => sampleSize({ metric: { kind: 'mean', mean: 3, variance: 0 }, mde: 0.1 })).toThrow(/variance/);
    expect(() => sampleSize({ metric: { kind: 'conversion', baseline_rate: 0.1 }, mde: 0 })).toThrow(/mde/);
    expect(() => sampleSize({ metric: { kind: 'conversion', baseline_rate: 0.1 }, mde: 0.1, power: 0.01 })).toThrow(/power/);
    expect(() => sampleSize({ metric: { kind: 'conversion', baseline_rate: 0.1 }, mde: 0.1, variants: 3, weights: [1, 1] })).toThrow(/one entry per variant/);
    expect(sampleSize({ metric: { kind: 'conversion', baseline_rate: 0.1 }, mde: 1e-9 })).toBeNull();
  });
});

describe('minimumDetectableEffect: the inverse question, over the same power function', () => {
  const grid = [
    { metric: { kind: 'conversion' as const, baseline_rate: 0.1 }, sequential: true },
    { metric: { kind: 'conversion' as const, baseline_rate: 0.02 }, sequential: false, variants: 3 },
    { metric: { kind: 'conversion' as const, baseline_rate: 0.4 }, sequential: true, weights: [70, 30], power: 0.9, confidence: 0.99 },
    { metric: { kind: 'mean' as const, mean: 35.5, variance: 4_000 }, sequential: true },
    { metric: { kind: 'mean' as const, mean: -2, variance: 3 }, sequential: false, weights: [1, 2, 1] },
    // With CUPED's expected variance reduction: both questions take it.
    { metric: { kind: 'mean' as const, mean: 35.5, variance: 4_000 }, sequential: true, variance_reduction: 0.4 },
  ];
  it.each(
    grid.flatMap((design) =>
      [
        [1, 300],
        [2, 2_000],
        [6, 45_000],
        [52, 1_000_000],
      ].map(([weeks, perDay]) => [design, weeks!, perDay!] as const),
    ),
  )('%j over %i weeks at %i users a day: sizing for the answer gives back the weeks', (design, weeks, perDay) => {
    const days = weeks * 7;
    const usersTotal = Math.floor(perDay * days);
    const mde = minimumDetectableEffect({ ...design, users_total: usersTotal, max_mde: 10 });
    if (mde === null) {
      // Not even the largest change: the weeks' users have less than the target power at it.
      expect(plannedPower({ ...design, mde: 10 }, usersTotal)).toBeLessThan(design.power ?? 0.8);
      return;
    }
    expect(plannedPower({ ...design, mde }, usersTotal)).toBeGreaterThanOrEqual(design.power ?? 0.8);
    expect(plannedPower({ ...design, mde: mde * (1 - 1e-6) }, usersTotal)).toBeLessThan(design.power ?? 0.8);
    expect(sampleSize({ ...design, mde, users_per_day: perDay })!.days).toBe(days);
  });

  it('answers null when not even the rate reaching 100% is detectable, and a smaller change with more users', () => {
    expect(minimumDetectableEffect({ metric: { kind: 'conversion', baseline_rate: 0.5 }, users_total: 4, max_mde: 10 })).toBeNull();
    const small = minimumDetectableEffect({ metric: { kind: 'conversion', baseline_rate: 0.1 }, users_total: 10_000, max_mde: 10 })!;
    const large = minimumDetectableEffect({ metric: { kind: 'conversion', baseline_rate: 0.1 }, users_total: 40_000, max_mde: 10 })!;
    expect(large).toBeLessThan(small);
    expect(0.1 * (1 + small)).toBeLessThan(1);
  });

  it('detects a smaller change with CUPED: removing 40% of the variance is worth 1 / 0.6 times the users (fixed horizon)', () => {
    const design = { metric: { kind: 'mean' as const, mean: 35.5, variance: 4_000 }, sequential: false, max_mde: 10 };
    const without = minimumDetectableEffect({ ...design, users_total: 50_000 })!;
    const withCuped = minimumDetectableEffect({ ...design, users_total: 30_000, variance_reduction: 0.4 })!;
    expect(minimumDetectableEffect({ ...design, users_total: 50_000, variance_reduction: 0.4 })!).toBeLessThan(without);
    expect(withCuped).toBeCloseTo(without, 3);
  });
});
