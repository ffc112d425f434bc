/**
 * Experiment results through the local stack: events posted over HTTP, the DuckDB-backed results
 * query, the statistics, the refresh and results endpoints, and freezing at stop.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { needsComputation, runResultsJob } from '../../lambdas/services/compute-results';
import { startTestProject, UNTHROTTLED_KEY, type TestStack } from '../helpers/local';
import { relativeLift } from '../../lambdas/domain/relative-lift';

let stack: TestStack;
let project: string;
let web: string;
let backend: string;

beforeAll(async () => {
  ({ stack, project, key: web } = await startTestProject('results'));
  backend = await stack.createKey(project, UNTHROTTLED_KEY);
});
afterAll(() => stack.stop());

const send = async (key: string, events: unknown[]) => expect((await stack.post('/v1/events', key, { events })).status).toBe(204);
const base = () => `/admin/v1/projects/${project}/experiments`;

/** Independent check: Wilson score interval straight from its formula. */
function wilson(x: number, n: number): [number, number] {
  const z = 1.959963984540054;
  const p = x / n;
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z / (1 + (z * z) / n)) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return [centre - half, centre + half];
}

/** Independent check: two-sided p of the pooled two-proportion z-test, Φ by Simpson integration. */
function twoProportionP(x1: number, n1: number, x2: number, n2: number): number {
  const pooled = (x1 + x2) / (n1 + n2);
  const z = Math.abs(x2 / n2 - x1 / n1) / Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
  const steps = 20_000;
  const h = z / steps;
  let sum = 0;
  for (let i = 0; i <= steps; i++) sum += (i === 0 || i === steps ? 1 : i % 2 ? 4 : 2) * Math.exp(-((i * h) ** 2) / 2);
  const areaToZ = ((h / 3) * sum) / Math.sqrt(2 * Math.PI);
  return 2 * (0.5 - areaToZ);
}

