import { describe, expect, it } from 'vitest';
import {
  criticalZ,
  experimentStats,
  newcombeDifferenceInterval,
  probabilityBBeatsA,
  srmPValue,
  twoProportionZTestPValue,
  wilsonInterval,
  type Comparison,
  type VariantCounts,
} from '../../lambdas/domain/stats';
import { chiSquareSf, erfc, inverseNormalCdf, logGamma, normalCdf } from '../../lambdas/domain/numerics';

// Every expected number below comes from a published table, a closed form worked out by hand in
// the comment next to it, or an independent computation (a different method written in this file,
// or scipy 1.17 / R as cited) — never from this module's own output.

const Z95 = 1.959963984540054; // qnorm(0.975), e.g. Abramowitz & Stegun Table 26.5

/** Asserts |actual - expected| <= tol, with a readable failure message. */
function near(actual: number | null | undefined, expected: number, tol: number): void {
  expect(actual).not.toBeNull();
  expect(actual).toBeDefined();
  expect(Math.abs((actual as number) - expected), `${actual} vs ${expected}`).toBeLessThanOrEqual(tol);
}

/** Relative closeness for values spanning many orders of magnitude (tail probabilities). */
function nearRel(actual: number | null | undefined, expected: number, rel: number): void {
  expect(actual).not.toBeNull();
  expect(Math.abs((actual as number) - expected) / Math.abs(expected), `${actual} vs ${expected}`).toBeLessThanOrEqual(rel);
}

function only<T>(xs: T[]): T {
  expect(xs).toHaveLength(1);
  return xs[0] as T;
}

/**
 * Independent P(B > A) for A ~ Beta(aA, bA), B ~ Beta(aB, bB) by a midpoint Riemann sum on a fine
 * grid: P = sum_i w_B(x_i) F_A(x_i). Densities are normalised numerically (no gamma functions), so
 * this shares no code or formula with the module's Evan Miller sum / normal approximation.
 */
function riemannChanceToBeat(aA: number, bA: number, aB: number, bB: number, cells = 200_000): number {
  const mean = (a: number, b: number) => a / (a + b);
  const sd = (a: number, b: number) => Math.sqrt((a * b) / ((a + b) ** 2 * (a + b + 1)));
  const lo = Math.max(0, Math.min(mean(aA, bA) - 14 * sd(aA, bA), mean(aB, bB) - 14 * sd(aB, bB)));
  const hi = Math.min(1, Math.max(mean(aA, bA) + 14 * sd(aA, bA), mean(aB, bB) + 14 * sd(aB, bB)));
  const h = (hi - lo) / cells;
  const logA: number[] = [];
  const logB: number[] = [];
  for (let i = 0; i < cells; i++) {
    const x = lo + (i + 0.5) * h;
    logA.push((aA - 1) * Math.log(x) + (bA - 1) * Math.log1p(-x));
    logB.push((aB - 1) * Math.log(x) + (bB - 1) * Math.log1p(-x));
  }
  const weights = (logs: number[]) => {
    const max = logs.reduce((m, l) => Math.max(m, l), -Infinity);
    const w = logs.map((l) => Math.exp(l - max));
    const total = w.reduce((s, v) => s + v, 0);
    return w.map((v) => v / total);
  };
  const wA = weights(logA);
  const wB = weights(logB);
  let cdfA = 0;
  let p = 0;
  for (let i = 0; i < cells; i++) {
    const a = wA[i] ?? 0;
    p += (wB[i] ?? 0) * (cdfA + a / 2); // F_A at the cell midpoint
    cdfA += a;
  }
  return p;
}

