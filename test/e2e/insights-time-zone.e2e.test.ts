/**
 * A project's time zone through the local server (DuckDB over the raw files): insights count local
 * days, weeks and hours of the project's zone (docs/decisions/project-time-zone.md). Events sit at
 * 23:30 and 00:30 local around the range's edges in zones whose local day spans two UTC days
 * (Pacific/Kiritimati +14, Pacific/Honolulu -10, Asia/Kolkata +5:30), and around both of New York's
 * 2026 daylight-saving changes; every count below is worked out by hand from the UTC instants sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, UNTHROTTLED_KEY, type TestStack } from '../helpers/local';

const NOW = Date.parse('2026-11-10T05:00:00.000Z');

let stack: TestStack;

async function zoneProject(name: string, time_zone: string, events: Array<Record<string, unknown>>): Promise<string> {
  const created = await stack.admin('POST', '/admin/v1/projects', { name, time_zone });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect(created.body.time_zone).toBe(time_zone);
  const id = created.body.id as string;
  const key = await stack.createKey(id, UNTHROTTLED_KEY);
  const res = await stack.post('/v1/events', key, { events });
  expect(res.status, res.text).toBe(204);
  return id;
}

const insight = (project: string, kind: string, body: unknown) => stack.admin('POST', `/admin/v1/projects/${project}/insights/${kind}`, body);

/** Five views around the range 2026-06-10..2026-06-12 local: 23:30 the evening before, 00:30 the first day, noon, 23:30 the last day, 00:30 after. */
const EDGE_EVENTS: Record<string, string[]> = {
  // UTC+14: local = UTC + 14 h. 2026-06-10 00:30 local is 2026-06-09 10:30 UTC (the UTC day before the range).
  'Pacific/Kiritimati': ['2026-06-09T09:30:00Z', '2026-06-09T10:30:00Z', '2026-06-10T22:00:00Z', '2026-06-12T09:30:00Z', '2026-06-12T10:30:00Z'],
  // UTC-10: 2026-06-12 23:30 local is 2026-06-13 09:30 UTC (the UTC day after the range).
  'Pacific/Honolulu': ['2026-06-10T09:30:00Z', '2026-06-10T10:30:00Z', '2026-06-11T22:00:00Z', '2026-06-13T09:30:00Z', '2026-06-13T10:30:00Z'],
  // UTC+5:30: 2026-06-10 00:30 local is 2026-06-09 19:00 UTC.
  'Asia/Kolkata': ['2026-06-09T18:00:00Z', '2026-06-09T19:00:00Z', '2026-06-11T06:30:00Z', '2026-06-12T18:00:00Z', '2026-06-12T19:00:00Z'],
};

/** The UTC days holding 2026-06-10 00:00 .. 2026-06-12 23:59 local. */
const SCANNED: Record<string, [string, string]> = {
  'Pacific/Kiritimati': ['2026-06-09', '2026-06-12'],
  'Pacific/Honolulu': ['2026-06-10', '2026-06-13'],
  'Asia/Kolkata': ['2026-06-09', '2026-06-12'],
};

const edgeProjects = new Map<string, string>();
let newYork: string;
let honolulu: string;
let kiritimati: string;

