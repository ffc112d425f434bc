/**
 * The planner's CUPED reduction measured from the project's own history, through the local server
 * (docs/decisions/cuped.md "Planning with a measured reduction"): a seeded history where each user's
 * engagement in the look-back follows their engagement in the 14 days before it gives the squared
 * correlation of the two, computed here in plain TS over the same generated events; a history where
 * the two are independent gives about 0; and the plan uses the measured reduction only when the
 * request gives none and CUPED is on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleSize } from '../../lambdas/domain/sample-size';
import { prng } from '../../bin/prng';
import { startTestStack, UNTHROTTLED_KEY, type TestStack } from '../helpers/local';
import { squaredCorrelation } from '../helpers/squared-correlation';

// The server's clock: the 14-day look-back is 2026-05-15T12:00Z to 2026-05-29T12:00Z, CUPED's
// 14-day window before it from 2026-05-01T12:00Z.
const NOW = Date.parse('2026-05-29T12:00:00.000Z');
const LOOKBACK_FROM = Date.parse('2026-05-15T12:00:00.000Z');
const DAY = 86_400_000;
const USERS = 300;

let stack: TestStack;
let correlated: string;
let independent: string;

interface Event {
  name: string;
  user_id: string;
  timestamp: string;
}

/**
 * Per user: `before` page views in the 14 days before the look-back and `after` in it, at random
 * times, plus one session_start in the look-back (so every user is active). With `correlated`, both
 * counts follow the user's own engagement level; otherwise each is drawn on its own.
 */
function history(seed: number, correlated: boolean): Event[] {
  const rand = prng(seed);
  const count = (level: number) => Math.floor(level * (0.5 + rand()));
  const at = (fromMs: number) => new Date(fromMs + Math.floor(rand() * (14 * DAY - 60_000))).toISOString();
  const events: Event[] = [];
  for (let i = 0; i < USERS; i++) {
    const user = `u${i}`;
    const level = Math.floor(rand() * 7); // 0 to 6: some users have no history at all
    const before = count(level);
    const after = count(correlated ? level : Math.floor(rand() * 7));
    for (let k = 0; k < before; k++) events.push({ name: 'page_view', user_id: user, timestamp: at(LOOKBACK_FROM - 14 * DAY) });
    for (let k = 0; k < after; k++) events.push({ name: 'page_view', user_id: user, timestamp: at(LOOKBACK_FROM) });
    events.push({ name: 'session_start', user_id: user, timestamp: at(LOOKBACK_FROM) });
  }
  return events;
}

/** ρ² of the per-user page views before and in the look-back, from the events (independent of the server's SQL and domain code). */
function expectedRho2(events: Event[], conversion: boolean): number {
  const x = new Map<string, number>();
  const y = new Map<string, number>();
  for (const e of events) {
    x.set(e.user_id, x.get(e.user_id) ?? 0);
    y.set(e.user_id, y.get(e.user_id) ?? 0);
    if (e.name !== 'page_view') continue;
    const into = Date.parse(e.timestamp) >= LOOKBACK_FROM ? y : x;
    into.set(e.user_id, into.get(e.user_id)! + 1);
  }
  const users = [...x.keys()];
  const xs = users.map((u) => (conversion ? Math.min(1, x.get(u)!) : x.get(u)!));
  const ys = users.map((u) => (conversion ? Math.min(1, y.get(u)!) : y.get(u)!));
  return squaredCorrelation(xs, ys);
}

const correlatedEvents = history(38, true);
const independentEvents = history(39, false);

beforeAll(async () => {
  stack = await startTestStack({ clock: () => NOW });
  for (const [name, events] of [
    ['plan-cuped', correlatedEvents],
    ['plan-cuped-independent', independentEvents],
  ] as const) {
    const project = await stack.createProject(name);
    const key = await stack.createKey(project, UNTHROTTLED_KEY);
    for (let i = 0; i < events.length; i += 1000) {
      const res = await stack.post('/v1/events', key, { events: events.slice(i, i + 1000) });
      expect(res.status, res.text).toBe(204);
    }
    if (name === 'plan-cuped') correlated = project;
    else independent = project;
  }
});
afterAll(() => stack.stop());

const plan = (projectId: string, body: unknown) => stack.admin('POST', `/admin/v1/projects/${projectId}/plan`, body);

