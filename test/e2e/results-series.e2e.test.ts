/**
 * The results series through the local stack (issue 13): a four-day run under a controlled clock,
 * events over HTTP, the DuckDB-backed query's per-day counts, the cumulation and the stored series.
 * Each day's point is checked against the counts computed by hand from the counting rules.
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

    // [control enrolled, converted], [treatment enrolled, converted], by hand.
    const expected: Array<[string, string, [number, number], [number, number]]> = [
      ['2026-03-01', '2026-03-01T23:59:59.999Z', [2, 0], [1, 1]],
      ['2026-03-02', '2026-03-02T23:59:59.999Z', [3, 0], [2, 2]],
      ['2026-03-03', '2026-03-03T23:59:59.999Z', [3, 1], [3, 2]],
      ['2026-03-04', '2026-03-04T12:00:00.000Z', [4, 3], [3, 2]],
    ];
    expect(r.series).toHaveLength(expected.length);
    expected.forEach(([date, asOf, [ce, cc], [te, tc]], i) => {
      const point = r.series[i];
      expect(point.date, date).toBe(date);
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
    const last = r.series.at(-1);
    expect(last.variants).toEqual(r.variants);
    expect(last.comparisons).toEqual(r.comparisons);

    // Stored with the results: the GET answers the same series.
    const stored = await stack.admin('GET', `${base()}/${id}/results`);
    expect(stored.body).toEqual(r);
  });
});