describe('special functions', () => {
  it('normal CDF matches tabulated values, including the far tail', () => {
    near(normalCdf(1.96), 0.9750021048517795, 1e-14);
    nearRel(normalCdf(-3), 0.0013498980316301, 1e-12);
    near(normalCdf(0), 0.5, 0);
    near(normalCdf(-1), 0.15865525393145707, 1e-15);
    // Phi(-10) = 7.619853024160527e-24 (A&S 26.2; R pnorm(-10)): relative precision survives.
    nearRel(normalCdf(-10), 7.619853024160527e-24, 1e-12);
    // erfc(3) = 2.209049699858544e-5 (A&S Table 7.1)
    nearRel(erfc(3), 2.209049699858544e-5, 1e-12);
    near(erfc(0), 1, 0);
    near(erfc(-1) + erfc(1), 2, 1e-15);
  });

  it('inverse normal CDF recovers the standard quantiles', () => {
    near(inverseNormalCdf(0.975), Z95, 1e-12);
    near(inverseNormalCdf(0.995), 2.5758293035489004, 1e-12);
    near(inverseNormalCdf(0.001), -3.090232306167813, 1e-12);
    near(inverseNormalCdf(0.5), 0, 1e-15);
    near(criticalZ(0.95), Z95, 1e-12);
    expect(inverseNormalCdf(0)).toBe(-Infinity);
    expect(inverseNormalCdf(1)).toBe(Infinity);
    for (const p of [1e-12, 0.01, 0.02425, 0.3, 0.7, 0.99]) near(normalCdf(inverseNormalCdf(p)), p, 1e-14 + p * 1e-12);
  });

  it('log-gamma matches factorials and Gamma(1/2) = sqrt(pi)', () => {
    near(logGamma(0.5), 0.5 * Math.log(Math.PI), 1e-14);
    near(logGamma(1), 0, 1e-14);
    near(logGamma(2), 0, 1e-14);
    near(logGamma(10), Math.log(362880), 1e-13); // 9!
    let log99Factorial = 0;
    for (let k = 2; k <= 99; k++) log99Factorial += Math.log(k);
    near(logGamma(100), log99Factorial, 1e-11);
  });

  it('chi-square survival function at the classic critical values', () => {
    near(chiSquareSf(3.841458820694124, 1), 0.05, 1e-12);
    near(chiSquareSf(5.991464547107979, 2), 0.05, 1e-12);
    near(chiSquareSf(10.828, 1), 0.001, 1e-6); // table value, rounded to 3 decimals
    // df = 2 has the closed form exp(-x/2).
    nearRel(chiSquareSf(40, 2), Math.exp(-20), 1e-12);
    // df = 1: P(X > x) = erfc(sqrt(x/2)) = 2 * (1 - Phi(sqrt x)); Phi(-3) from the table above.
    nearRel(chiSquareSf(9, 1), 2 * 0.0013498980316301, 1e-12);
    near(chiSquareSf(0, 3), 1, 0);
    // scipy.stats.chi2.sf(100, 3) = 1.5541594313896026e-21 (tail stays relatively precise)
    nearRel(chiSquareSf(100, 3), 1.5541594313896026e-21, 1e-11);
  });
});

describe('Wilson score interval (Newcombe 1998, Stat Med 17:857-872, Table I, method 3)', () => {
  // Published to 4 decimals.
  const cases: Array<[number, number, number, number]> = [
    [81, 263, 0.2553, 0.3662],
    [15, 148, 0.0624, 0.1605],
    [0, 20, 0, 0.1611],
    [1, 29, 0.0061, 0.1718],
  ];
  for (const [x, n, low, high] of cases) {
    it(`${x}/${n} -> ${low}-${high}`, () => {
      const ci = wilsonInterval(x, n, Z95);
      near(ci?.[0], low, 5e-5);
      near(ci?.[1], high, 5e-5);
    });
  }

  it('is exact at the edges and null without data', () => {
    expect(wilsonInterval(0, 20, Z95)?.[0]).toBe(0);
    expect(wilsonInterval(20, 20, Z95)?.[1]).toBe(1);
    expect(wilsonInterval(0, 0, Z95)).toBeNull();
  });
});