describe("CUPED's expected variance reduction, measured from the project's history", () => {
  it('engagement that follows the past: ρ² of the users’ values before and in the look-back, and the plan uses it', async () => {
    const truth = expectedRho2(correlatedEvents, false);
    expect(truth).toBeGreaterThan(0.3); // the seed is engaged enough to matter
    const res = await plan(correlated, { metric: { event: 'page_view', kind: 'count' }, mde: 0.05 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.measured_variance_reduction).toBeCloseTo(truth, 9);
    expect(res.body).toMatchObject({
      measured_variance_reduction_users: USERS,
      variance_reduction_source: 'measured',
      cuped: true,
      cuped_lookback_days: 14,
    });
    expect(res.body.variance_reduction).toBe(res.body.measured_variance_reduction);
    // Fewer users than without CUPED, exactly as sampleSize plans with the reduction.
    const { mean, variance, users_per_day } = res.body.baseline;
    const metric = { kind: 'mean' as const, mean, variance };
    const planned = sampleSize({ metric, mde: 0.05, users_per_day, variance_reduction: res.body.measured_variance_reduction })!;
    const plain = sampleSize({ metric, mde: 0.05, users_per_day })!;
    expect(res.body.users_total).toBe(planned.users_total);
    expect(res.body.users_total).toBeLessThan(plain.users_total * (1 - truth) + 10);
  });

  it('conversion: ρ² of having sent the event before and in the look-back', async () => {
    const truth = expectedRho2(correlatedEvents, true);
    const res = await plan(correlated, { metric: { event: 'page_view', kind: 'conversion' }, mde: 0.05 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.measured_variance_reduction).toBeCloseTo(truth, 9);
    expect(res.body.variance_reduction_source).toBe('measured');
  });

  it('engagement independent of the past: about 0', async () => {
    const truth = expectedRho2(independentEvents, false);
    expect(truth).toBeLessThan(0.02);
    const res = await plan(independent, { metric: { event: 'page_view', kind: 'count' }, mde: 0.05 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.measured_variance_reduction).toBeCloseTo(truth, 9);
    expect(res.body.measured_variance_reduction).toBeLessThan(0.02);
  });

  it('a given reduction wins but the measured one is still reported; without CUPED nothing is measured', async () => {
    const given = await plan(correlated, { metric: { event: 'page_view', kind: 'count' }, mde: 0.05, variance_reduction: 0.1 });
    expect(given.status, JSON.stringify(given.body)).toBe(200);
    expect(given.body).toMatchObject({ variance_reduction: 0.1, variance_reduction_source: 'given' });
    expect(given.body.measured_variance_reduction).toBeCloseTo(expectedRho2(correlatedEvents, false), 9);

    const off = await plan(correlated, { metric: { event: 'page_view', kind: 'count' }, mde: 0.05, cuped: false });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body).toMatchObject({
      variance_reduction: 0,
      variance_reduction_source: 'none',
      measured_variance_reduction: null,
      measured_variance_reduction_users: null,
      cuped: false,
      cuped_lookback_days: null,
    });

    // An experiment with CUPED off plans without it too.
    const created = await stack.admin('POST', `/admin/v1/projects/${correlated}/experiments`, { name: 'No CUPED', goal_event: 'page_view', cuped: false });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const fromExperiment = await plan(correlated, { experiment_id: created.body.id, mde: 0.05 });
    expect(fromExperiment.status, JSON.stringify(fromExperiment.body)).toBe(200);
    expect(fromExperiment.body).toMatchObject({ variance_reduction_source: 'none', measured_variance_reduction: null, cuped: false });
  });

  it('a shorter CUPED window reads fewer days before the look-back, so it measures a different reduction', async () => {
    const res = await plan(correlated, { metric: { event: 'page_view', kind: 'count' }, mde: 0.05, cuped_lookback_days: 1 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.cuped_lookback_days).toBe(1);
    expect(res.body.measured_variance_reduction).toBeLessThan(expectedRho2(correlatedEvents, false));
    const bad = await plan(correlated, { metric: { event: 'page_view', kind: 'count' }, mde: 0.05, cuped_lookback_days: 61 });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('cuped_lookback_days must be a whole number of days from 1 to 60');
  });
});
