/** ρ², the squared (Pearson) correlation of paired values, in plain TS: the tests' own figure for CUPED's expected reduction. */
export function squaredCorrelation(xs: number[], ys: number[]): number {
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  const mx = mean(xs);
  const my = mean(ys);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  xs.forEach((x, i) => {
    sxy += (x - mx) * (ys[i]! - my);
    sxx += (x - mx) ** 2;
    syy += (ys[i]! - my) ** 2;
  });
  return (sxy * sxy) / (sxx * syy);
}