describe('Newcombe hybrid score difference interval (Newcombe 1998, Stat Med 17:873-890, Table II, method 10)', () => {
  // [x1, n1, x2, n2, low, high], interval for p1 - p2, published to 4 decimals.
  const cases: Array<[number, number, number, number, number, number]> = [
    [56, 70, 48, 80, 0.0524, 0.3339],
    [9, 10, 3, 10, 0.1705, 0.809],
    [5, 56, 0, 29, -0.0381, 0.1926],
    [0, 10, 0, 20, -0.1611, 0.2775],
    [0, 10, 0, 10, -0.2775, 0.2775],
    [10, 10, 0, 20, 0.6791, 1],
    [10, 10, 0, 10, 0.6075, 1],
  ];
  for (const [x1, n1, x2, n2, low, high] of cases) {
    it(`${x1}/${n1} - ${x2}/${n2} -> ${low} to ${high}`, () => {
      const [l, h] = newcombeDifferenceInterval(x1, n1, x2, n2, Z95);
      near(l, low, 5e-5);
      near(h, high, 5e-5);
    });
  }
});

describe('two-proportion z-test (pooled SE)', () => {
  it('56/70 vs 48/80 matches a hand computation', () => {
    // pooled p = 104/150; SE = sqrt(p (1-p) (1/70 + 1/80)); z = 0.2 / SE = 2.6502.
    const pooled = 104 / 150;
    const z = 0.2 / Math.sqrt(pooled * (1 - pooled) * (1 / 70 + 1 / 80));
    near(z, 2.6502, 5e-5);
    // Normal table: 1 - Phi(2.65) = 0.00402, so two-sided p ~ 0.0080.
    const p = twoProportionZTestPValue(56, 70, 48, 80);
    near(p, 0.00804, 1e-4);
    // Pearson chi-square without continuity correction is the same test:
    // scipy.stats.chi2_contingency([[56,14],[48,32]], correction=False) / R prop.test(correct=FALSE).
    near(p, 0.008045081368196585, 1e-12);
  });

  it('200/1000 vs 250/1000 matches R prop.test(correct = FALSE)', () => {
    near(twoProportionZTestPValue(250, 1000, 200, 1000), 0.007419649261025672, 1e-12);
  });

  it('is symmetric and null when the pooled rate is 0 or 1', () => {
    expect(twoProportionZTestPValue(10, 100, 10, 100)).toBe(1);
    expect(twoProportionZTestPValue(0, 50, 0, 80)).toBeNull();
    expect(twoProportionZTestPValue(50, 50, 80, 80)).toBeNull();
    expect(twoProportionZTestPValue(0, 0, 1, 10)).toBeNull();
  });
});

describe('Bayesian chance to beat control, P(B > A)', () => {
  it('is 1/2 for identical posteriors', () => {
    near(probabilityBBeatsA(1, 1, 1, 1), 0.5, 1e-12);
    near(probabilityBBeatsA(31, 71, 31, 71), 0.5, 1e-12);
  });

  it('matches closed forms', () => {
    // A ~ Beta(1,2) (density 2(1-y)), B ~ Beta(2,1) (density 2x):
    // P(B > A) = int_0^1 2x (2x - x^2) dx = 4/3 - 1/2 = 5/6.
    near(probabilityBBeatsA(1, 2, 2, 1), 5 / 6, 1e-12);
    // With aA = aB = 1: P(pB > pA) = E[(1 - pA)^bB] = bA / (bA + bB); here 21/32.
    near(probabilityBBeatsA(1, 21, 1, 11), 21 / 32, 1e-12);
  });

  it('A ~ Beta(11, 91), B ~ Beta(21, 81) agrees with a Riemann sum', () => {
    const p = probabilityBBeatsA(11, 91, 21, 81);
    near(p, riemannChanceToBeat(11, 91, 21, 81), 1e-6);
    // scipy.integrate.quad of beta(21,81).pdf * beta(11,91).cdf = 0.97517303315286
    near(p, 0.97517303315286, 1e-10);
  });

  it('stays accurate for larger and lopsided counts (all four symmetric orientations)', () => {
    const cases: Array<[number, number, number, number]> = [
      [5001, 95001, 5101, 94901], // 100k per arm, ~5% conversion
      [20, 80, 5, 95], // smallest parameter aB: summed directly
      [2, 1000, 5, 998], // aA: 1 - P(A > B)
      [3, 1, 2, 5], // bA: via the complementary rates
      [900, 101, 880, 121], // bA
      [50, 50, 60, 40], // bB
    ];
    for (const [aA, bA, aB, bB] of cases) {
      near(probabilityBBeatsA(aA, bA, aB, bB), riemannChanceToBeat(aA, bA, aB, bB), 1e-6);
    }
  });

  it('uses a normal approximation accurate to 1e-3 beyond a million conversions', () => {
    const [aA, bA, aB, bB] = [1_000_001, 9_000_001, 1_001_001, 8_999_001];
    near(probabilityBBeatsA(aA, bA, aB, bB), riemannChanceToBeat(aA, bA, aB, bB), 1e-4);
  });
});

