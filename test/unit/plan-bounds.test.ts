/**
 * The planner at every corner of its bounds (domain/plan-bounds.ts): whatever combination of the
 * extremes a request may send, the search answers with whole, finite numbers of users and days that
 * really are the smallest with the target power, or null (more users than any product has), and
 * never NaN, Infinity or its first step by accident.
 */
import { describe, expect, it } from 'vitest';
import { EXPERIMENT_LIMITS } from '../../lambdas/domain/experiment-fields';
import { baselineProblem, PLAN_BOUNDS as B } from '../../lambdas/domain/plan-bounds';
import { plannedPower, sampleSize, type PlanningInput, type PlanningMetric } from '../../lambdas/domain/sample-size';

const ends = <T extends { min: number; max: number }>(b: T) => [b.min, b.max];

const metrics: PlanningMetric[] = [
  ...ends(B.rate).map((baseline_rate) => ({ kind: 'conversion' as const, baseline_rate })),
  { kind: 'conversion', baseline_rate: 0.5 },
  ...ends(B.mean).flatMap((m) => [m, -m].flatMap((mean) => ends(B.variance).map((variance) => ({ kind: 'mean' as const, mean, variance })))),
];
const designs: Array<Pick<PlanningInput, 'variants' | 'weights'>> = [
  { variants: 2 },
  { variants: 2, weights: [1, 99] },
  { variants: 2, weights: [99, 1] },
  { variants: EXPERIMENT_LIMITS.maxVariants },
  { variants: EXPERIMENT_LIMITS.maxVariants, weights: [100 - (EXPERIMENT_LIMITS.maxVariants - 1), ...Array(EXPERIMENT_LIMITS.maxVariants - 1).fill(1)] },
];

/** The fewest users that give every variant one: 2 for 50/50, 100 for 1/99. */
const least = (d: Pick<PlanningInput, 'variants' | 'weights'>) =>
  d.weights ? Math.ceil(d.weights.reduce((a, b) => a + b, 0) / Math.min(...d.weights)) : d.variants!;

describe('the planner within its bounds', () => {
  it('answers every corner with the smallest whole number of users that has the power, or null', () => {
    let plans = 0;
    let nulls = 0;
    for (const metric of metrics)
      for (const mde of ends(B.mde))
        for (const power of ends(B.power))
          for (const alpha of ends(B.alpha))
            for (const users_per_day of ends(B.usersPerDay))
              for (const design of designs)
                for (const sequential of [true, false]) {
                  if (power <= alpha) continue; // refused with a 400 (power must be above alpha)
                  if (baselineProblem(metric, mde)) continue; // refused with a 400 or 422 (a rate past 100%)
                  const input: PlanningInput = { metric, mde, power, confidence: 1 - alpha, sequential, users_per_day, ...design };
                  const plan = sampleSize(input);
                  const at = JSON.stringify(input);
                  if (plan === null) {
                    nulls++;
                    continue;
                  }
                  plans++;
                  expect(Number.isSafeInteger(plan.users_total), at).toBe(true);
                  // Every variant gets at least one user.
                  expect(plan.users_total, at).toBeGreaterThanOrEqual(least(design));
                  expect(plannedPower(input, plan.users_total), at).toBeGreaterThanOrEqual(power);
                  if (plan.users_total > least(design)) expect(plannedPower(input, plan.users_total - 1), at).toBeLessThan(power);
                  expect(
                    plan.users_per_variant.every((n) => Number.isSafeInteger(n) && n >= 1),
                    at,
                  ).toBe(true);
                  expect(Number.isSafeInteger(plan.days) && plan.days! >= 1, at).toBe(true);
                }
    // Both kinds of answer occur: the corners are not all trivially one or the other.
    expect(plans).toBeGreaterThan(100);
    expect(nulls).toBeGreaterThan(100);
  });

  it("the issue's cases: a rate of 1e-150 would have given 2 users; within the bounds the smallest rate needs millions", () => {
    const rare = sampleSize({ metric: { kind: 'conversion', baseline_rate: B.rate.min }, mde: 1, users_per_day: 1000 })!;
    expect(rare.users_total).toBeGreaterThan(1e6);
    expect(rare.days).toBe(Math.ceil(rare.users_total / 1000));
  });

  it('refuses a conversion rate that the change would take past 100%', () => {
    expect(baselineProblem({ kind: 'conversion', baseline_rate: 0.5 }, 1)).toMatch(/^a conversion rate of 0.5 cannot rise by 1 \(it would reach 1, above 1\)/);
    expect(baselineProblem({ kind: 'conversion', baseline_rate: 0.5 }, 0.99)).toBeUndefined();
  });
});
