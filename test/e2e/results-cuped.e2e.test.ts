/**
 * CUPED through the local stack (docs/decisions/cuped.md): the experiment fields `cuped` and
 * `cuped_lookback_days` (defaults, 400s naming the field, fixed once started), and results of two
 * experiments enrolling the same users on the same events, one with CUPED (the default) and one
 * without. The users' page views and purchases before their exposure are the covariate: some sent
 * days before the experiment started, some arriving only after it started (late pre-exposure
 * events), and one per user older than the 14-day window (which must not count). Results through
 * POST .../results/refresh (the incremental count) must carry cuped true and the variance reduction
 * of the hand-made per-user values, comparisons adjusted exactly as gbstats adjusts them; the
 * experiment with cuped false gives the unadjusted figures, as before CUPED.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareMetric } from '../../lambdas/domain/metric-comparison';
import { varianceReduction } from '../../lambdas/domain/regression-adjustment';
import { startTestProject, type TestStack } from '../helpers/local';

let now = Date.parse('2026-04-01T09:00:00.000Z');
let stack: TestStack;
let project: string;
let key: string;

beforeAll(async () => {
  ({ stack, project, key } = await startTestProject('results-cuped', { clock: () => now }));
});
afterAll(() => stack.stop());

const at = (iso: string) => (now = Date.parse(iso));
const base = () => `/admin/v1/projects/${project}/experiments`;
const send = async (events: unknown[]) => expect((await stack.post('/v1/events', key, { events })).status).toBe(204);
const ev = (name: string, user: string, timestamp: string) => ({ name, user_id: user, timestamp });
const exposure = (user: string, timestamp: string, experiment: string, variant: string) => ({
  name: '$experiment_exposure',
  user_id: user,
  timestamp,
  properties: { $experiment_name: experiment, $variant: variant },
});
const minute = (start: string, minutes: number) => new Date(Date.parse(start) + minutes * 60_000).toISOString();

/** Every figure of a comparison (metric-comparison.ts MetricComparison). */
const FIGURES = ['difference', 'ci_low', 'ci_high', 'p_value', 'relative_difference', 'relative_ci_low', 'relative_ci_high', 'relative_p_value'] as const;
const PAGE_VIEWS = { name: 'Page views', event: 'page_view', kind: 'count', role: 'secondary' };

describe('CUPED settings in the admin API', () => {
  let counter = 0;
  const create = (fields: Record<string, unknown>) => stack.admin('POST', base(), { name: `Cuped ${++counter}`, goal_event: 'purchase', ...fields });

  it('default to on with a 14-day window, refuse what is not a setting with a 400 naming the field, and are fixed once started (409)', async () => {
    const plain = await create({});
    expect(plain.status).toBe(201);
    expect(plain.body).toMatchObject({ cuped: true, cuped_lookback_days: 14 });
    for (const [fields, message] of [
      [{ cuped: 'yes' }, 'cuped must be true'],
      [{ cuped_lookback_days: 0 }, 'cuped_lookback_days must be a whole number of days from 1 to 60'],
      [{ cuped_lookback_days: 61 }, 'cuped_lookback_days must be a whole number of days from 1 to 60'],
      [{ cuped_lookback_days: 7.5 }, 'cuped_lookback_days must be a whole number of days from 1 to 60'],
      [{ cuped_lookback_days: '14' }, 'cuped_lookback_days must be a whole number of days from 1 to 60'],
    ] as const) {
      const res = await create(fields);
      expect(res.status, JSON.stringify(fields)).toBe(400);
      expect(res.body.error, JSON.stringify(fields)).toContain(message);
    }
    const path = `${base()}/${plain.body.id}`;
    const edited = await stack.admin('PATCH', path, { cuped: false, cuped_lookback_days: 30 });
    expect(edited.status).toBe(200);
    expect((await stack.admin('GET', path)).body).toMatchObject({ cuped: false, cuped_lookback_days: 30 });
    expect((await stack.admin('PATCH', path, { cuped_lookback_days: 90 })).status).toBe(400);
    expect((await stack.admin('POST', `${path}/start`)).status).toBe(200);
    for (const change of [{ cuped: true }, { cuped_lookback_days: 7 }]) expect((await stack.admin('PATCH', path, change)).status).toBe(409);
    expect((await stack.admin('GET', path)).body).toMatchObject({ cuped: false, cuped_lookback_days: 30 });
  });
});