describe('experiment results', () => {
  it('counts a known scenario exactly, and its statistics match an independent computation', async () => {
    const created = await stack.admin('POST', base(), { name: 'Pricing Page', goal_event: 'purchase', variants: ['control', 'treatment'] });
    const id = created.body.id as string;
    expect((await stack.admin('GET', `${base()}/${id}/results`)).status).toBe(409); // not started
    const started = await stack.admin('POST', `${base()}/${id}/start`);
    const t0 = Date.parse(started.body.started_at);
    // Millisecond steps: every event lies between the start and the refresh (the window ends at now).
    const at = (ms: number) => new Date(t0 + ms).toISOString();

    // Before the run: a purchase that must not count for anyone.
    await send(web, [{ name: 'purchase', user_id: 'early-buyer', timestamp: t0 - 60_000 }]);
    // 20 control users, 6 convert; 20 treatment users, 11 convert. Enrollment by exposure.
    const events: unknown[] = [];
    for (let i = 0; i < 20; i++) {
      events.push({ name: '$experiment_exposure', user_id: `c${i}`, timestamp: at(1), properties: { $experiment_name: 'Pricing Page', $variant: 'control' } });
      if (i < 6) events.push({ name: 'purchase', user_id: `c${i}`, timestamp: at(2) });
      events.push({
        name: '$experiment_exposure',
        user_id: `t${i}`,
        timestamp: at(1),
        properties: { $experiment_name: 'pricing_page', $variant: 'treatment' },
      });
      if (i < 11) events.push({ name: 'purchase', user_id: `t${i}`, timestamp: at(2) });
    }
    await send(web, events);
    // The early buyer enrolls later: the earlier purchase is before enrollment and does not count.
    await send(web, [{ name: 'page_view', user_id: 'early-buyer', timestamp: at(3), properties: { $experiment_pricing_page: 'control' } }]);
    // An anonymous visitor enrolls, logs in, and a payment integration reports the purchase under the user ID.
    await send(web, [
      { name: '$experiment_exposure', user_id: 'anon-x', timestamp: at(4), properties: { $experiment_name: 'Pricing Page', $variant: 'treatment' } },
    ]);
    await send(web, [{ name: '$identify', user_id: 'user-x', timestamp: at(5), properties: { $anonymous_id: 'anon-x' } }]);
    await send(backend, [{ name: 'purchase', user_id: 'user-x', timestamp: at(6) }]);
    // Someone exposed to both variants counts in the first, and in multiple_exposures.
    await send(web, [
      { name: '$experiment_exposure', user_id: 'flip', timestamp: at(7), properties: { $experiment_name: 'Pricing Page', $variant: 'control' } },
      { name: '$experiment_exposure', user_id: 'flip', timestamp: at(8), properties: { $experiment_name: 'Pricing Page', $variant: 'treatment' } },
    ]);

    expect((await stack.admin('GET', `${base()}/${id}/results`)).status).toBe(404); // not computed yet
    const refreshed = await stack.admin('POST', `${base()}/${id}/results/refresh`);
    expect(refreshed.status).toBe(200);
    const r = refreshed.body;
    // control: 20 + early-buyer + flip = 22 enrolled, 6 converted; treatment: 20 + anon-x = 21, 12 converted.
    expect(r.variants.map((v: any) => [v.variant, v.enrolled, v.converted])).toEqual([
      ['control', 22, 6],
      ['treatment', 21, 12],
    ]);
    expect(r.multiple_exposures).toBe(1);
    expect(r).toMatchObject({ experiment_id: id, status: 'running', window: { from: started.body.started_at } });

    const [control, treatment] = r.variants;
    expect(control.conversion_rate).toBeCloseTo(6 / 22, 12);
    const [lo, hi] = wilson(12, 21);
    expect(treatment.ci_low).toBeCloseTo(lo, 9);
    expect(treatment.ci_high).toBeCloseTo(hi, 9);
    const cmp = r.comparisons[0];
    expect(cmp).toMatchObject({ variant: 'treatment', control: 'control' });
    expect(cmp.absolute_diff).toBeCloseTo(12 / 21 - 6 / 22, 12);
    expect(cmp.relative_diff).toBeCloseTo(12 / 21 / (6 / 22) - 1, 12);
    // The relative lift's interval and test (gbstats' method; its numbers are checked in test/unit).
    const lift = relativeLift({ converted: 6, enrolled: 22 }, { converted: 12, enrolled: 21 })!;
    expect(cmp.relative_ci_low).toBeCloseTo(lift.interval[0], 9);
    expect(cmp.relative_ci_high).toBeCloseTo(lift.interval[1], 9);
    expect(cmp.relative_p_value).toBeCloseTo(lift.p_value, 9);
    expect(cmp.p_value).toBeCloseTo(twoProportionP(6, 22, 12, 21), 6);
    expect(cmp.chance_to_beat_control).toBeGreaterThan(0.95);
    expect(cmp.chance_to_beat_control).toBeLessThan(1);
    expect(r.srm).toEqual({ p_value: expect.any(Number), flagged: false });

    const stored = await stack.admin('GET', `${base()}/${id}/results`);
    expect(stored.body).toEqual(r);

    // The experiments list carries the stored results at a glance: enrolled, the lift as the experiment's
    // own analysis states it (its primary metric, sequential with Holm by default: the results page's
    // figures, not the fixed-horizon top-level comparisons), the sample-ratio health.
    const listed = (await stack.admin('GET', base())).body.experiments.find((e: { id: string }) => e.id === id);
    const primary = r.metrics[0].comparisons[0];
    expect(r.metrics[0]).toMatchObject({ name: 'purchase', role: 'primary' });
    expect(listed.results_summary).toEqual({
      computed_at: r.computed_at,
      enrolled: 43,
      analysis: { sequential: true, correction: 'holm' },
      lift: [
        {
          variant: 'treatment',
          difference: primary.difference,
          decision_p_value: primary.adjusted_p_value,
          outcome: primary.adjusted_p_value < 0.05 ? 'better' : 'no-significant-difference',
          relative_difference: primary.relative_difference,
          relative_ci_low: primary.relative_ci_low,
          relative_ci_high: primary.relative_ci_high,
          relative_p_value: primary.relative_p_value,
        },
      ],
      srm: r.srm,
    });
    // Sequential intervals are wider than the fixed-horizon ones the top-level comparison keeps for older clients.
    expect(primary.relative_ci_high - primary.relative_ci_low).toBeGreaterThan(cmp.relative_ci_high - cmp.relative_ci_low);
  });

  it('never reports a relative interval below −100%: 13 users keep gbstats’ upper bound and p-value, the low end stops at −100% (issue 22)', async () => {
    const created = await stack.admin('POST', base(), { name: 'Thirteen', goal_event: 'purchase', variants: ['control', 'treatment'] });
    const id = created.body.id as string;
    const t0 = Date.parse((await stack.admin('POST', `${base()}/${id}/start`)).body.started_at);
    const at = (ms: number) => new Date(t0 + ms).toISOString();
    // control 1 of 5, treatment 4 of 8: the delta method's interval is −384.9% to +684.9%.
    const events: unknown[] = [];
    for (const [variant, converted, enrolled] of [
      ['control', 1, 5],
      ['treatment', 4, 8],
    ] as const) {
      for (let i = 0; i < enrolled; i++) {
        events.push({
          name: '$experiment_exposure',
          user_id: `13-${variant}-${i}`,
          timestamp: at(1),
          properties: { $experiment_name: 'Thirteen', $variant: variant },
        });
        if (i < converted) events.push({ name: 'purchase', user_id: `13-${variant}-${i}`, timestamp: at(2) });
      }
    }
    await send(web, events);
    const r = (await stack.admin('POST', `${base()}/${id}/results/refresh`)).body;
    const lift = relativeLift({ converted: 1, enrolled: 5 }, { converted: 4, enrolled: 8 })!;
    expect(lift.interval[0]).toBeCloseTo(-3.849145439979014, 9);
    const [cmp] = r.comparisons;
    expect(cmp.relative_ci_low).toBe(-1);
    expect(cmp.relative_ci_high).toBeCloseTo(lift.interval[1], 9);
    expect(cmp.relative_diff).toBeCloseTo(1.5, 12);
    expect(cmp.relative_p_value).toBeCloseTo(lift.p_value, 9);
    // The series' points and the stored copy carry the same floor.
    expect(r.series.at(-1).comparisons[0].relative_ci_low).toBe(-1);
    expect((await stack.admin('GET', `${base()}/${id}/results`)).body.comparisons[0].relative_ci_low).toBe(-1);
  });

  it("enrolls by every spelling of the name: as configured, Tally's snake_case and the MGM SDKs' snake_case", async () => {
    // Hero Banner: hero_banner in Tally, hero__banner in the MGM SDKs (each capital gets a "_").
    const created = await stack.admin('POST', base(), { name: 'Hero Banner', goal_event: 'signup', variants: ['a', 'b'] });
    const id = created.body.id as string;
    const started = await stack.admin('POST', `${base()}/${id}/start`);
    const at = (ms: number) => new Date(Date.parse(started.body.started_at) + ms).toISOString();
    const exposure = (user: string, name: string, variant: string) => ({
      name: '$experiment_exposure',
      user_id: user,
      timestamp: at(1),
      properties: { $experiment_name: name, $variant: variant },
    });
    const superProperty = (user: string, key: string, variant: string) => ({
      name: 'page_view',
      user_id: user,
      timestamp: at(1),
      properties: { [key]: variant },
    });
    await send(web, [
      exposure('by-name', 'Hero Banner', 'a'),
      exposure('by-snake', 'hero_banner', 'a'),
      exposure('by-sdk-snake', 'hero__banner', 'a'),
      superProperty('super-snake', '$experiment_hero_banner', 'b'),
      superProperty('super-sdk-snake', '$experiment_hero__banner', 'b'),
      superProperty('super-name', '$experiment_Hero Banner', 'b'),
      // Not a spelling of this experiment: enrolls nobody.
      exposure('other-case', 'HERO BANNER', 'a'),
      superProperty('other-super', '$experiment_herobanner', 'b'),
      { name: 'signup', user_id: 'by-sdk-snake', timestamp: at(2) },
      { name: 'signup', user_id: 'super-sdk-snake', timestamp: at(2) },
    ]);
    const r = (await stack.admin('POST', `${base()}/${id}/results/refresh`)).body;
    expect(r.variants.map((v: any) => [v.variant, v.enrolled, v.converted])).toEqual([
      ['a', 3, 1],
      ['b', 3, 1],
    ]);
  });

  it('freezes the results of a stopped experiment at its stop', async () => {
    const created = await stack.admin('POST', base(), { name: 'Frozen', goal_event: 'signup' });
    const id = created.body.id as string;
    const started = await stack.admin('POST', `${base()}/${id}/start`);
    const t0 = Date.parse(started.body.started_at);
    await send(web, [
      { name: '$experiment_exposure', user_id: 'f1', timestamp: t0 + 1, properties: { $experiment_name: 'Frozen', $variant: 'a' } },
      { name: 'signup', user_id: 'f1', timestamp: t0 + 2 },
    ]);
    await new Promise((r) => setTimeout(r, 20));
    const stopped = await stack.admin('POST', `${base()}/${id}/stop`);
    const after = Date.parse(stopped.body.stopped_at) + 1000;
    // After the stop: neither this enrollment nor this conversion counts.
    await send(web, [
      { name: '$experiment_exposure', user_id: 'f2', timestamp: after, properties: { $experiment_name: 'Frozen', $variant: 'b' } },
      { name: 'signup', user_id: 'f2', timestamp: after + 1 },
    ]);
    const summary = await runResultsJob(stack.deps);
    expect(summary.failed).toBe(0);
    const frozen = (await stack.admin('GET', `${base()}/${id}/results`)).body;
    expect(frozen).toMatchObject({ status: 'stopped', window: { to: stopped.body.stopped_at } });
    expect(frozen.variants.map((v: any) => [v.variant, v.enrolled, v.converted])).toEqual([
      ['a', 1, 1],
      ['b', 0, 0],
    ]);
    expect(frozen.comparisons[0]).toMatchObject({ p_value: null, chance_to_beat_control: null }); // nothing enrolled in b

    // The next run leaves a stopped experiment alone.
    const experiment = (await stack.admin('GET', `${base()}/${id}`)).body;
    expect(needsComputation(experiment, frozen)).toBe(false);
  });

  it('the job computes running experiments, and only those stopped since their last computation', () => {
    const exp = { status: 'stopped', stopped_at: '2026-01-02T00:00:00.000Z' } as never;
    expect(needsComputation({ status: 'running' } as never, undefined)).toBe(true);
    expect(needsComputation({ status: 'created' } as never, undefined)).toBe(false);
    expect(needsComputation(exp, undefined)).toBe(true);
    expect(needsComputation(exp, { status: 'running', window: { to: '2026-01-01T23:00:00.000Z' } } as never)).toBe(true);
    expect(needsComputation(exp, { status: 'stopped', window: { to: '2026-01-02T00:00:00.000Z' } } as never)).toBe(false);
  });
});
