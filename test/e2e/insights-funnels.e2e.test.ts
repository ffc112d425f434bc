/**
 * POST /admin/v1/projects/{project_id}/insights/funnels through the local server (DuckDB over the raw
 * files): a small project's funnel counted by hand (issue 25, "Funnels"): a login mid-funnel, a
 * duplicate copy in the raw files, a step at the same millisecond as the one before, a step before
 * the first one, out-of-window conversions, a property filter on a step, a breakdown.
 */
import { writeLanding } from '../helpers/landing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, UNTHROTTLED_KEY, type TestStack } from '../helpers/local';

const NOW = Date.parse('2026-04-15T12:00:00.000Z');
const RANGE = { date_from: '2026-04-08', date_to: '2026-04-14' };
const STEPS = [{ event: 'view' }, { event: 'signup' }, { event: 'purchase', where: { property: 'plan', equals: 'pro' } }];

let stack: TestStack;
let project: string;

beforeAll(async () => {
  stack = await startTestStack({ clock: () => NOW });
  project = await stack.createProject('funnels');
  const key = await stack.createKey(project, UNTHROTTLED_KEY);
  const res = await stack.post('/v1/events', key, {
    events: [
      // A login mid-funnel: anon-1 views, signs in as grace, grace signs up and buys: one user, 3 steps.
      { name: 'view', user_id: 'anon-1', timestamp: '2026-04-09T10:00:00Z', platform: 'ios' },
      { name: '$identify', user_id: 'grace', timestamp: '2026-04-09T10:05:00Z', properties: { $anonymous_id: 'anon-1' } },
      { name: 'signup', user_id: 'grace', timestamp: '2026-04-09T10:30:00Z' },
      { name: 'purchase', user_id: 'grace', timestamp: '2026-04-10T09:00:00Z', properties: { plan: 'pro' } },
      // bob starts at his first view; a free purchase does not pass the step's filter; the pro one is 2 days later.
      { name: 'view', user_id: 'bob', timestamp: '2026-04-10T11:00:00Z', platform: 'android' },
      { name: 'signup', user_id: 'bob', timestamp: '2026-04-10T11:30:00Z' },
      { name: 'view', user_id: 'bob', timestamp: '2026-04-10T12:00:00Z', platform: 'android' },
      { name: 'purchase', user_id: 'bob', timestamp: '2026-04-10T13:00:00Z', properties: { plan: 'free' } },
      { name: 'purchase', user_id: 'bob', timestamp: '2026-04-12T11:00:00Z', properties: { plan: 'pro' } },
      // carol signed up BEFORE her view (late: received days after it happened): the first step only.
      { name: 'signup', user_id: 'carol', timestamp: '2026-04-11T07:00:00Z' },
      { name: 'view', user_id: 'carol', timestamp: '2026-04-11T08:00:00Z' },
      // erin's signup has her view's very millisecond: not after it, so the first step only.
      { name: 'view', user_id: 'erin', timestamp: '2026-04-13T10:00:00Z', platform: 'web' },
      { name: 'signup', user_id: 'erin', timestamp: '2026-04-13T10:00:00Z' },
      // frank's view before the range does not start his funnel; the one in it does: 2 steps.
      { name: 'view', user_id: 'frank', timestamp: '2026-04-07T10:00:00Z', platform: 'ios' },
      { name: 'view', user_id: 'frank', timestamp: '2026-04-12T09:00:00Z', platform: 'ios' },
      { name: 'signup', user_id: 'frank', timestamp: '2026-04-12T10:00:00Z' },
      // dave signs up without a view: not in the funnel.
      { name: 'signup', user_id: 'dave', timestamp: '2026-04-12T10:00:00Z' },
    ],
  });
  expect(res.status, res.text).toBe(204);
  // A copy of bob's signup in the raw files (a resend stored again after a crash): changes nothing.
  const signup = stack.rawEvents(project).find((e) => e.name === 'signup' && e.sent_user_id === 'bob')!;
  // It lands in the hour it arrived, with every project's events (landing/events/arrival_hour=…).
  writeLanding(stack.dataDir, 'events', [{ ...signup, received_at: '2026-04-15T11:59:00.000Z' }]);
});
afterAll(() => stack.stop());

const funnels = (body: unknown) => stack.admin('POST', `/admin/v1/projects/${project}/insights/funnels`, body);

