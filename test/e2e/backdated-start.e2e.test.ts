/**
 * Starting an experiment at an earlier time (`POST …/start` with `started_at`, at most 90 days ago):
 * the results count the exposures and purchases from then on, by their events' timestamps, with a
 * series over the days; a start time in the future, too old, or not a time is refused naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, UNTHROTTLED_KEY, type TestStack } from '../helpers/local';

const DAY = 86_400_000;
let stack: TestStack;
let project: string;
let key: string;
const base = () => `/admin/v1/projects/${project}/experiments`;

beforeAll(async () => {
  stack = await startTestStack();
  project = await stack.createProject('backdated');
  key = await stack.createKey(project, UNTHROTTLED_KEY);
});
afterAll(() => stack.stop());

describe('a backdated start', () => {
  it('counts the users enrolled since the earlier start, over the days', async () => {
    const created = await stack.admin('POST', base(), { name: 'Since last week', goal_event: 'purchase', variants: ['control', 'treatment'] });
    // At a UTC midnight 10 to 11 days ago, so each day's events (an hour after the day starts) fall on
    // that UTC day of the series whatever the time of the run (at 23:xx UTC they fell on the next).
    const startedAt = new Date(Math.floor((Date.now() - 10 * DAY) / DAY) * DAY).toISOString();
    const started = await stack.admin('POST', `${base()}/${created.body.id}/start`, { started_at: startedAt });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body).toMatchObject({ status: 'running', started_at: startedAt });
    // One control and one treatment user a day for 9 days; every treatment user buys. One purchase before the start does not count.
    const events: unknown[] = [{ name: 'purchase', user_id: 'c-early', timestamp: new Date(Date.parse(startedAt) - DAY).toISOString() }];
    for (let d = 0; d < 9; d++) {
      const at = new Date(Date.parse(startedAt) + d * DAY + 3_600_000).toISOString();
      for (const variant of ['control', 'treatment']) {
        events.push({
          name: '$experiment_exposure',
          user_id: `${variant}-${d}`,
          timestamp: at,
          properties: { $experiment_name: 'Since last week', $variant: variant },
        });
      }
      events.push({ name: 'purchase', user_id: `treatment-${d}`, timestamp: at });
    }
    events.push({
      name: '$experiment_exposure',
      user_id: 'c-early',
      timestamp: new Date(Date.parse(startedAt) + 3_600_000).toISOString(),
      properties: { $experiment_name: 'Since last week', $variant: 'control' },
    });
    expect((await stack.post('/v1/events', key, { events })).status).toBe(204);
    const results = await stack.admin('POST', `${base()}/${created.body.id}/results/refresh`);
    expect(results.status, JSON.stringify(results.body)).toBe(200);
    expect(results.body.window.from).toBe(startedAt);
    expect(results.body.variants.map((v: { variant: string; enrolled: number; converted: number }) => [v.variant, v.enrolled, v.converted])).toEqual([
      ['control', 10, 0],
      ['treatment', 9, 9],
    ]);
    // A daily series from the start's day: enrollment grows day by day.
    const enrolled = results.body.series.map((p: { variants: Array<{ enrolled: number }> }) => p.variants[1]!.enrolled);
    expect(enrolled.length).toBeGreaterThanOrEqual(10);
    expect(enrolled.slice(0, 9)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it.each([
    [{ started_at: new Date(Date.now() + 3_600_000).toISOString() }, /^started_at: started_at must not be in the future/],
    [{ started_at: new Date(Date.now() - 91 * DAY).toISOString() }, /^started_at: started_at must be at most 90 days ago/],
    [{ started_at: 'last week' }, /^started_at: started_at must be an ISO 8601 time with a time zone/],
    [{ started_at: '2026-05-01T09:00:00' }, /^started_at: started_at must be an ISO 8601 time with a time zone/],
    [{ started_at: 1_700_000_000 }, /^started_at: started_at must be an ISO 8601 time/],
    [{ when: 'now' }, /when/],
  ])('%j is refused with a 400 naming started_at, and the experiment stays created', async (body, message) => {
    const created = await stack.admin('POST', base(), { name: `Refused ${JSON.stringify(body)}`, goal_event: 'purchase' });
    const res = await stack.admin('POST', `${base()}/${created.body.id}/start`, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
    expect((await stack.admin('GET', `${base()}/${created.body.id}`)).body.status).toBe('created');
  });
});
