/**
 * POST …/plan with `weeks`: the smallest change an experiment can detect in that many weeks with the
 * project's traffic (measured or given), by the same power function as the sample size: sizing the
 * experiment for the answered change gives back those weeks (a round trip through the API).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plannedPower } from '../../lambdas/domain/sample-size';
import { startTestStack, UNTHROTTLED_KEY, type TestStack } from '../helpers/local';

const NOW = Date.parse('2026-04-15T12:00:00.000Z');
let stack: TestStack;
let project: string;
let empty: string;

beforeAll(async () => {
  stack = await startTestStack({ clock: () => NOW });
  project = await stack.createProject('detectable');
  empty = await stack.createProject('detectable-empty');
  const key = await stack.createKey(project, UNTHROTTLED_KEY);
  // 40 active users over the look-back's last 10 days, 10 of them purchase: rate 0.25.
  const events = Array.from({ length: 40 }, (_, i) => [
    { name: 'page_viewed', user_id: `u${i}`, timestamp: new Date(NOW - (10 - (i % 10)) * 86_400_000 + 3_600_000).toISOString() },
    ...(i % 4 === 0 ? [{ name: 'purchase', user_id: `u${i}`, timestamp: new Date(NOW - (10 - (i % 10)) * 86_400_000 + 7_200_000).toISOString() }] : []),
  ]).flat();
  const res = await stack.post('/v1/events', key, { events });
  expect(res.status, res.text).toBe(204);
});
afterAll(() => stack.stop());

const plan = (body: unknown, projectId = project) => stack.admin('POST', `/admin/v1/projects/${projectId}/plan`, body);

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
    const res = await plan({ metric: { event: 'purchase' }, weeks: 8, sequential: false });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.baseline).toMatchObject({ rate: 0.25, source: 'events', users_per_day_source: 'events' });
    expect(res.body.users_total).toBe(Math.floor(res.body.baseline.users_per_day * 56));
    const forward = await plan({ metric: { event: 'purchase' }, mde: res.body.mde, sequential: false });
    expect(forward.body.days).toBe(56);
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
