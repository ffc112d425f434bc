/**
 * The results series through the local stack (issue 13; hourly points, issue 22): a four-day run and
 * a run of a few hours under a controlled clock, events over HTTP, the DuckDB-backed query's per-day or
 * per-hour counts (incrementally, from the results state), the cumulation and the stored series. Each
 * point is checked against the counts computed by hand from the counting rules.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { experimentStats } from '../../lambdas/domain/stats';
import { startTestProject, type TestStack } from '../helpers/local';

let now = Date.parse('2026-03-01T09:00:00.000Z');
let stack: TestStack;
let project: string;
let key: string;

beforeAll(async () => {
  ({ stack, project, key } = await startTestProject('results-series', { clock: () => now }));
});
afterAll(() => stack.stop());

const send = async (events: unknown[]) => expect((await stack.post('/v1/events', key, { events })).status).toBe(204);
const base = () => `/admin/v1/projects/${project}/experiments`;
const exposure = (user: string, timestamp: string, variant: string) => ({
  name: '$experiment_exposure',
  user_id: user,
  timestamp,
  properties: { $experiment_name: 'Checkout', $variant: variant },
});
const purchase = (user: string, timestamp: string) => ({ name: 'purchase', user_id: user, timestamp });
type Expected = Array<[date: string, asOf: string, control: [number, number], treatment: [number, number]]>;
/** Each point's date, interval, as_of and counts as expected, and its statistics those of its counts. */
function expectSeries(series: any[], interval: 'hour' | 'day', expected: Expected) {
  expect(series.map((p) => p.date)).toEqual(expected.map(([date]) => date));
  expected.forEach(([date, asOf, [ce, cc], [te, tc]], i) => {
    const point = series[i];
    expect(point.interval, date).toBe(interval);
    expect(point.as_of, date).toBe(asOf);
    expect(
      point.variants.map((v: any) => [v.variant, v.enrolled, v.converted]),
      date,
    ).toEqual([
      ['control', ce, cc],
      ['treatment', te, tc],
    ]);
    // Each point's statistics are the final results' statistics of its counts.
    const stats = experimentStats([
      { variant: 'control', enrolled: ce, converted: cc },
      { variant: 'treatment', enrolled: te, converted: tc },
    ]);
    expect(point.variants, date).toEqual(stats.variants);
    expect(point.comparisons, date).toEqual(stats.comparisons);
  });
}