describe('sample ratio mismatch', () => {
  it('flags 1000 vs 1200', () => {
    // chi2 = 2 * 100^2 / 1100 = 18.1818; p = erfc(sqrt(chi2 / 2)) = 2.0079e-5
    // (scipy.stats.chisquare([1000, 1200]).pvalue = 2.007865612426481e-05).
    const stats = experimentStats([
      { variant: 'control', enrolled: 1000, converted: 100 },
      { variant: 'b', enrolled: 1200, converted: 120 },
    ]);
    nearRel(stats.srm.p_value, 2.007865612426481e-5, 1e-10);
    expect(stats.srm.flagged).toBe(true);
  });

  it('does not flag 1000 vs 1010', () => {
    // scipy.stats.chisquare([1000, 1010]).pvalue = 0.8234966946547395
    const stats = experimentStats([
      { variant: 'control', enrolled: 1000, converted: 100 },
      { variant: 'b', enrolled: 1010, converted: 100 },
    ]);
    near(stats.srm.p_value, 0.8234966946547395, 1e-12);
    expect(stats.srm.flagged).toBe(false);
  });

  it('uses df = k - 1 for three variants and honours the threshold option', () => {
    // chi2 = (2 * 33.33^2 + 66.67^2) / 1033.33 = 6.4516; df = 2 -> exp(-chi2 / 2) = 0.039724
    // (scipy.stats.chisquare([1000, 1000, 1100]).pvalue = 0.03972373338644102).
    const counts = [1000, 1000, 1100].map((enrolled, i) => ({ variant: `v${i}`, enrolled, converted: 0 }));
    near(srmPValue([1000, 1000, 1100]), 0.03972373338644102, 1e-12);
    expect(experimentStats(counts).srm.flagged).toBe(false);
    expect(experimentStats(counts, { srmThreshold: 0.05 }).srm.flagged).toBe(true);
  });

  it('tests against the configured weights: a 90/10 experiment enrolled 50/50 is flagged, one enrolled 90/10 passes', () => {
    const counts = (a: number, b: number) => [
      { variant: 'control', enrolled: a, converted: 0 },
      { variant: 'treatment', enrolled: b, converted: 0 },
    ];
    const weighted = { expectedShares: [0.9, 0.1] };
    expect(experimentStats(counts(500, 500), weighted).srm.flagged).toBe(true);
    expect(experimentStats(counts(9030, 970), weighted).srm.flagged).toBe(false);
    // chi2 = 30^2/9000 + 30^2/1000 = 1; df = 1 -> p = erfc(sqrt(1/2)) (scipy.stats.chisquare([9030, 970], [9000, 1000]).pvalue = 0.31731050786291415).
    near(srmPValue([9030, 970], [0.9, 0.1]), 0.31731050786291415, 1e-12);
    // The same counts against an equal split: a mismatch.
    expect(experimentStats(counts(9030, 970)).srm.flagged).toBe(true);
    expect(() => srmPValue([1, 2], [0.5, 0.4])).toThrow(RangeError);
  });

  it('is null (and unflagged) with fewer than two variants or nobody enrolled', () => {
    expect(srmPValue([500])).toBeNull();
    expect(srmPValue([0, 0])).toBeNull();
    expect(
      experimentStats([
        { variant: 'a', enrolled: 0, converted: 0 },
        { variant: 'b', enrolled: 0, converted: 0 },
      ]).srm,
    ).toEqual({
      p_value: null,
      flagged: false,
    });
  });
});