beforeAll(async () => {
  stack = await startTestStack({ clock: () => NOW });
  for (const [zone, instants] of Object.entries(EDGE_EVENTS)) {
    edgeProjects.set(
      zone,
      await zoneProject(
        `edges ${zone}`,
        zone,
        instants.map((timestamp, i) => ({ name: 'view', user_id: `u${i}`, timestamp })),
      ),
    );
  }
  newYork = await zoneProject('New York', 'America/New_York', [
    // 2026-03-08: clocks go from 02:00 EST (UTC-5) to 03:00 EDT (UTC-4) at 07:00 UTC; the local day has 23 hours.
    { name: 'tap', user_id: 'a', timestamp: '2026-03-08T06:30:00Z' }, // 01:30 EST
    { name: 'tap', user_id: 'a', timestamp: '2026-03-08T07:15:00Z' }, // 03:15 EDT (the next local hour)
    // 2026-11-01: clocks go from 02:00 EDT back to 01:00 EST at 06:00 UTC; the local day has 25 hours, 01:00 twice.
    { name: 'tap', user_id: 'b', timestamp: '2026-11-01T04:30:00Z' }, // 00:30 EDT
    { name: 'tap', user_id: 'b', timestamp: '2026-11-01T05:15:00Z' }, // 01:15 EDT
    { name: 'tap', user_id: 'c', timestamp: '2026-11-01T05:45:00Z' }, // 01:45 EDT
    { name: 'tap', user_id: 'b', timestamp: '2026-11-01T06:15:00Z' }, // 01:15 EST (the second 01:00 hour)
    { name: 'tap', user_id: 'b', timestamp: '2026-11-01T07:30:00Z' }, // 02:30 EST
    { name: 'tap', user_id: 'b', timestamp: '2026-11-02T04:30:00Z' }, // 2026-11-01 23:30 EST: still the 1st locally
    { name: 'tap', user_id: 'b', timestamp: '2026-11-02T05:30:00Z' }, // 2026-11-02 00:30 EST
  ]);
  honolulu = await zoneProject('Honolulu', 'Pacific/Honolulu', [
    // ann: installs 2026-06-10 22:00 local, opens 23:00 the same local day (day 0) and 2026-06-12 20:00 local (day 2, UTC day 2026-06-13).
    { name: 'install', user_id: 'ann', timestamp: '2026-06-11T08:00:00Z' },
    { name: 'open', user_id: 'ann', timestamp: '2026-06-11T09:00:00Z' },
    { name: 'open', user_id: 'ann', timestamp: '2026-06-13T06:00:00Z' },
    // bob: installs 2026-06-11 13:00 local and opens 15:00 local, the same local day (in UTC the next day).
    { name: 'install', user_id: 'bob', timestamp: '2026-06-11T23:00:00Z' },
    { name: 'open', user_id: 'bob', timestamp: '2026-06-12T01:00:00Z' },
  ]);
  kiritimati = await zoneProject('Kiritimati funnel', 'Pacific/Kiritimati', [
    // cid: both steps on 2026-06-10 local (00:30 and 01:00), both on 2026-06-09 in UTC.
    { name: 'visit', user_id: 'cid', timestamp: '2026-06-09T10:30:00Z' },
    { name: 'buy', user_id: 'cid', timestamp: '2026-06-09T11:00:00Z' },
    // dee: visits 2026-06-09 23:30 local (before the range), buys 2026-06-10 00:10 local: no first step in the range.
    { name: 'visit', user_id: 'dee', timestamp: '2026-06-09T09:30:00Z' },
    { name: 'buy', user_id: 'dee', timestamp: '2026-06-09T10:10:00Z' },
    // eve: visits 2026-06-10 23:00 local, buys 2026-06-11 00:30 local (after the range: every step happens in it).
    { name: 'visit', user_id: 'eve', timestamp: '2026-06-10T09:00:00Z' },
    { name: 'buy', user_id: 'eve', timestamp: '2026-06-10T10:30:00Z' },
  ]);
});
afterAll(() => stack.stop());

