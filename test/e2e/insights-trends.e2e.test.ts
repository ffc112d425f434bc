/**
 * POST /admin/v1/projects/{project_id}/insights/trends and GET .../insights/queries/{query_id}
 * through the local server: a small project's events counted by hand (issue 25, "Measured": a
 * duplicate in the raw files, a login mid-period, a late event, the breakdown's top 10 and "other").
 */
import { writeLanding } from '../helpers/landing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, UNTHROTTLED_KEY, type TestStack } from '../helpers/local';

// The server's clock: every event sent is received at NOW; the range is the week before it.
const NOW = Date.parse('2026-04-15T12:00:00.000Z');
const RANGE = { date_from: '2026-04-08', date_to: '2026-04-14' };
const DAYS = ['2026-04-08', '2026-04-09', '2026-04-10', '2026-04-11', '2026-04-12', '2026-04-13', '2026-04-14'];

let stack: TestStack;
let project: string;
let other: string;

beforeAll(async () => {
  stack = await startTestStack({ clock: () => NOW });
  project = await stack.createProject('insights');
  other = await stack.createProject('insights-other');
  const key = await stack.createKey(project, UNTHROTTLED_KEY);
  const plans = ['a', 'a', 'a', 'a', 'b', 'b', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l'];
  const res = await stack.post('/v1/events', key, {
    events: [
      // A login mid-period: anon-1 views on the 9th, signs in as grace, views again on the 10th: one user.
      { name: 'view', user_id: 'anon-1', timestamp: '2026-04-09T10:00:00Z', platform: 'ios' },
      { name: '$identify', user_id: 'grace', timestamp: '2026-04-09T10:05:00Z', properties: { $anonymous_id: 'anon-1' } },
      { name: 'view', user_id: 'grace', timestamp: '2026-04-10T09:00:00Z', platform: 'ios' },
      // bob views twice on the 10th (two events, one user), from android.
      { name: 'view', user_id: 'bob', timestamp: '2026-04-10T11:00:00Z', platform: 'android' },
      { name: 'view', user_id: 'bob', timestamp: '2026-04-10T12:00:00Z', platform: 'android' },
      // Late: happened on the 11th, received on the 15th (NOW) with the rest: counted on the 11th.
      { name: 'view', user_id: 'carol', timestamp: '2026-04-11T08:00:00Z' },
      // The previous period (April 1-7): two views, one on the 2nd (compared with the 9th).
      { name: 'view', user_id: 'dave', timestamp: '2026-04-02T10:00:00Z', platform: 'ios' },
      { name: 'view', user_id: 'erin', timestamp: '2026-04-06T10:00:00Z', platform: 'web' },
      // Outside both periods.
      { name: 'view', user_id: 'old', timestamp: '2026-03-20T10:00:00Z' },
      // Purchases with amounts: 10 and "2.5" (a number as text) and one without a number.
      { name: 'purchase', user_id: 'bob', timestamp: '2026-04-12T10:00:00Z', properties: { amount: 10 } },
      { name: 'purchase', user_id: 'bob', timestamp: '2026-04-12T11:00:00Z', properties: { amount: '2.5' } },
      { name: 'purchase', user_id: 'carol', timestamp: '2026-04-13T10:00:00Z', properties: { amount: 'free' } },
      // 17 signups on the 14th with 12 plans (a 4, b 3, c to l 1 each) and 2 without one.
      ...plans.map((plan, i) => ({ name: 'signup', user_id: `s${i}`, timestamp: '2026-04-14T10:00:00Z', properties: { plan } })),
      { name: 'signup', user_id: 'n1', timestamp: '2026-04-14T11:00:00Z' },
      { name: 'signup', user_id: 'n2', timestamp: '2026-04-14T11:00:00Z' },
    ],
  });
  expect(res.status, res.text).toBe(204);

  // A copy of bob's first view in the raw files (a resend stored again after a crash): counted once.
  const view = stack.rawEvents(project).find((e) => e.name === 'view' && e.sent_user_id === 'bob' && e.timestamp.startsWith('2026-04-10T11'))!;
  // It lands in the hour it arrived, with every project's events (landing/events/arrival_hour=…).
  const line = view as unknown as Record<string, unknown>;
  writeLanding(stack.dataDir, 'events', [{ ...line, received_at: '2026-04-15T11:59:00.000Z' }]);
  // An event received after the watermark (the local watermark is the current second, NOW): not counted.
  writeLanding(stack.dataDir, 'events', [{ ...line, dedupe_key: 'later-event', sent_user_id: 'zed', user_id: 'zed', received_at: '2026-04-15T12:00:00.001Z' }]);
});
afterAll(() => stack.stop());

const trends = (body: unknown, projectId = project) => stack.admin('POST', `/admin/v1/projects/${projectId}/insights/trends`, body);

describe('trends through the admin API', () => {
  it('counts events and canonical users per day: a copy in the raw files once, a login as one user, a late event on its day', async () => {
    const res = await trends({ series: [{ event: 'view' }, { event: 'view', measure: 'users' }], ...RANGE });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: 'succeeded', kind: 'trends', cached: false, data_through: '2026-04-15T12:00:00.000Z', engine: 'duckdb' });
    expect(res.body.query_id).toMatch(/^[0-9a-f]{32}$/);
    const { result } = res.body;
    expect(result.buckets).toEqual(DAYS);
    // The data reach April 15 noon, after the range: every day is complete.
    expect(result.partial_from).toBeNull();
    expect(result.clipped).toEqual([]);
    expect(result.previous).toEqual({ date_from: '2026-04-01', date_to: '2026-04-07' });
    const [events, users] = result.lines;
    // 9th: anon-1; 10th: grace + bob twice (his copy not counted); 11th: carol (late).
    expect(events).toMatchObject({ series: 0, event: 'view', measure: 'events', breakdown_value: null });
    expect(events.values).toEqual([0, 1, 3, 1, 0, 0, 0]);
    expect(events.total).toBe(5);
    // The previous period on the same buckets, one week earlier: the 2nd on the 9th, the 6th on the 13th.
    expect(events.previous_values).toEqual([0, 1, 0, 0, 0, 1, 0]);
    expect(events.previous_total).toBe(2);
    // anon-1 and grace are one user: 1 on the 10th with bob = 2; over the week grace, bob, carol.
    expect(users.values).toEqual([0, 1, 2, 1, 0, 0, 0]);
    expect(users.total).toBe(3);
    expect(users.previous_total).toBe(2);
    expect(res.body.sql).toContain(`project_id = '${project}'`);
    expect(res.body.sql).toContain("dt BETWEEN '2026-04-01' AND '2026-04-14'");
    // Over the events view, which holds each event once (its copy in the landing tail included).
    expect(res.body.sql).toMatch(/FROM curated_events\b/);
    expect(res.body.sql).toMatch(/FROM events_tail\b/);
  });

  it('answers the same definition from the cache, and the poll route gives the same answer', async () => {
    const body = { series: [{ event: 'view' }], ...RANGE, interval: 'week' };
    const first = await trends(body);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const again = await trends(body);
    expect(again.status).toBe(200);
    expect(again.body.cached).toBe(true);
    expect(again.body.query_id).toBe(first.body.query_id);
    expect(again.body.result).toEqual(first.body.result);
    // Weeks start on Monday: April 6 and April 13; the range (Wednesday the 8th to Tuesday the 14th)
    // cuts both, so the first is labelled by the 8th (no bucket starts before the range) and both are
    // marked cut. The data reach April 15 noon: the second week is still counting.
    expect(first.body.result.buckets).toEqual(['2026-04-08', '2026-04-13']);
    expect(first.body.result.clipped).toEqual([0, 1]);
    expect(first.body.result.partial_from).toBe(1);
    expect(first.body.result.lines[0].values).toEqual([5, 0]);
    const polled = await stack.admin('GET', first.body.poll_url);
    expect(polled.status).toBe(200);
    expect(polled.body).toMatchObject({ status: 'succeeded', query_id: first.body.query_id, cached: true, result: first.body.result });
    // Another project's query ID is not found in this one.
    const elsewhere = await stack.admin('GET', `/admin/v1/projects/${other}/insights/queries/${first.body.query_id}`);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.error).toMatch(/not found in project/);
  });

  it('sums and averages a numeric property (a number as text counts, other values do not)', async () => {
    const res = await trends({
      series: [
        { event: 'purchase', measure: 'sum', property: 'amount' },
        { event: 'purchase', measure: 'average', property: 'amount' },
      ],
      ...RANGE,
      compare: false,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [sum, average] = res.body.result.lines;
    expect(sum.values).toEqual([0, 0, 0, 0, 12.5, 0, 0]);
    expect(sum.total).toBe(12.5);
    expect(sum.previous_values).toBeNull();
    expect(average.values).toEqual([null, null, null, null, 6.25, null, null]);
    expect(average.total).toBe(6.25);
    expect(res.body.result.previous).toBeNull();
  });

  it('breaks down by a property: the top 10 values by events, the rest as "other", missing as "unknown"', async () => {
    const res = await trends({ series: [{ event: 'signup' }], ...RANGE, breakdown: 'property', breakdown_property: 'plan' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const lines = res.body.result.lines as Array<{ breakdown_value: string; total: number; values: number[] }>;
    expect(lines.map((l) => [l.breakdown_value, l.total])).toEqual([
      ['a', 4],
      ['b', 3],
      ['unknown', 2],
      ['c', 1],
      ['d', 1],
      ['e', 1],
      ['f', 1],
      ['g', 1],
      ['h', 1],
      ['i', 1],
      ['other', 3],
    ]);
    expect(lines[0]!.values).toEqual([0, 0, 0, 0, 0, 0, 4]);
    expect(res.body.result.breakdown).toEqual({ by: 'property', property: 'plan' });
  });

  it('breaks down by platform, hour by hour', async () => {
    const res = await trends({ series: [{ event: 'view' }], date_from: '2026-04-10', date_to: '2026-04-10', interval: 'hour', breakdown: 'platform' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { buckets, lines } = res.body.result;
    expect(buckets).toHaveLength(24);
    expect(buckets[9]).toBe('2026-04-10T09:00Z');
    const byValue = Object.fromEntries(lines.map((l: any) => [l.breakdown_value, l.values]));
    expect(Object.keys(byValue)).toEqual(['android', 'ios']);
    expect(byValue.android[11] + byValue.android[12]).toBe(2);
    expect(byValue.ios[9]).toBe(1);
  });

  it.each([
    [{ series: [], ...RANGE }, /series: series must name at least one event/],
    [{ series: [{ event: 'view', measure: 'sum' }], ...RANGE }, /series\.0\.property: a sum series needs property/],
    [{ series: [{ event: 'view' }], date_from: '2025-01-01', date_to: '2026-04-14' }, /date_to: the range is 469 days; at most 366/],
    [{ series: [{ event: 'view' }], date_from: '2026-04-14', date_to: '2026-04-08' }, /date_to: date_to \(2026-04-08\) must be on or after date_from/],
    [{ series: [{ event: 'view' }], date_from: '2026-02-30', date_to: '2026-04-08' }, /date_from: date_from must be a real UTC day/],
    [{ series: [{ event: 'view' }], ...RANGE, breakdown: 'city' }, /breakdown: breakdown must be one of "platform", "country", "app_version", "property"/],
    [{ series: [{ event: 'view' }], ...RANGE, breakdown: 'property' }, /breakdown_property: breakdown "property" needs breakdown_property/],
    [{ series: [{ event: 'view' }], date_from: '2026-01-01', date_to: '2026-04-08', interval: 'hour' }, /interval: an hourly trend spans at most 31 days/],
    [{ series: [1, 2, 3, 4, 5, 6].map(() => ({ event: 'view' })), ...RANGE }, /series: series may hold at most 5 events/],
  ])('refuses an invalid definition with a 400 that says what to fix (%#)', async (body, message) => {
    const res = await trends(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
  });

  it('answers 404 for an unknown project or query ID', async () => {
    expect((await trends({ series: [{ event: 'view' }], ...RANGE }, 'no-such-project')).status).toBe(404);
    expect((await stack.admin('GET', `/admin/v1/projects/${project}/insights/queries/${'0'.repeat(32)}`)).status).toBe(404);
    expect((await stack.admin('GET', `/admin/v1/projects/${project}/insights/queries/not-a-query`)).status).toBe(404);
  });
});