type Step = {
  users: number;
  conversion_from_first: number | null;
  conversion_from_previous: number | null;
  drop_off: number;
  median_seconds_from_previous: number | null;
};
const users = (steps: Step[]) => steps.map((s) => s.users);

describe('funnels through the admin API', () => {
  it('counts canonical users step by step: a login mid-funnel kept, strictly later steps only, the filter applied', async () => {
    const res = await funnels({ steps: STEPS, ...RANGE });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: 'succeeded', kind: 'funnels', cached: false });
    const { result } = res.body;
    expect(result).toMatchObject({ conversion_window_days: 14, breakdown: null });
    expect(result.groups).toHaveLength(1);
    const steps = result.groups[0].steps as Step[];
    // view: grace (as anon-1), bob, carol, erin, frank; signup: grace, bob, frank; pro purchase: grace, bob.
    expect(users(steps)).toEqual([5, 3, 2]);
    expect(steps.map((s) => s.conversion_from_first)).toEqual([1, 0.6, 0.4]);
    expect(steps[2]!.conversion_from_previous).toBeCloseTo(2 / 3, 10);
    expect(steps.map((s) => s.drop_off)).toEqual([0, 2, 1]);
    // view -> signup: 30 min (grace), 30 min (bob), 1 h (frank); signup -> purchase: 22.5 h and 47.5 h.
    expect(steps.map((s) => s.median_seconds_from_previous)).toEqual([null, 1800, 126_000]);
    expect(res.body.sql).toContain("dt BETWEEN '2026-04-08' AND '2026-04-14'");
    // Over the events view, which holds each event once (its copy in the landing tail included).
    expect(res.body.sql).toMatch(/FROM curated_events\b/);
    expect(res.body.sql).toMatch(/FROM events_tail\b/);
  });

  it('leaves out steps after the conversion window, counted from the first step', async () => {
    const res = await funnels({ steps: STEPS, ...RANGE, conversion_window_days: 1 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // bob's pro purchase is 2 days after his view; grace's 23 hours after hers.
    expect(users(res.body.result.groups[0].steps)).toEqual([5, 3, 1]);
  });

  it("breaks down by the first step's platform, missing as unknown, most users first", async () => {
    const res = await funnels({ steps: STEPS, ...RANGE, breakdown: 'platform' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const groups = res.body.result.groups as Array<{ breakdown_value: string | null; steps: Step[] }>;
    expect(groups.map((g) => [g.breakdown_value, users(g.steps)])).toEqual([
      [null, [5, 3, 2]],
      ['ios', [2, 2, 1]],
      ['android', [1, 1, 1]],
      ['unknown', [1, 0, 0]],
      ['web', [1, 0, 0]],
    ]);
    expect(groups[3]!.steps[1]).toMatchObject({ conversion_from_first: 0, median_seconds_from_previous: null });
  });

  it.each([
    [{ steps: [{ event: 'view' }], ...RANGE }, /steps: steps must hold at least 2 events in order/],
    [{ steps: Array.from({ length: 7 }, () => ({ event: 'view' })), ...RANGE }, /steps: steps may hold at most 6 events/],
    [{ steps: STEPS, ...RANGE, conversion_window_days: 91 }, /conversion_window_days: conversion_window_days must be at most 90/],
    [{ steps: [{ event: 'view', where: { property: 'plan' } }, { event: 'signup' }], ...RANGE }, /steps\.0\.where\.equals: where\.equals must be a string/],
    [{ steps: STEPS, ...RANGE, breakdown: 'property' }, /breakdown_property: breakdown "property" needs breakdown_property/],
    // An empty property name is one mistake, said once (not also "must not contain double quotes…").
    [
      { steps: [{ event: 'view' }, { event: 'signup', where: { property: '', equals: 'x' } }], ...RANGE },
      /^steps\.1\.where\.property: where\.property must not be empty$/,
    ],
    // A NUL in a filter value: said about the filter value, not with the message for IDs and names.
    [
      { steps: [{ event: 'view' }, { event: 'signup', where: { property: 'plan', equals: 'pro\u0000' } }], ...RANGE },
      /^steps\.1\.where\.equals: where\.equals contains U\+0000 \(NUL\): a filter value is written into the query, which cannot carry it; filter on the value without it$/,
    ],
  ])('refuses an invalid definition with a 400 that says what to fix (%#)', async (body, message) => {
    const res = await funnels(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
  });
});