describe('experimentStats', () => {
  it('reports per-variant rates with Wilson intervals and compares against the first variant', () => {
    const stats = experimentStats([
      { variant: 'control', enrolled: 80, converted: 48 },
      { variant: 'treatment', enrolled: 70, converted: 56 },
    ]);
    expect(stats.variants.map((v) => v.variant)).toEqual(['control', 'treatment']);
    const [control, treatment] = stats.variants;
    near(control?.conversion_rate, 0.6, 1e-15);
    near(treatment?.conversion_rate, 0.8, 1e-15);
    // Hand: Wilson for 48/80 = (2x + z^2 -+ z sqrt(z^2 + 4x(1-p))) / (2(n + z^2))
    //   = (99.8415 -+ 1.96 * sqrt(3.8415 + 76.8)) / 167.6829 = 0.49045 to 0.70038
    near(control?.ci_low, 0.49045, 1e-5);
    near(control?.ci_high, 0.70038, 1e-5);

    const c = only(stats.comparisons);
    expect(c.variant).toBe('treatment');
    expect(c.control).toBe('control');
    near(c.absolute_diff, 0.2, 1e-12);
    near(c.relative_diff, 0.8 / 0.6 - 1, 1e-12);
    near(c.ci_low, 0.0524, 5e-5); // Newcombe 1998 Table II, example (a)
    near(c.ci_high, 0.3339, 5e-5);
    near(c.p_value, 0.008045081368196585, 1e-12);
    // A ~ Beta(49, 33), B ~ Beta(57, 15)
    near(c.chance_to_beat_control, riemannChanceToBeat(49, 33, 57, 15), 1e-6);
  });

  it('orients the Bayesian comparison as variant beats control', () => {
    const stats = experimentStats([
      { variant: 'control', enrolled: 100, converted: 10 },
      { variant: 'b', enrolled: 100, converted: 20 },
      { variant: 'c', enrolled: 100, converted: 10 },
    ]);
    const [b, c] = stats.comparisons;
    near(b?.chance_to_beat_control, 0.97517303315286, 1e-10); // A ~ Beta(11, 91), B ~ Beta(21, 81)
    near(c?.chance_to_beat_control, 0.5, 1e-12);
    near(c?.p_value, 1, 1e-15);
    near(c?.absolute_diff, 0, 0);
  });

  it('honours the confidence option for both kinds of interval', () => {
    const stats = experimentStats(
      [
        { variant: 'control', enrolled: 263, converted: 81 },
        { variant: 'b', enrolled: 263, converted: 81 },
      ],
      { confidence: 0.99 },
    );
    // Wilson with z = 2.5758293035489: 0.240137 to 0.385283 (same closed form as above)
    near(stats.variants[0]?.ci_low, 0.240137, 1e-6);
    near(stats.variants[0]?.ci_high, 0.385283, 1e-6);
    // Identical arms: Newcombe interval is -+ sqrt((p - l)^2 + (u - p)^2)
    const half = Math.hypot(81 / 263 - 0.2401369026876, 0.3852825023182 - 81 / 263);
    near(stats.comparisons[0]?.ci_low, -half, 1e-9);
    near(stats.comparisons[0]?.ci_high, half, 1e-9);
  });

  it('returns nulls, not NaN, when an arm has nobody enrolled', () => {
    const stats = experimentStats([
      { variant: 'control', enrolled: 0, converted: 0 },
      { variant: 'b', enrolled: 100, converted: 5 },
    ]);
    expect(stats.variants[0]).toEqual({
      variant: 'control',
      enrolled: 0,
      converted: 0,
      conversion_rate: null,
      ci_low: null,
      ci_high: null,
    });
    const nullComparison: Comparison = {
      variant: 'b',
      control: 'control',
      absolute_diff: null,
      relative_diff: null,
      ci_low: null,
      ci_high: null,
      p_value: null,
      relative_ci_low: null,
      relative_ci_high: null,
      relative_p_value: null,
      chance_to_beat_control: null,
    };
    expect(only(stats.comparisons)).toEqual(nullComparison);
    near(stats.variants[1]?.conversion_rate, 0.05, 1e-15);
    // 0 vs 100 enrolled is itself a gross sample-ratio mismatch: chi2 = 100, df = 1.
    expect(stats.srm.flagged).toBe(true);

    const emptyVariant = experimentStats([
      { variant: 'control', enrolled: 100, converted: 5 },
      { variant: 'b', enrolled: 0, converted: 0 },
    ]);
    expect(only(emptyVariant.comparisons)).toEqual({ ...nullComparison, variant: 'b' });
  });

  it('keeps defined quantities and nulls only the undefined ones when the control rate is 0', () => {
    const stats = experimentStats([
      { variant: 'control', enrolled: 20, converted: 0 },
      { variant: 'b', enrolled: 10, converted: 0 },
    ]);
    const c = only(stats.comparisons);
    expect(c.relative_diff).toBeNull(); // p_c = 0
    expect(c.p_value).toBeNull(); // pooled rate 0: z undefined
    expect(c.absolute_diff).toBe(0);
    near(c.ci_low, -0.1611, 5e-5); // Newcombe 1998 Table II, example (e)
    near(c.ci_high, 0.2775, 5e-5);
    // A ~ Beta(1, 21), B ~ Beta(1, 11): 21/32 (closed form above)
    near(c.chance_to_beat_control, 21 / 32, 1e-12);
  });

  it('never emits NaN or infinities', () => {
    const inputs: VariantCounts[][] = [
      [
        { variant: 'a', enrolled: 0, converted: 0 },
        { variant: 'b', enrolled: 0, converted: 0 },
      ],
      [
        { variant: 'a', enrolled: 5, converted: 5 },
        { variant: 'b', enrolled: 5, converted: 5 },
      ],
      [
        { variant: 'a', enrolled: 1, converted: 0 },
        { variant: 'b', enrolled: 1, converted: 1 },
      ],
    ];
    for (const input of inputs) {
      const json = JSON.stringify(experimentStats(input), (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? `BAD:${v}` : v));
      expect(json).not.toContain('BAD');
    }
  });

  it('handles a lone control and an empty input', () => {
    const lone = experimentStats([{ variant: 'a', enrolled: 10, converted: 3 }]);
    expect(lone.comparisons).toEqual([]);
    expect(lone.srm).toEqual({ p_value: null, flagged: false });
    expect(experimentStats([])).toEqual({ variants: [], comparisons: [], srm: { p_value: null, flagged: false } });
  });

  it('rejects malformed counts and options', () => {
    const bad = (c: Partial<VariantCounts>) => () =>
      experimentStats([
        { variant: 'a', enrolled: 10, converted: 1 },
        { variant: 'b', enrolled: 10, converted: 1, ...c },
      ]);
    expect(bad({ converted: 11 })).toThrow(RangeError);
    expect(bad({ converted: -1 })).toThrow(RangeError);
    expect(bad({ enrolled: 10.5 })).toThrow(RangeError);
    expect(bad({ enrolled: Number.NaN })).toThrow(RangeError);
    expect(() => experimentStats([], { confidence: 1 })).toThrow(RangeError);
    expect(() => experimentStats([], { confidence: 0 })).toThrow(RangeError);
  });
});

describe('relative lift in the comparison (as gbstats)', () => {
  it('carries gbstats’ known answer for 16/30 against 14/28 next to the absolute difference', () => {
    const stats = experimentStats([
      { variant: 'control', enrolled: 28, converted: 14 },
      { variant: 'treatment', enrolled: 30, converted: 16 },
    ]);
    const c = stats.comparisons[0]!;
    expect(c.relative_diff).toBeCloseTo(0.06667, 4);
    expect(Math.abs(c.relative_ci_low! - -0.47767)).toBeLessThan(1e-3);
    expect(Math.abs(c.relative_ci_high! - 0.61101)).toBeLessThan(1e-3);
    expect(Math.abs(c.relative_p_value! - 0.80707)).toBeLessThan(1e-3);
    // The absolute difference keeps its own interval and test.
    expect(c.ci_low! < c.absolute_diff! && c.absolute_diff! < c.ci_high!).toBe(true);
    expect(c.p_value).not.toBeCloseTo(c.relative_p_value!, 3);
  });
});
