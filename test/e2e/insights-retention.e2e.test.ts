/**
 * POST /admin/v1/projects/{project_id}/insights/retention through the local server (DuckDB over the
 * raw files): a small project's triangle counted by hand (issue 25, "Retention"): a login after the
 * start event, a user returning twice in one period, a return before the start, a second start
 * event, a start before the range, a duplicate copy in the raw files.
 */
import { writeLanding } from '../helpers/landing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, UNTHROTTLED_KEY, type TestStack } from '../helpers/local';

const NOW = Date.parse('2026-04-15T12:00:00.000Z');
const RANGE = { date_from: '2026-04-08', date_to: '2026-04-14' };
const EVENTS = { start_event: 'install', return_event: 'open' };

let stack: TestStack;
let project: string;

beforeAll(async () => {
  stack = await startTestStack({ clock: () => NOW });
  project = await stack.createProject('retention');
  const key = await stack.createKey(project, UNTHROTTLED_KEY);
  const res = await stack.post('/v1/events', key, {
    events: [
      // anon-2 installs on the 8th and signs in as henry; henry opens twice on the 9th (day 1, once) and on the 11th (day 3).
      { name: 'install', user_id: 'anon-2', timestamp: '2026-04-08T09:00:00Z' },
      { name: '$identify', user_id: 'henry', timestamp: '2026-04-08T09:10:00Z', properties: { $anonymous_id: 'anon-2' } },
      { name: 'open', user_id: 'henry', timestamp: '2026-04-09T10:00:00Z' },
      { name: 'open', user_id: 'henry', timestamp: '2026-04-09T18:00:00Z' },
      { name: 'open', user_id: 'henry', timestamp: '2026-04-11T10:00:00Z' },
      // ivan opens before installing (not a return), after it the same day (day 0) and on the 10th (day 2, late: received on the 15th).
      { name: 'open', user_id: 'ivan', timestamp: '2026-04-08T11:00:00Z' },
      { name: 'install', user_id: 'ivan', timestamp: '2026-04-08T12:00:00Z' },
      { name: 'open', user_id: 'ivan', timestamp: '2026-04-08T13:00:00Z' },
      { name: 'open', user_id: 'ivan', timestamp: '2026-04-10T08:00:00Z' },
      // judy installs on the 9th and again on the 10th: her cohort is the 9th; she opens on the 10th (day 1).
      { name: 'install', user_id: 'judy', timestamp: '2026-04-09T10:00:00Z' },
      { name: 'install', user_id: 'judy', timestamp: '2026-04-10T10:00:00Z' },
      { name: 'open', user_id: 'judy', timestamp: '2026-04-10T11:00:00Z' },
      // kim installed before the range and again in it: her cohort is the 13th; she opens on the 14th (day 1).
      { name: 'install', user_id: 'kim', timestamp: '2026-04-07T10:00:00Z' },
      { name: 'install', user_id: 'kim', timestamp: '2026-04-13T10:00:00Z' },
      { name: 'open', user_id: 'kim', timestamp: '2026-04-14T09:00:00Z' },
      // leo only opens: in no cohort.
      { name: 'open', user_id: 'leo', timestamp: '2026-04-09T10:00:00Z' },
    ],
  });
  expect(res.status, res.text).toBe(204);
  // A copy of judy's open in the raw files: still one user returning.
  const open = stack.rawEvents(project).find((e) => e.name === 'open' && e.sent_user_id === 'judy')!;
  // It lands in the hour it arrived, with every project's events (landing/events/arrival_hour=…).
  writeLanding(stack.dataDir, 'events', [{ ...open, received_at: '2026-04-15T11:59:00.000Z' }]);
});
afterAll(() => stack.stop());

const retention = (body: unknown) => stack.admin('POST', `/admin/v1/projects/${project}/insights/retention`, body);

type Cohort = { cohort: string; users: number; periods: Array<{ period: number; users: number; share: number }> };
const triangle = (cohorts: Cohort[]) => cohorts.map((c) => [c.cohort, c.users, c.periods.map((p) => p.users)]);

describe('retention through the admin API', () => {
  it('gives a daily triangle: cohorts by first start event, each returning user once per day', async () => {
    const res = await retention({ ...EVENTS, ...RANGE });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: 'succeeded', kind: 'retention' });
    const { result } = res.body;
    expect(result).toMatchObject({ interval: 'day', periods: 7, start_event: 'install', return_event: 'open' });
    expect(triangle(result.cohorts)).toEqual([
      ['2026-04-08', 2, [1, 1, 1, 1, 0, 0, 0]],
      ['2026-04-09', 1, [0, 1, 0, 0, 0, 0]],
      ['2026-04-13', 1, [0, 1]],
    ]);
    expect(result.cohorts[0].periods.map((p: { share: number }) => p.share)).toEqual([0.5, 0.5, 0.5, 0.5, 0, 0, 0]);
    expect(res.body.sql).toContain("dt BETWEEN '2026-04-08' AND '2026-04-14'");
    // Over the events view, which holds each event once (its copy in the landing tail included).
    expect(res.body.sql).toMatch(/FROM curated_events\b/);
    expect(res.body.sql).toMatch(/FROM events_tail\b/);
  });

  it('gives a weekly triangle, weeks starting on Monday', async () => {
    const res = await retention({ ...EVENTS, ...RANGE, interval: 'week' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(triangle(res.body.result.cohorts)).toEqual([
      ['2026-04-06', 3, [3, 0]],
      ['2026-04-13', 1, [1]],
    ]);
    expect(res.body.result.periods).toBe(2);
  });

  it.each([
    [{ start_event: 'install', ...RANGE }, /return_event: return_event is required/],
    [{ ...EVENTS, date_from: '2026-01-01', date_to: '2026-04-14' }, /interval: a daily retention table spans at most 92 days/],
    [{ ...EVENTS, ...RANGE, interval: 'month' }, /interval: interval must be one of "day", "week"/],
  ])('refuses an invalid definition with a 400 that says what to fix (%#)', async (body, message) => {
    const res = await retention(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
  });
});