describe('CUPED results', () => {
  // 16 users, control the even ones; x their page views in the 14 days before exposure, y after it.
  const USERS = Array.from({ length: 16 }, (_, i) => {
    const x = [0, 1, 2, 3, 4, 5, 6, 2][i % 8]!;
    return { user: `u${i}`, variant: i % 2 === 0 ? 'control' : 'treatment', x, y: x + (i % 3) + (i % 2), buysBefore: i % 4 === 0, buysAfter: i % 3 !== 2 };
  });
  const START = '2026-04-10T10:00:00.000Z';
  const sums = (variant: string) => {
    const rows = USERS.filter((u) => u.variant === variant);
    return { users: rows.length, sum: rows.reduce((s, u) => s + u.y, 0), sum_squares: rows.reduce((s, u) => s + u.y * u.y, 0) };
  };
  const withCovariate = (variant: string) => {
    const rows = USERS.filter((u) => u.variant === variant);
    const covariate = {
      sum: rows.reduce((s, u) => s + u.x, 0),
      sum_squares: rows.reduce((s, u) => s + u.x * u.x, 0),
      sum_products: rows.reduce((s, u) => s + u.x * u.y, 0),
    };
    return { ...sums(variant), covariate };
  };

  it('adjusts every metric by the user’s own pre-exposure data (cuped true, the variance reduction of the per-user values); cuped false keeps the unadjusted figures', async () => {
    const withCuped = await stack.admin('POST', base(), {
      name: 'Onboarding CUPED',
      goal_event: 'purchase',
      variants: ['control', 'treatment'],
      metrics: [PAGE_VIEWS],
    });
    const without = await stack.admin('POST', base(), {
      name: 'Onboarding Plain',
      goal_event: 'purchase',
      variants: ['control', 'treatment'],
      metrics: [PAGE_VIEWS],
      cuped: false,
    });
    expect([withCuped.status, without.status]).toEqual([201, 201]);

    // Six days before the start: half the users' history arrives (received long before the run).
    at('2026-04-04T12:00:00.000Z');
    const history = (u: (typeof USERS)[number], i: number) => [
      // A third of the users viewed a page 14 days and half an hour before their exposure: after the
      // run's start minus 14 days (the query reads that day) but outside the user's own window.
      ...(i % 3 === 0 ? [ev('page_view', u.user, minute('2026-03-27T10:30:00.000Z', i))] : []),
      // And everyone 25 days before: not even read.
      ev('page_view', u.user, minute('2026-03-16T08:00:00.000Z', i)),
      ...Array.from({ length: u.x }, (_, k) => ev('page_view', u.user, minute('2026-04-03T08:00:00.000Z', i * 10 + k))),
      ...(u.buysBefore ? [ev('purchase', u.user, minute('2026-04-03T20:00:00.000Z', i))] : []),
    ];
    await send(USERS.filter((_, i) => i < 8).flatMap(history));
    for (const id of [withCuped.body.id, without.body.id]) {
      at(START);
      expect((await stack.admin('POST', `${base()}/${id}/start`)).status).toBe(200);
    }
    // The run: exposures, then the rest of the history arrives late (offline clients), then the page
    // views and purchases after exposure.
    at('2026-04-10T14:00:00.000Z');
    await send(
      USERS.flatMap((u, i) => [
        exposure(u.user, minute('2026-04-10T11:00:00.000Z', i), 'Onboarding CUPED', u.variant),
        // A second later: an event's identity is its user, name and time (the same would be a copy).
        exposure(u.user, minute('2026-04-10T11:00:01.000Z', i), 'Onboarding Plain', u.variant),
      ]),
    );
    await send(USERS.filter((_, i) => i >= 8).flatMap((u) => history(u, USERS.indexOf(u))));
    await send(
      USERS.flatMap((u, i) => [
        ...Array.from({ length: u.y }, (_, k) => ev('page_view', u.user, minute('2026-04-10T12:00:00.000Z', i * 10 + k))),
        ...(u.buysAfter ? [ev('purchase', u.user, minute('2026-04-10T13:00:00.000Z', i))] : []),
      ]),
    );
    at('2026-04-10T16:00:00.000Z');
    const refresh = async (id: string) => {
      const res = await stack.admin('POST', `${base()}/${id}/results/refresh`);
      expect(res.status).toBe(200);
      return res.body;
    };
    const on = await refresh(withCuped.body.id);
    const off = await refresh(without.body.id);

    const [onGoal, onViews] = on.metrics;
    const [offGoal, offViews] = off.metrics;
    // The means are the unadjusted ones in both.
    expect(onViews.variants.map((v: any) => v.mean)).toEqual(offViews.variants.map((v: any) => v.mean));
    expect(onViews.variants.map((v: any) => v.mean)).toEqual(['control', 'treatment'].map((v) => sums(v).sum / 8));

    // CUPED on: applied, the reduction of the hand-made values, and the adjusted comparison of gbstats
    // on them (the views before the user's own 14 days left out: counting them would change both).
    const control = withCovariate('control');
    const treatment = withCovariate('treatment');
    const reduction = varianceReduction('count', [control, treatment])!;
    expect(reduction).toBeGreaterThan(0.5);
    expect(onViews.cuped).toBe(true);
    expect(onViews.variance_reduction).toBeCloseTo(reduction, 9);
    const adjusted = compareMetric('count', control, treatment, { sequential: true });
    for (const field of FIGURES) expect(onViews.comparisons[0][field], field).toBeCloseTo(adjusted[field]!, 9);
    // Narrower than the unadjusted interval.
    expect(onViews.comparisons[0].ci_high - onViews.comparisons[0].ci_low).toBeLessThan(offViews.comparisons[0].ci_high - offViews.comparisons[0].ci_low);

    // CUPED off: not applied, no reduction, and exactly the unadjusted comparison (as before CUPED).
    expect([offViews.cuped, offViews.variance_reduction, offGoal.cuped, offGoal.variance_reduction]).toEqual([false, null, false, null]);
    const plain = compareMetric('count', sums('control'), sums('treatment'), { sequential: true });
    for (const field of FIGURES) expect(offViews.comparisons[0][field], field).toBeCloseTo(plain[field]!, 12);

    // The primary metric (the goal's conversion) has its covariate too: a purchase in the window.
    expect(onGoal.cuped).toBe(true);
    expect(onGoal.variance_reduction).toBeGreaterThan(0);
    const goal = (variant: string, covariate: boolean) => {
      const rows = USERS.filter((u) => u.variant === variant);
      const y = rows.filter((u) => u.buysAfter).length;
      const x = rows.filter((u) => u.buysBefore).length;
      const xy = rows.filter((u) => u.buysAfter && u.buysBefore).length;
      return { users: rows.length, sum: y, sum_squares: y, ...(covariate ? { covariate: { sum: x, sum_squares: x, sum_products: xy } } : {}) };
    };
    expect(onGoal.comparisons[0].difference).toBeCloseTo(compareMetric('conversion', goal('control', true), goal('treatment', true)).difference!, 9);
    expect(offGoal.comparisons[0].difference).toBeCloseTo(compareMetric('conversion', goal('control', false), goal('treatment', false)).difference!, 12);
    // The verdict reads the same adjusted figures (the one analysis, metrics[0]).
    expect(on.variants.map((v: any) => [v.variant, v.enrolled])).toEqual([
      ['control', 8],
      ['treatment', 8],
    ]);
  });
});
