/**
 * POST /admin/v1/projects/{project_id}/plan through the local server: the baseline from a small
 * project's events, counted by hand, and plans equal to sampleSize's on the same inputs; and the
 * inverse question (`weeks`: the smallest detectable change), whose answer sized again gives back the weeks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plannedPower, sampleSize } from '../../lambdas/domain/sample-size';
import { startTestStack, UNTHROTTLED_KEY, type TestStack } from '../helpers/local';

// The server's clock: the 14-day look-back is 2026-04-01T12:00Z to 2026-04-15T12:00Z.
const NOW = Date.parse('2026-04-15T12:00:00.000Z');

let stack: TestStack;
let project: string;
let empty: string;

beforeAll(async () => {
  stack = await startTestStack({ clock: () => NOW });
  project = await stack.createProject('plan');
  empty = await stack.createProject('plan-empty');
  const key = await stack.createKey(project, UNTHROTTLED_KEY);
  const res = await stack.post('/v1/events', key, {
    events: [
      // Before the look-back: not an active user.
      { name: 'page_viewed', user_id: 'old', timestamp: '2026-03-20T09:00:00Z' },
      { name: 'purchase', user_id: 'old', timestamp: '2026-03-20T09:01:00Z', properties: { amount: 1000 } },
      // anon-1 and grace are one user (grace is linked to anon-1): 2 purchases, 30 + "12.5".
      { name: 'page_viewed', user_id: 'anon-1', timestamp: '2026-04-10T10:00:00Z' },
      { name: '$identify', user_id: 'grace', timestamp: '2026-04-10T10:01:00Z', properties: { $anonymous_id: 'anon-1' } },
      { name: 'purchase', user_id: 'grace', timestamp: '2026-04-10T10:02:00Z', properties: { amount: 30 } },
      { name: 'purchase', user_id: 'grace', timestamp: '2026-04-11T10:00:00Z', properties: { amount: '12.5' } },
      // u2: one purchase without a numeric amount (counts, sums 0).
      { name: 'page_viewed', user_id: 'u2', timestamp: '2026-04-12T10:00:00Z' },
      { name: 'purchase', user_id: 'u2', timestamp: '2026-04-12T10:05:00Z', properties: { amount: 'a lot' } },
      // u3 and u4: active, no purchase.
      { name: 'page_viewed', user_id: 'u3', timestamp: '2026-04-13T10:00:00Z' },
      { name: 'page_viewed', user_id: 'u4', timestamp: '2026-04-14T10:00:00Z' },
    ],
  });
  expect(res.status, res.text).toBe(204);
});
afterAll(() => stack.stop());

const plan = (body: unknown, projectId = project) => stack.admin('POST', `/admin/v1/projects/${projectId}/plan`, body);

// Active users: anon-1 (with grace), u2, u3, u4; data from 2026-04-10T10:00Z to now: 5 days and 2 hours.
const USERS_PER_DAY = 4 / (5 + 2 / 24);

describe("planning baseline from the project's events", () => {
  it('conversion: the share of active users who sent the event, under canonical IDs, and users per day', async () => {
    const res = await plan({ metric: { event: 'purchase', kind: 'conversion' }, mde: 0.1 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.baseline).toMatchObject({ rate: 0.5, mean: 0.5, variance: 0.25, source: 'events', users_per_day_source: 'events' });
    expect(res.body.baseline.users_per_day).toBeCloseTo(USERS_PER_DAY, 12);
    expect(res.body.baseline.events).toEqual({
      from: '2026-04-01T12:00:00.000Z',
      to: '2026-04-15T12:00:00.000Z',
      lookback_days: 14,
      active_users: 4,
      days_observed: 5 + 2 / 24,
    });
    const expected = sampleSize({ metric: { kind: 'conversion', baseline_rate: 0.5 }, mde: 0.1, users_per_day: USERS_PER_DAY })!;
    expect(res.body.users_total).toBe(expected.users_total);
    expect(res.body.days).toBe(expected.days);
    expect(res.body.variants).toEqual([
      { variant: 'a', weight: null, users: expected.users_per_variant[0] },
      { variant: 'b', weight: null, users: expected.users_per_variant[1] },
    ]);
    expect(res.body).toMatchObject({ mde: 0.1, power: 0.8, alpha: 0.05, sequential: true, experiment_id: null });
  });

  it('count: mean and sample variance of the events per active user', async () => {
    const res = await plan({ metric: { event: 'purchase', kind: 'count' }, mde: 0.2, sequential: false, power: 0.9 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // Counts 2, 1, 0, 0: mean 0.75, variance (5 - 9/4) / 3.
    expect(res.body.baseline.rate).toBeNull();
    expect(res.body.baseline.mean).toBeCloseTo(0.75, 12);
    expect(res.body.baseline.variance).toBeCloseTo(2.75 / 3, 12);
    const expected = sampleSize({
      metric: { kind: 'mean', mean: 0.75, variance: 2.75 / 3 },
      mde: 0.2,
      power: 0.9,
      sequential: false,
      users_per_day: USERS_PER_DAY,
    })!;
    expect(res.body.users_total).toBe(expected.users_total);
    expect(res.body.days).toBe(expected.days);
  });

  it('plans with an expected CUPED variance reduction: the variance times 1 − it, so fewer users; a reduction outside 0 to 0.9 is a 400', async () => {
    const body = { metric: { event: 'purchase', kind: 'count' }, mde: 0.2, sequential: false, power: 0.9 };
    const without = await plan(body);
    const res = await plan({ ...body, variance_reduction: 0.375 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect([without.body.variance_reduction, res.body.variance_reduction]).toEqual([0, 0.375]);
    // The baseline reported is the measured one; the plan is that of the adjusted variance.
    expect(res.body.baseline.variance).toBeCloseTo(2.75 / 3, 12);
    const adjusted = sampleSize({ metric: { kind: 'mean', mean: 0.75, variance: (2.75 / 3) * 0.625 }, mde: 0.2, power: 0.9, sequential: false })!;
    expect(res.body.users_total).toBe(adjusted.users_total);
    // 1.6× the users' worth: about 0.625 of the users.
    expect(res.body.users_total / without.body.users_total).toBeCloseTo(0.625, 2);
    for (const bad of [-0.1, 0.95, 'a lot']) {
      const refused = await plan({ ...body, variance_reduction: bad });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toContain('variance_reduction must be');
    }
  });

  it('sum: the numeric property per active user, text numbers read, other values 0', async () => {
    const res = await plan({ metric: { event: 'purchase', kind: 'sum', property: 'amount' }, mde: 0.5 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // Sums 42.5, 0, 0, 0: mean 10.625, variance 42.5^2 (1 - 1/4) / 3.
    expect(res.body.baseline.mean).toBeCloseTo(10.625, 12);
    expect(res.body.baseline.variance).toBeCloseTo((42.5 ** 2 * 0.75) / 3, 9);
    expect(res.body.metric).toEqual({ event: 'purchase', kind: 'sum', property: 'amount' });
  });

  it('takes variants, weights and sequential from an experiment, and its goal event as the metric', async () => {
    const created = await stack.admin('POST', `/admin/v1/projects/${project}/experiments`, {
      name: 'Checkout',
      goal_event: 'purchase',
      variants: ['control', 'new'],
      weights: [90, 10],
      sequential: false,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const res = await plan({ experiment_id: created.body.id, mde: 0.1 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const expected = sampleSize({
      metric: { kind: 'conversion', baseline_rate: 0.5 },
      mde: 0.1,
      weights: [90, 10],
      sequential: false,
      users_per_day: USERS_PER_DAY,
    })!;
    expect(res.body.metric).toEqual({ event: 'purchase', kind: 'conversion', property: null });
    expect(res.body.sequential).toBe(false);
    expect(res.body.users_total).toBe(expected.users_total);
    expect(res.body.variants).toEqual([
      { variant: 'control', weight: 90, users: expected.users_per_variant[0] },
      { variant: 'new', weight: 10, users: expected.users_per_variant[1] },
    ]);
    // The 10% arm decides: more users than an even split needs.
    const even = sampleSize({ metric: { kind: 'conversion', baseline_rate: 0.5 }, mde: 0.1, sequential: false })!;
    expect(res.body.users_total).toBeGreaterThan(even.users_total * 2);
  });
});

describe('when the events cannot give a baseline', () => {
  it('a project without events answers 422 saying what to send, and plans from the override', async () => {
    const none = await plan({ metric: { event: 'purchase' }, mde: 0.1 }, empty);
    expect(none.status).toBe(422);
    expect(none.body.error).toMatch(/no events in the last 14 days.*Send baseline\.rate.*baseline\.users_per_day/);

    const res = await plan({ metric: { event: 'purchase' }, mde: 0.1, baseline: { rate: 0.2, users_per_day: 500 }, variants: ['a', 'b', 'c'] }, empty);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.baseline).toMatchObject({ rate: 0.2, users_per_day: 500, source: 'override', users_per_day_source: 'override', events: null });
    const expected = sampleSize({ metric: { kind: 'conversion', baseline_rate: 0.2 }, mde: 0.1, variants: 3, users_per_day: 500 })!;
    expect(res.body.users_total).toBe(expected.users_total);
    expect(res.body.days).toBe(expected.days);
    expect(res.body.variants.map((v: { users: number }) => v.users)).toEqual(expected.users_per_variant);
  });

  it('an event nobody sent answers 422; a mean without users per day plans with no run time', async () => {
    const never = await plan({ metric: { event: 'never_sent', kind: 'count' }, mde: 0.1 });
    expect(never.status).toBe(422);
    expect(never.body.error).toMatch(/mean is 0.*Send baseline\.mean and baseline\.variance/);

    const res = await plan({ metric: { event: 'purchase', kind: 'count' }, mde: 0.1, baseline: { mean: 2, variance: 3 } }, empty);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.baseline).toMatchObject({ mean: 2, variance: 3, users_per_day: null, users_per_day_source: null });
    expect(res.body.days).toBeNull();
  });
});

describe('bad input', () => {
  it.each([
    [{ metric: { event: 'purchase' } }, /mde is required/],
    [{ metric: { event: 'purchase' }, mde: 0 }, /^mde: mde must be from 0.001 to 10/],
    [{ mde: 0.1 }, /metric is required/],
    [{ metric: { event: 'purchase', kind: 'sum' }, mde: 0.1 }, /sum metric needs property/],
    [{ metric: { event: 'purchase', kind: 'ratio' }, mde: 0.1 }, /metric.kind must be one of "conversion", "count", "sum"/],
    [{ metric: { event: 'purchase' }, mde: 0.1, power: 1 }, /^power: power must be from 0.5 to 0.999/],
    [{ metric: { event: 'purchase' }, mde: 0.1, alpha: 0.9 }, /^alpha: alpha must be from 0.001 to 0.5/],
    [{ metric: { event: 'purchase' }, mde: 0.1, variants: ['a', 'b'], weights: [50, 40] }, /^weights: weights must sum to 100, got 90$/],
    [{ metric: { event: 'purchase' }, mde: 0.1, baseline: { rate: 1.5 } }, /^baseline.rate: baseline.rate must be from 0.000001 to 0.999999/],
    // The extremes that gave a 500 or a meaningless plan: refused, naming the field and its bounds.
    [{ metric: { event: 'purchase' }, mde: 0.1, alpha: 1e-17 }, /^alpha: alpha must be from 0.001 to 0.5/],
    [{ metric: { event: 'purchase' }, mde: 0.1, power: 1e-10 }, /^power: power must be from 0.5 to 0.999/],
    [{ metric: { event: 'purchase' }, mde: 1e-300 }, /^mde: mde must be from 0.001 to 10/],
    [{ metric: { event: 'purchase' }, mde: 11 }, /^mde: mde must be from 0.001 to 10/],
    [
      { metric: { event: 'purchase' }, mde: 0.1, baseline: { rate: 1e-150, users_per_day: 100 } },
      /^baseline.rate: baseline.rate must be from 0.000001 to 0.999999/,
    ],
    [
      { metric: { event: 'purchase' }, mde: 0.1, baseline: { rate: 0.1, users_per_day: 1e-300 } },
      /^baseline.users_per_day: baseline.users_per_day must be from 0.01 to 10000000000/,
    ],
    [
      { metric: { event: 'purchase', kind: 'count' }, mde: 0.1, baseline: { mean: 1e-300, variance: 1 } },
      /^baseline.mean: baseline.mean must be a number whose magnitude is from 0.000001 to 1000000000000/,
    ],
    [
      { metric: { event: 'purchase', kind: 'count' }, mde: 0.1, baseline: { mean: 2, variance: 1e300 } },
      /^baseline.variance: baseline.variance must be from 1e-12 to 1e\+24/,
    ],
    [{ metric: { event: 'purchase' }, mde: 1, baseline: { rate: 0.5 } }, /^mde: a conversion rate of 0.5 cannot rise by 1 \(it would reach 1, above 1\)/],
    [{ metric: { event: 'purchase' }, mde: 0.1, baseline: { mean: 1, variance: 1 } }, /conversion baseline is baseline.rate/],
    [{ metric: { event: 'purchase' }, mde: 0.1, lookback_days: 365 }, /lookback_days must be at most 90/],
    [{ metric: { event: 'purchase' }, mde: 0.1, surprise: 1 }, /surprise/],
  ])('%j answers 400 naming the problem', async (body, message) => {
    const res = await plan(body);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error).toMatch(message);
  });

  it('a baseline measured from events outside the bounds answers 422 saying what was measured and what to send', async () => {
    const huge = await stack.createProject('plan-huge');
    const key = await stack.createKey(huge, UNTHROTTLED_KEY);
    const sent = await stack.post('/v1/events', key, {
      events: [
        { name: 'purchase', user_id: 'whale', timestamp: '2026-04-14T10:00:00Z', properties: { amount: 1e15 } },
        { name: 'page_viewed', user_id: 'minnow', timestamp: '2026-04-14T10:00:00Z' },
      ],
    });
    expect(sent.status, sent.text).toBe(204);
    const res = await plan({ metric: { event: 'purchase', kind: 'sum', property: 'amount' }, mde: 0.1 }, huge);
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error).toMatch(
      /^Cannot plan from the project's events: the mean per user is 500000000000000, but its magnitude must be from 0.000001 to 1000000000000\. Send the baseline yourself/,
    );
  });

  it('an unknown experiment or project answers 404', async () => {
    expect((await plan({ experiment_id: '00000000-0000-4000-8000-000000000000', mde: 0.1 })).status).toBe(404);
    expect((await plan({ metric: { event: 'x' }, mde: 0.1 }, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });
});

describe('planned_users on an experiment', () => {
  const base = () => `/admin/v1/projects/${project}/experiments`;

  it('is null by default, set on create or change while created, kept, and fixed once started', async () => {
    const plain = await stack.admin('POST', base(), { name: 'No plan', goal_event: 'purchase' });
    expect(plain.body.planned_users).toBeNull();
    const planned = await stack.admin('POST', base(), { name: 'Planned', goal_event: 'purchase', planned_users: 12_000 });
    expect(planned.status, JSON.stringify(planned.body)).toBe(201);
    expect((await stack.admin('GET', `${base()}/${planned.body.id}`)).body.planned_users).toBe(12_000);
    const changed = await stack.admin('PATCH', `${base()}/${planned.body.id}`, { planned_users: 15_500 });
    expect(changed.body.planned_users).toBe(15_500);
    const cleared = await stack.admin('PATCH', `${base()}/${plain.body.id}`, { planned_users: null });
    expect(cleared.body.planned_users).toBeNull();
    await stack.admin('POST', `${base()}/${planned.body.id}/start`);
    const late = await stack.admin('PATCH', `${base()}/${planned.body.id}`, { planned_users: 1 });
    expect(late.status).toBe(409);
    expect((await stack.admin('GET', `${base()}/${planned.body.id}`)).body.planned_users).toBe(15_500);
  });

  it.each([
    [0, /planned_users must be at least 1/],
    [12.5, /planned_users must be a whole number/],
    ['1000', /planned_users must be a whole number of users/],
  ])('refuses planned_users %j with 400 naming the rule', async (value, message) => {
    const res = await stack.admin('POST', base(), { name: `Bad ${String(value)}`, goal_event: 'purchase', planned_users: value });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
  });
});

describe('the smallest detectable change in N weeks', () => {
  it.each([
    ['conversion, given traffic, sequential', { metric: { event: 'purchase' }, baseline: { rate: 0.1, users_per_day: 5_000 } }, 2],
    [
      'conversion, three variants weighted, fixed horizon',
      {
        metric: { event: 'purchase' },
        baseline: { rate: 0.03, users_per_day: 12_345 },
        variants: ['a', 'b', 'c'],
        weights: [50, 25, 25],
        sequential: false,
        power: 0.9,
        alpha: 0.01,
      },
      4,
    ],
    ['count metric, given', { metric: { event: 'purchase', kind: 'count' }, baseline: { mean: 2.5, variance: 9, users_per_day: 800 } }, 6],
  ])('%s: sizing for the answered change gives back the weeks', async (_name, body, weeks) => {
    const inverse = await plan({ ...body, weeks });
    expect(inverse.status, JSON.stringify(inverse.body)).toBe(200);
    expect(inverse.body).toMatchObject({ question: 'detectable_effect', weeks, days: weeks * 7 });
    const perDay = inverse.body.baseline.users_per_day as number;
    expect(inverse.body.users_total).toBe(Math.floor(perDay * weeks * 7));
    expect(inverse.body.mde).toBeGreaterThan(0);
    expect(inverse.body.mde_absolute).toBeCloseTo(inverse.body.mde * Math.abs(inverse.body.baseline.mean), 12);
    // The same power function: the change is detectable with the weeks' users, and a 1% smaller one is not.
    const input = {
      metric:
        inverse.body.baseline.rate !== null
          ? { kind: 'conversion' as const, baseline_rate: inverse.body.baseline.rate }
          : { kind: 'mean' as const, mean: inverse.body.baseline.mean, variance: inverse.body.baseline.variance },
      confidence: 1 - inverse.body.alpha,
      variants: inverse.body.variants.length,
      ...(inverse.body.variants[0].weight === null ? {} : { weights: inverse.body.variants.map((v: { weight: number }) => v.weight) }),
      sequential: inverse.body.sequential,
    };
    expect(plannedPower({ ...input, mde: inverse.body.mde }, inverse.body.users_total)).toBeGreaterThanOrEqual(inverse.body.power);
    expect(plannedPower({ ...input, mde: inverse.body.mde * 0.99 }, inverse.body.users_total)).toBeLessThan(inverse.body.power);

    const forward = await plan({ ...body, mde: inverse.body.mde });
    expect(forward.status, JSON.stringify(forward.body)).toBe(200);
    expect(forward.body).toMatchObject({ question: 'sample_size', weeks: null, days: weeks * 7 });
    expect(forward.body.users_total).toBeLessThanOrEqual(inverse.body.users_total);
  });

  it("measures the traffic and the baseline from the project's events when not given", async () => {
    const res = await plan({ metric: { event: 'purchase' }, weeks: 52, sequential: false });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.baseline).toMatchObject({ rate: 0.5, source: 'events', users_per_day_source: 'events' });
    expect(res.body.baseline.users_per_day).toBeCloseTo(USERS_PER_DAY, 12);
    expect(res.body.users_total).toBe(Math.floor(USERS_PER_DAY * 364));
    const forward = await plan({ metric: { event: 'purchase' }, mde: res.body.mde, sequential: false });
    expect(forward.body.days).toBe(364);
  });

  it.each([
    [{ metric: { event: 'purchase' }, weeks: 0 }, /^weeks: weeks must be from 1 to 52/],
    [{ metric: { event: 'purchase' }, weeks: 53 }, /^weeks: weeks must be from 1 to 52/],
    [{ metric: { event: 'purchase' }, weeks: 1.5 }, /^weeks: weeks must be a whole number of weeks from 1 to 52/],
    [{ metric: { event: 'purchase' }, weeks: '2' }, /^weeks: weeks must be a whole number of weeks/],
    [{ metric: { event: 'purchase' }, weeks: 2, mde: 0.1 }, /^weeks: send either mde .* or weeks .*, not both/],
    [{ metric: { event: 'purchase' } }, /^mde: mde is required: .*; or send weeks instead/],
    [
      { metric: { event: 'purchase' }, weeks: 2, baseline: { rate: 0.1, users_per_day: 0 } },
      /^baseline.users_per_day: baseline.users_per_day must be from 0.01/,
    ],
  ])('%j answers 400 naming the field', async (body, message) => {
    const res = await plan(body);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error).toMatch(message);
  });

  it('answers 422 saying what to send when there is no traffic to plan with, or too little to detect any change', async () => {
    const noTraffic = await plan({ metric: { event: 'purchase' }, weeks: 2, baseline: { rate: 0.1 } }, empty);
    expect(noTraffic.status).toBe(422);
    expect(noTraffic.body.error).toMatch(/no users per day\. Send baseline\.users_per_day/);
    const tiny = await plan({ metric: { event: 'purchase' }, weeks: 1, baseline: { rate: 0.5, users_per_day: 0.5 } }, empty);
    expect(tiny.status).toBe(422);
    expect(tiny.body.error).toMatch(/^Cannot plan: 3 users in 1 week cannot detect even the largest change/);
  });
});
