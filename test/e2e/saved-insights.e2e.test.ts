/**
 * Saved insights through the local server (issue 25, "Saved insights"): create with a definition
 * checked by its kind's schema (defaults filled in, a bad one refused naming definition.<field>),
 * list the most recently updated first, get, rename and change the definition, delete; another
 * project's insight is not found.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../helpers/local';

let stack: TestStack;
let project: string;
let other: string;
let clock = Date.parse('2026-04-15T12:00:00.000Z');

beforeAll(async () => {
  stack = await startTestStack({ clock: () => clock });
  project = await stack.createProject('saved');
  other = await stack.createProject('saved-other');
});
afterAll(() => stack.stop());

const base = (p = project) => `/admin/v1/projects/${p}/saved-insights`;
const DEFINITION = { series: [{ event: 'signup' }], date_from: '2026-04-01', date_to: '2026-04-14', breakdown: 'platform' };

describe('saved insights', () => {
  it('creates, lists, reads, updates and deletes a saved insight', async () => {
    const created = await stack.admin('POST', base(), { name: 'Signups by platform', kind: 'trends', definition: DEFINITION });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Signups by platform',
      kind: 'trends',
      // The kind's defaults are filled in.
      definition: { ...DEFINITION, series: [{ event: 'signup', measure: 'events' }], interval: 'day', compare: true },
      created_at: '2026-04-15T12:00:00.000Z',
      updated_at: '2026-04-15T12:00:00.000Z',
    });
    const id = created.body.id as string;
    clock += 1000;
    const second = await stack.admin('POST', base(), { name: 'Purchases', kind: 'trends', definition: { ...DEFINITION, series: [{ event: 'purchase' }] } });
    expect(second.status).toBe(201);

    const listed = await stack.admin('GET', base());
    expect(listed.status).toBe(200);
    expect(listed.body.saved_insights.map((s: { name: string }) => s.name)).toEqual(['Purchases', 'Signups by platform']);
    expect((await stack.admin('GET', `${base()}/${id}`)).body).toEqual(created.body);

    clock += 1000;
    const renamed = await stack.admin('PATCH', `${base()}/${id}`, { name: 'Signups', definition: { ...DEFINITION, interval: 'week' } });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Signups', definition: { interval: 'week' }, updated_at: '2026-04-15T12:00:02.000Z' });
    expect((await stack.admin('GET', base())).body.saved_insights[0].id).toBe(id);

    expect((await stack.admin('GET', `${base(other)}/${id}`)).status).toBe(404);
    expect((await stack.admin('DELETE', `${base()}/${id}`)).status).toBe(204);
    expect((await stack.admin('GET', `${base()}/${id}`)).status).toBe(404);
    expect((await stack.admin('DELETE', `${base()}/${id}`)).status).toBe(404);
  });

  it.each([
    [{ kind: 'trends', definition: DEFINITION }, /name: name is required/],
    [{ name: 'x', kind: 'sankey', definition: DEFINITION }, /kind: kind must be one of "trends"/],
    [{ name: 'x', kind: 'trends', definition: { ...DEFINITION, series: [] } }, /definition\.series: series must name at least one event/],
    [{ name: 'x', kind: 'trends', definition: { ...DEFINITION, date_to: '2027-04-14' } }, /definition\.date_to: the range is/],
  ])('refuses a bad saved insight with a 400 naming the field (%#)', async (body, message) => {
    const res = await stack.admin('POST', base(), body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
  });

  it("checks a changed definition with the insight's kind", async () => {
    const created = await stack.admin('POST', base(), { name: 'Checked', kind: 'trends', definition: DEFINITION });
    const res = await stack.admin('PATCH', `${base()}/${created.body.id}`, { definition: { ...DEFINITION, interval: 'month' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/definition\.interval: interval must be one of "hour", "day", "week"/);
  });
});
