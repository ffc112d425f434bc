/**
 * The date bounds of every insight kind through the local server (docs/api.md "Bounds"): a day
 * outside 1970-01-01..2999-12-31, a month that is none, or a trend's previous period before
 * 1970-01-01 is refused with a 400 naming the field, at once; the widest ranges within the bounds
 * answer; a saved insight holding such a day (saved before the bounds) is listed with what is wrong
 * and its run is refused, never crashing the server.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../helpers/local';
import { FAR_FUTURE_TRENDS, storeOldSavedInsight } from '../helpers/saved-insight';

const NOW = Date.parse('2026-04-15T12:00:00.000Z');

let stack: TestStack;
let project: string;

beforeAll(async () => {
  stack = await startTestStack({ clock: () => NOW });
  project = await stack.createProject('date-bounds');
  // Events on the first days the bounds allow (a device clock at the epoch): counted like any others.
  const key = await stack.createKey(project);
  const res = await stack.post('/v1/events', key, {
    events: [
      { name: 'view', user_id: 'u1', timestamp: '1970-01-01T00:00:00Z' },
      { name: 'view', user_id: 'u1', timestamp: '1970-01-12T10:00:00Z' },
      { name: 'view', user_id: 'u2', timestamp: '1970-01-12T11:00:00Z' },
    ],
  });
  expect(res.status, res.text).toBe(204);
});
afterAll(() => stack.stop());

const run = (kind: string, body: unknown) => stack.admin('POST', `/admin/v1/projects/${project}/insights/${kind}`, body);
const TRENDS = { series: [{ event: 'view' }] };
const FUNNELS = { steps: [{ event: 'view' }, { event: 'buy' }] };
const RETENTION = { start_event: 'view', return_event: 'view' };

describe('insight date bounds', () => {
  it.each([
    ['trends', { ...TRENDS, date_from: '9999-12-01', date_to: '9999-12-31' }],
    ['trends', { ...TRENDS, date_from: '9999-12-01', date_to: '9999-12-31', interval: 'week', compare: false }],
    ['funnels', { ...FUNNELS, date_from: '9999-12-01', date_to: '9999-12-31' }],
    ['retention', { ...RETENTION, date_from: '9999-12-01', date_to: '9999-12-31' }],
    ['trends', { ...TRENDS, date_from: '0000-01-01', date_to: '0000-01-31', compare: false }],
    ['funnels', { ...FUNNELS, date_from: '0000-01-01', date_to: '0000-01-31' }],
    ['retention', { ...RETENTION, date_from: '1969-12-01', date_to: '1969-12-31' }],
  ])('%s: a range outside 1970-01-01..2999-12-31 is refused at once, naming date_from and date_to (%#)', async (kind, body) => {
    const res = await run(kind, body);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error).toMatch(/date_from: date_from must be from 1970-01-01 to 2999-12-31/);
    expect(res.body.error).toMatch(/date_to: date_to must be from 1970-01-01 to 2999-12-31/);
  });

  it.each(['trends', 'funnels', 'retention'])('%s: a month that is none is a 400 naming the field, not a 500', async (kind) => {
    const base = kind === 'trends' ? TRENDS : kind === 'funnels' ? FUNNELS : RETENTION;
    const res = await run(kind, { ...base, date_from: '2026-13-01', date_to: '2026-04-14' });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error).toBe('date_from: date_from must be a real UTC day, YYYY-MM-DD');
  });

  it('trends: a previous period before 1970-01-01 is refused on date_from, saying how to fix it; without compare it answers', async () => {
    const res = await run('trends', { ...TRENDS, date_from: '1970-01-05', date_to: '1970-01-14' });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error).toBe(
      'date_from: the previous period compared against would start on 1969-12-26, before 1970-01-01: move date_from to 1970-01-11 or later, or send "compare": false',
    );
    const alone = await run('trends', { ...TRENDS, date_from: '1970-01-05', date_to: '1970-01-14', compare: false });
    expect(alone.status, JSON.stringify(alone.body)).toBe(200);
    const edge = await run('trends', { ...TRENDS, date_from: '1970-01-11', date_to: '1970-01-20' });
    expect(edge.status, JSON.stringify(edge.body)).toBe(200);
    expect(edge.body.result.previous).toEqual({ date_from: '1970-01-01', date_to: '1970-01-10' });
    expect(edge.body.result.lines[0]).toMatchObject({ total: 2, previous_total: 1 });
  });

  it('the widest ranges at the bounds answer, with every bucket', async () => {
    const hourly = await run('trends', { ...TRENDS, interval: 'hour', date_from: '2999-12-01', date_to: '2999-12-31' });
    expect(hourly.status, JSON.stringify(hourly.body)).toBe(200);
    expect(hourly.body.result.buckets).toHaveLength(31 * 24);
    expect(hourly.body.result.buckets.at(-1)).toBe('2999-12-31T23:00Z');
    const weekly = await run('trends', { ...TRENDS, interval: 'week', date_from: '2999-01-01', date_to: '2999-12-31' });
    expect(weekly.status, JSON.stringify(weekly.body)).toBe(200);
    // 2999-01-01 is a Tuesday: the first week (from the Monday before) is cut by the range and labelled by
    // its first day in it; 2999-12-31 is in the 53rd week, cut too.
    expect(weekly.body.result.buckets[0]).toBe('2999-01-01');
    expect(weekly.body.result.clipped).toEqual([0, 52]);
    expect(weekly.body.result.buckets).toHaveLength(53);
    expect((await run('funnels', { ...FUNNELS, date_from: '2999-01-01', date_to: '2999-12-31' })).status).toBe(200);
    const retention = await run('retention', { ...RETENTION, interval: 'week', date_from: '1970-01-01', date_to: '1970-12-31' });
    expect(retention.status, JSON.stringify(retention.body)).toBe(200);
    expect(retention.body.result.cohorts[0]).toMatchObject({ users: 1 });
  });
});

describe('a saved insight holding a day outside the bounds (saved before them)', () => {
  it('is listed and read with what is wrong, its run is refused, and the server goes on', async () => {
    const definition = FAR_FUTURE_TRENDS;
    const id = randomUUID();
    await storeOldSavedInsight(stack, project, id, definition);
    const listed = await stack.admin('GET', `/admin/v1/projects/${project}/saved-insights`);
    expect(listed.status).toBe(200);
    const saved = listed.body.saved_insights.find((s: { id: string }) => s.id === id);
    expect(saved.problem).toMatch(/^definition\.date_from: date_from must be from 1970-01-01 to 2999-12-31; definition\.date_to: /);
    const read = await stack.admin('GET', `/admin/v1/projects/${project}/saved-insights/${id}`);
    expect(read.body.problem).toBe(saved.problem);
    // The dashboard's link runs the stored definition: refused, naming the fields.
    const ran = await run('trends', saved.definition);
    expect(ran.status).toBe(400);
    expect(ran.body.error).toMatch(/^date_from: date_from must be from 1970-01-01 to 2999-12-31/);
    // Corrected, it runs and has no problem any more.
    const fixed = await stack.admin('PATCH', `/admin/v1/projects/${project}/saved-insights/${id}`, {
      definition: { ...TRENDS, date_from: '2026-04-01', date_to: '2026-04-14' },
    });
    expect(fixed.status, JSON.stringify(fixed.body)).toBe(200);
    expect(fixed.body.problem).toBeNull();
    expect((await stack.admin('GET', `/admin/v1/projects/${project}/saved-insights`)).status).toBe(200);
  });
});