describe('experiment results series', () => {
  it('has one cumulative point per UTC day of the run, each as if computed at the end of that day, the last equal to the totals', async () => {
    const id = (await stack.admin('POST', base(), { name: 'Checkout', goal_event: 'purchase', variants: ['control', 'treatment'] })).body.id as string;
    now = Date.parse('2026-03-01T10:00:00.000Z');
    const started = await stack.admin('POST', `${base()}/${id}/start`);
    expect(started.body.started_at).toBe('2026-03-01T10:00:00.000Z');

    // Day 1 (03-01): c1 and c2 enroll in control; t1 enrolls in treatment and converts the same day.
    now = Date.parse('2026-03-01T20:00:00.000Z');
    await send([
      exposure('c1', '2026-03-01T11:00:00.000Z', 'control'),
      exposure('t1', '2026-03-01T12:00:00.000Z', 'treatment'),
      purchase('t1', '2026-03-01T13:00:00.000Z'),
      exposure('c2', '2026-03-01T14:00:00.000Z', 'control'),
    ]);
    // Day 2: anonymous anon-t2 enrolls in treatment; a backend reports a purchase under user-t2, linked
    // to anon-t2 only on day 4 (resolved as now, so it converts on day 2). c3 buys before enrolling
    // (does not count), enrolls in control.
    now = Date.parse('2026-03-02T20:00:00.000Z');
    await send([
      exposure('anon-t2', '2026-03-02T08:00:00.000Z', 'treatment'),
      purchase('user-t2', '2026-03-02T09:00:00.000Z'),
      purchase('c3', '2026-03-02T10:00:00.000Z'),
      exposure('c3', '2026-03-02T11:00:00.000Z', 'control'),
    ]);
    // Day 3: c2 (enrolled on day 1) converts; t3 enrolls in treatment.
    now = Date.parse('2026-03-03T20:00:00.000Z');
    await send([purchase('c2', '2026-03-03T09:00:00.000Z'), exposure('t3', '2026-03-03T07:00:00.000Z', 'treatment')]);
    // Day 4: the late link, c3 converts, c4 enrolls and converts just before the stop at 12:00.
    now = Date.parse('2026-03-04T10:00:00.000Z');
    await send([{ name: '$identify', user_id: 'user-t2', timestamp: '2026-03-04T10:00:00.000Z', properties: { $anonymous_id: 'anon-t2' } }]);
    await send([purchase('c3', '2026-03-04T08:00:00.000Z'), exposure('c4', '2026-03-04T11:59:00.000Z', 'control'), purchase('c4', '2026-03-04T11:59:30.000Z')]);
    now = Date.parse('2026-03-04T12:00:00.000Z');
    const stopped = await stack.admin('POST', `${base()}/${id}/stop`);
    expect(stopped.body.stopped_at).toBe('2026-03-04T12:00:00.000Z');
    // After the stop: counts in no point.
    now = Date.parse('2026-03-04T14:00:00.000Z');
    await send([purchase('t3', '2026-03-04T13:00:00.000Z'), exposure('late', '2026-03-04T13:00:00.000Z', 'control')]);

    const refreshed = await stack.admin('POST', `${base()}/${id}/results/refresh`);
    expect(refreshed.status).toBe(200);
    const r = refreshed.body;
    expect(r.variants.map((v: any) => [v.variant, v.enrolled, v.converted])).toEqual([
      ['control', 4, 3],
      ['treatment', 3, 2],
    ]);

    // [control enrolled, converted], [treatment enrolled, converted], by hand. The run lasts 3 days and
    // 2 hours: daily points.
    expectSeries(r.series, 'day', [
      ['2026-03-01', '2026-03-01T23:59:59.999Z', [2, 0], [1, 1]],
      ['2026-03-02', '2026-03-02T23:59:59.999Z', [3, 0], [2, 2]],
      ['2026-03-03', '2026-03-03T23:59:59.999Z', [3, 1], [3, 2]],
      ['2026-03-04', '2026-03-04T12:00:00.000Z', [4, 3], [3, 2]],
    ]);
    const last = r.series.at(-1);
    expect(last.variants).toEqual(r.variants);
    expect(last.comparisons).toEqual(r.comparisons);

    // Stored with the results: the GET answers the same series.
    const stored = await stack.admin('GET', `${base()}/${id}/results`);
    expect(stored.body).toEqual(r);
  });

  it('has one cumulative point per UTC hour while the run is under 3 days, each as if computed at the end of that hour', async () => {
    now = Date.parse('2026-04-01T09:00:00.000Z');
    const id = (await stack.admin('POST', base(), { name: 'Onboarding', goal_event: 'purchase', variants: ['control', 'treatment'] })).body.id as string;
    now = Date.parse('2026-04-01T09:30:00.000Z');
    expect((await stack.admin('POST', `${base()}/${id}/start`)).body.started_at).toBe('2026-04-01T09:30:00.000Z');
    const onboarding = (user: string, timestamp: string, variant: string) => ({
      ...exposure(user, timestamp, variant),
      properties: { $experiment_name: 'Onboarding', $variant: variant },
    });

    // 09h: c1 enrolls in control; t1 enrolls in treatment and converts. 10h: c2 enrolls, c1 converts.
    now = Date.parse('2026-04-01T10:30:00.000Z');
    await send([
      onboarding('c1', '2026-04-01T09:40:00.000Z', 'control'),
      onboarding('t1', '2026-04-01T09:50:00.000Z', 'treatment'),
      purchase('t1', '2026-04-01T09:55:00.000Z'),
      onboarding('c2', '2026-04-01T10:10:00.000Z', 'control'),
      purchase('c1', '2026-04-01T10:20:00.000Z'),
    ]);
    // A computation while running (it commits a slice of the state): the hours so far, the last as of now.
    now = Date.parse('2026-04-01T11:30:00.000Z');
    const running = await stack.admin('POST', `${base()}/${id}/results/refresh`);
    expect(running.status).toBe(200);
    expectSeries(running.body.series, 'hour', [
      ['2026-04-01T09:00:00.000Z', '2026-04-01T09:59:59.999Z', [1, 0], [1, 1]],
      ['2026-04-01T10:00:00.000Z', '2026-04-01T10:59:59.999Z', [2, 1], [1, 1]],
      ['2026-04-01T11:00:00.000Z', '2026-04-01T11:30:00.000Z', [2, 1], [1, 1]],
    ]);

    // 12h: anonymous anon-t2 enrolls in treatment; a purchase under user-t2, linked to anon-t2 only at
    // 13:00 (resolved as now: it converts in the 12h point). c3 buys before enrolling (does not count),
    // then enrolls in control. 13h: c3 converts; the stop at 13:20; a purchase after it counts nowhere.
    now = Date.parse('2026-04-01T12:50:00.000Z');
    await send([
      onboarding('anon-t2', '2026-04-01T12:05:00.000Z', 'treatment'),
      purchase('user-t2', '2026-04-01T12:06:00.000Z'),
      purchase('c3', '2026-04-01T12:30:00.000Z'),
      onboarding('c3', '2026-04-01T12:40:00.000Z', 'control'),
    ]);
    now = Date.parse('2026-04-01T13:16:00.000Z');
    await send([{ name: '$identify', user_id: 'user-t2', timestamp: '2026-04-01T13:00:00.000Z', properties: { $anonymous_id: 'anon-t2' } }]);
    await send([purchase('c3', '2026-04-01T13:15:00.000Z')]);
    now = Date.parse('2026-04-01T13:20:00.000Z');
    expect((await stack.admin('POST', `${base()}/${id}/stop`)).body.stopped_at).toBe('2026-04-01T13:20:00.000Z');
    now = Date.parse('2026-04-01T13:40:00.000Z');
    await send([purchase('c2', '2026-04-01T13:30:00.000Z'), onboarding('late', '2026-04-01T13:35:00.000Z', 'control')]);

    now = Date.parse('2026-04-01T14:00:00.000Z');
    const final = await stack.admin('POST', `${base()}/${id}/results/refresh`);
    expect(final.status).toBe(200);
    const r = final.body;
    expect(r.incremental).toMatchObject({ full_recompute: false });
    expect(r.variants.map((v: any) => [v.variant, v.enrolled, v.converted])).toEqual([
      ['control', 3, 2],
      ['treatment', 2, 2],
    ]);
    expectSeries(r.series, 'hour', [
      ['2026-04-01T09:00:00.000Z', '2026-04-01T09:59:59.999Z', [1, 0], [1, 1]],
      ['2026-04-01T10:00:00.000Z', '2026-04-01T10:59:59.999Z', [2, 1], [1, 1]],
      ['2026-04-01T11:00:00.000Z', '2026-04-01T11:59:59.999Z', [2, 1], [1, 1]],
      ['2026-04-01T12:00:00.000Z', '2026-04-01T12:59:59.999Z', [3, 1], [2, 2]],
      ['2026-04-01T13:00:00.000Z', '2026-04-01T13:20:00.000Z', [3, 2], [2, 2]],
    ]);
    expect(r.series.at(-1).variants).toEqual(r.variants);
    expect((await stack.admin('GET', `${base()}/${id}/results`)).body).toEqual(r);
  });
});
