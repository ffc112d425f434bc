/** CUPED's expected variance reduction from the sums (domain/expected-variance-reduction.ts): ρ², clamped, null when unmeasurable. */
import { describe, expect, it } from 'vitest';
import { covariateSumsFor, expectedVarianceReduction, MIN_USERS_FOR_REDUCTION } from '../../lambdas/domain/expected-variance-reduction';

/** x = 0, 1, 2, 3 and y = 1, 1, 3, 3: cov 1, var x 1.25, var y 1, so ρ² = 1 / 1.25 = 0.8. */
const PAIRS: Array<[number, number]> = [
  [0, 1],
  [1, 1],
  [2, 3],
  [3, 3],
];

/** The sums of pairs (x, y), each repeated `times`. */
function sums(pairs: Array<[number, number]>, times = 50) {
  const s = { n: 0, sum_x: 0, sum_x2: 0, sum_y: 0, sum_y2: 0, sum_xy: 0 };
  for (let t = 0; t < times; t++)
    for (const [x, y] of pairs) {
      s.n += 1;
      s.sum_x += x;
      s.sum_x2 += x * x;
      s.sum_y += y;
      s.sum_y2 += y * y;
      s.sum_xy += x * y;
    }
  return s;
}

describe('expectedVarianceReduction', () => {
  const flip = (pairs: Array<[number, number]>) => pairs.map(([x, y]): [number, number] => [x, 4 - y]);
  it('is the squared correlation of covariate and metric', () => {
    expect(expectedVarianceReduction(sums(PAIRS))).toBeCloseTo(0.8, 12);
    // A negative correlation reduces the variance as much.
    expect(expectedVarianceReduction(sums(flip(PAIRS)))).toBeCloseTo(0.8, 12);
    // Independent: 0.
    const independent: Array<[number, number]> = [0, 1].flatMap((x) => [0, 1].map((y): [number, number] => [x, y]));
    expect(expectedVarianceReduction(sums(independent))).toBe(0);
  });

  it('is clamped to 0.9, the planner’s largest reduction', () => {
    expect(expectedVarianceReduction(sums([0, 1, 2].map((x): [number, number] => [x, 2 * x])))).toBe(0.9);
  });

  it('is null with too few users, or a covariate or metric that does not vary', () => {
    expect(expectedVarianceReduction(sums(PAIRS, (MIN_USERS_FOR_REDUCTION - 4) / 4))).toBeNull();
    expect(expectedVarianceReduction(sums(PAIRS, MIN_USERS_FOR_REDUCTION / 4))).not.toBeNull();
    expect(expectedVarianceReduction(sums(PAIRS.map(([, y]): [number, number] => [0, y])))).toBeNull(); // no one has history
    expect(expectedVarianceReduction(sums(PAIRS.map(([x]): [number, number] => [x * 1e6, 5])))).toBeNull(); // every user the same value
  });
});

describe('covariateSumsFor', () => {
  const b = {
    users: 200,
    converted: 50,
    value_sum: 120,
    value_sum_squares: 400,
    covariate_converted: 40,
    covariate_converted_products: 30,
    covariate_value_sum: 90,
    covariate_value_sum_squares: 300,
    covariate_value_sum_products: 150,
  };
  it('takes 0/1 sums for conversion and the values for count and sum', () => {
    expect(covariateSumsFor('conversion', b)).toEqual({ n: 200, sum_x: 40, sum_x2: 40, sum_y: 50, sum_y2: 50, sum_xy: 30 });
    expect(covariateSumsFor('sum', b)).toEqual({ n: 200, sum_x: 90, sum_x2: 300, sum_y: 120, sum_y2: 400, sum_xy: 150 });
  });
});