describe('a project time zone', () => {
  it.each(Object.keys(EDGE_EVENTS))('counts the local days of %s, reading the UTC day partitions on either side', async (zone) => {
    const res = await insight(edgeProjects.get(zone)!, 'trends', {
      series: [{ event: 'view' }],
      date_from: '2026-06-10',
      date_to: '2026-06-12',
      compare: false,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.time_zone).toBe(zone);
    expect(res.body.result.buckets).toEqual(['2026-06-10', '2026-06-11', '2026-06-12']);
    // 00:30 on the first day, noon, 23:30 on the last day; not 23:30 the evening before nor 00:30 after.
    expect(res.body.result.lines[0].values).toEqual([1, 1, 1]);
    expect(res.body.result.lines[0].total).toBe(3);
    // The SQL shown says the zone, and reads the UTC days the local range spans.
    expect(res.body.sql).toContain(`AT TIME ZONE '${zone}'`);
    expect(res.body.sql).toContain(`dt BETWEEN '${SCANNED[zone]![0]}' AND '${SCANNED[zone]![1]}'`);
  });

  it('gives a 25-hour local day when the clocks go back, the two 01:00 hours apart', async () => {
    const res = await insight(newYork, 'trends', { series: [{ event: 'tap' }], date_from: '2026-11-01', date_to: '2026-11-01', interval: 'hour' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { buckets, lines } = res.body.result;
    expect(buckets).toHaveLength(25);
    expect(buckets.slice(0, 4)).toEqual(['2026-11-01T00:00-04:00', '2026-11-01T01:00-04:00', '2026-11-01T01:00-05:00', '2026-11-01T02:00-05:00']);
    expect(buckets[24]).toBe('2026-11-01T23:00-05:00');
    expect(lines[0].values.slice(0, 4)).toEqual([1, 2, 1, 1]);
    expect(lines[0].values[24]).toBe(1);
    // Every event of the local day once: none dropped, none twice.
    expect(lines[0].values.reduce((a: number, b: number) => a + b, 0)).toBe(6);
    expect(lines[0].total).toBe(6);
  });

  it('gives a 23-hour local day when the clocks go forward', async () => {
    const res = await insight(newYork, 'trends', { series: [{ event: 'tap' }], date_from: '2026-03-08', date_to: '2026-03-08', interval: 'hour' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { buckets, lines } = res.body.result;
    expect(buckets).toHaveLength(23);
    expect(buckets.slice(0, 3)).toEqual(['2026-03-08T00:00-05:00', '2026-03-08T01:00-05:00', '2026-03-08T03:00-04:00']);
    expect(lines[0].values.slice(0, 3)).toEqual([0, 1, 1]);
    expect(lines[0].total).toBe(2);
  });

  it('counts local days by day across the change (the 1st has 6 events, the 2nd 1)', async () => {
    const res = await insight(newYork, 'trends', {
      series: [{ event: 'tap' }, { event: 'tap', measure: 'users' }],
      date_from: '2026-11-01',
      date_to: '2026-11-02',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result.lines.map((l: { values: number[] }) => l.values)).toEqual([
      [6, 1],
      [2, 1],
    ]);
  });

  it('puts retention cohorts and day offsets on local days', async () => {
    const res = await insight(honolulu, 'retention', { start_event: 'install', return_event: 'open', date_from: '2026-06-10', date_to: '2026-06-12' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const cohorts = res.body.result.cohorts.map((c: { cohort: string; users: number; periods: Array<{ users: number; complete: boolean }> }) => [
      c.cohort,
      c.users,
      c.periods.map((p) => p.users),
    ]);
    expect(cohorts).toEqual([
      ['2026-06-10', 1, [1, 0, 1]],
      ['2026-06-11', 1, [1, 0]],
    ]);
    expect(res.body.sql).toContain("AT TIME ZONE 'Pacific/Honolulu'");
    // The range's last local day ends on the UTC day after it: that partition is read.
    expect(res.body.sql).toContain("dt BETWEEN '2026-06-10' AND '2026-06-13'");
  });

  it("keeps a funnel's steps inside the range's local days", async () => {
    const res = await insight(kiritimati, 'funnels', { steps: [{ event: 'visit' }, { event: 'buy' }], date_from: '2026-06-10', date_to: '2026-06-10' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // cid both steps; eve the first only (her purchase is on the 11th locally); dee none (her visit is on the 9th locally).
    expect(res.body.result.groups[0].steps.map((s: { users: number }) => s.users)).toEqual([2, 1]);
    expect(res.body.sql).toContain("dt BETWEEN '2026-06-09' AND '2026-06-10'");
  });

  it('marks the local today as partial: in Honolulu it is still 2026-11-09 at 05:00 UTC on the 10th', async () => {
    const res = await insight(honolulu, 'trends', { series: [{ event: 'open' }], date_from: '2026-11-07', date_to: '2026-11-10' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // Local days 7, 8, 9 (today, until 10:00 UTC) and 10: the 9th is the first that can still grow.
    expect(res.body.result.partial_from).toBe(2);
  });
});

describe("the project's time zone setting", () => {
  it('is UTC unless set, set at creation or by PATCH, and listed', async () => {
    const plain = await stack.admin('POST', '/admin/v1/projects', { name: 'no zone' });
    expect(plain.status).toBe(201);
    // Absent until set: the project counts in UTC, and answers as projects always have.
    expect(plain.body.time_zone).toBeUndefined();
    const patched = await stack.admin('PATCH', `/admin/v1/projects/${plain.body.id}`, { time_zone: 'Europe/Berlin' });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject({ id: plain.body.id, name: 'no zone', time_zone: 'Europe/Berlin' });
    const renamed = await stack.admin('PATCH', `/admin/v1/projects/${plain.body.id}`, { name: 'Berlin shop' });
    expect(renamed.body).toMatchObject({ name: 'Berlin shop', time_zone: 'Europe/Berlin' });
    const listed = (await stack.admin('GET', '/admin/v1/projects')).body.projects as Array<{ id: string; time_zone: string }>;
    expect(listed.find((p) => p.id === plain.body.id)?.time_zone).toBe('Europe/Berlin');
    expect(listed.find((p) => p.id === honolulu)?.time_zone).toBe('Pacific/Honolulu');
  });

  it('refuses a name that is not an IANA time zone, saying which field and giving an example', async () => {
    for (const time_zone of ['Mars/Olympus', 'asia/kolkata', 'UTC+2', '']) {
      const res = await stack.admin('POST', '/admin/v1/projects', { name: 'bad zone', time_zone });
      expect(res.status, time_zone).toBe(400);
      expect(res.body.error).toContain('time_zone');
      expect(res.body.error).toContain('America/New_York');
    }
    const notText = await stack.admin('PATCH', `/admin/v1/projects/${honolulu}`, { time_zone: 5 });
    expect(notText.status).toBe(400);
    expect(notText.body.error).toContain('time_zone must be a string');
    const nothing = await stack.admin('PATCH', `/admin/v1/projects/${honolulu}`, {});
    expect(nothing.status).toBe(400);
    expect(nothing.body.error).toContain('time_zone');
    const missing = await stack.admin('PATCH', '/admin/v1/projects/no-such-project', { time_zone: 'UTC' });
    expect(missing.status).toBe(404);
  });
});
