/**
 * Dashboards through the local server (docs/api.md "Dashboards"): create with tiles naming the
 * project's saved insights and a range override, list, get with each tile's insight, update, delete;
 * 400s naming the field, 404s, another project's dashboards and insights not found, a tile whose
 * insight was deleted shown as null, and the per-project limit under parallel creates.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_LIMITS } from '../../lambdas/domain/insights/dashboard';
import { startTestStack, type TestStack } from '../helpers/local';

let stack: TestStack;
let project: string;
let other: string;
let clock = Date.parse('2026-04-15T12:00:00.000Z');

beforeAll(async () => {
  stack = await startTestStack({ clock: () => clock });
  project = await stack.createProject('dashboards');
  other = await stack.createProject('dashboards-other');
});
afterAll(() => stack.stop());

const base = (p = project) => `/admin/v1/projects/${p}/dashboards`;
const insights = (p = project) => `/admin/v1/projects/${p}/saved-insights`;
const DEFINITION = { series: [{ event: 'signup' }], date_from: '2026-04-01', date_to: '2026-04-14', range: 'last_7_days' };

async function saveInsight(name: string, p = project): Promise<string> {
  const res = await stack.admin('POST', insights(p), { name, kind: 'trends', definition: DEFINITION });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

describe('dashboards', () => {
  it('creates, lists, reads with its insights, updates and deletes a dashboard', async () => {
    const a = await saveInsight('Signups');
    const b = await saveInsight('Purchases');
    const created = await stack.admin('POST', base(), {
      name: 'Weekly growth',
      tiles: [{ saved_insight_id: a }, { saved_insight_id: b }],
      range_override: { range: 'last_30_days' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Weekly growth',
      tiles: [{ saved_insight_id: a }, { saved_insight_id: b }],
      range_override: { range: 'last_30_days' },
      created_at: '2026-04-15T12:00:00.000Z',
    });
    const id = created.body.id as string;

    const listed = await stack.admin('GET', base());
    expect(listed.status).toBe(200);
    expect(listed.body.dashboards.map((d: { name: string }) => d.name)).toEqual(['Weekly growth']);

    const got = await stack.admin('GET', `${base()}/${id}`);
    expect(got.status).toBe(200);
    expect(got.body.tiles.map((t: { insight: { name: string } }) => t.insight.name)).toEqual(['Signups', 'Purchases']);
    expect(got.body.tiles[0].insight).toMatchObject({ kind: 'trends', definition: { range: 'last_7_days' }, problem: null });

    clock += 1000;
    const updated = await stack.admin('PATCH', `${base()}/${id}`, {
      name: 'Growth',
      tiles: [{ saved_insight_id: b }],
      range_override: { range: 'custom', date_from: '2026-03-01', date_to: '2026-03-31' },
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body).toMatchObject({ name: 'Growth', tiles: [{ saved_insight_id: b }], updated_at: '2026-04-15T12:00:01.000Z' });
    expect((await stack.admin('PATCH', `${base()}/${id}`, { range_override: null })).body.range_override).toBeNull();

    expect((await stack.admin('DELETE', `${base()}/${id}`)).status).toBe(204);
    expect((await stack.admin('GET', `${base()}/${id}`)).status).toBe(404);
    expect((await stack.admin('DELETE', `${base()}/${id}`)).status).toBe(404);
    // The insights stay.
    expect((await stack.admin('GET', `${insights()}/${b}`)).status).toBe(200);
  });

  it('shows a tile whose saved insight was deleted as null, and keeps it until removed', async () => {
    const a = await saveInsight('Kept');
    const b = await saveInsight('Deleted later');
    const id = (await stack.admin('POST', base(), { name: 'With a gone tile', tiles: [{ saved_insight_id: a }, { saved_insight_id: b }] })).body.id;
    expect((await stack.admin('DELETE', `${insights()}/${b}`)).status).toBe(204);
    const got = await stack.admin('GET', `${base()}/${id}`);
    expect(got.body.tiles.map((t: { saved_insight_id: string; insight: unknown }) => [t.saved_insight_id, t.insight === null])).toEqual([
      [a, false],
      [b, true],
    ]);
    // Renaming keeps the deleted tile (only newly named tiles must exist); removing it works.
    expect((await stack.admin('PATCH', `${base()}/${id}`, { name: 'Renamed', tiles: [{ saved_insight_id: a }, { saved_insight_id: b }] })).status).toBe(200);
    const removed = await stack.admin('PATCH', `${base()}/${id}`, { tiles: [{ saved_insight_id: a }] });
    expect(removed.body.tiles).toEqual([{ saved_insight_id: a }]);
  });

  it.each([
    [{ tiles: [] }, /name: name is required/],
    [{ name: ' ' }, /name: name must not be empty/],
    [{ name: 'x', tiles: 'all' }, /tiles: tiles must be a list/],
    [{ name: 'x', tiles: [{ id: 'x' }] }, /tiles\.0/],
    [{ name: 'x', range_override: { range: 'last_week' } }, /range_override\.range: range_override\.range must be one of "last_7_days"/],
    [{ name: 'x', range_override: { range: 'custom', date_from: '2026-04-01' } }, /range_override\.date_to: "range": "custom" needs date_to/],
    [
      { name: 'x', range_override: { range: 'custom', date_from: '2026-04-10', date_to: '2026-04-01' } },
      /range_override\.date_to: date_to \(2026-04-01\) must be on or after/,
    ],
    [{ name: 'x', range_override: { range: 'last_7_days', date_from: '2026-04-10' } }, /range_override\.date_from: date_from is only for "range": "custom"/],
    [{ name: 'x', tiles: [{ saved_insight_id: '00000000-0000-4000-8000-000000000000' }] }, /tiles\.0\.saved_insight_id: no saved insight/],
    [{ name: 'x', colour: 'blue' }, /body: the body must be \{ name, tiles\?, range_override\? \}/],
  ])('refuses a bad dashboard with a 400 naming the field (%#)', async (body, message) => {
    const res = await stack.admin('POST', base(), body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
  });

  it("keeps projects apart: another project's dashboard is not found, nor can its insights be tiles", async () => {
    const theirs = await saveInsight('Theirs', other);
    const theirDashboard = (await stack.admin('POST', base(other), { name: 'Theirs', tiles: [{ saved_insight_id: theirs }] })).body.id;
    expect((await stack.admin('GET', `${base()}/${theirDashboard}`)).status).toBe(404);
    expect((await stack.admin('PATCH', `${base()}/${theirDashboard}`, { name: 'Mine' })).status).toBe(404);
    expect((await stack.admin('DELETE', `${base()}/${theirDashboard}`)).status).toBe(404);
    expect((await stack.admin('GET', base())).body.dashboards.map((d: { id: string }) => d.id)).not.toContain(theirDashboard);
    const borrowing = await stack.admin('POST', base(), { name: 'Borrowing', tiles: [{ saved_insight_id: theirs }] });
    expect(borrowing.status).toBe(400);
    expect(borrowing.body.error).toMatch(/tiles\.0\.saved_insight_id: no saved insight/);
    expect((await stack.admin('GET', `${base()}/not-an-id`)).status).toBe(404);
  });
});

describe(`the limit of ${DASHBOARD_LIMITS.perProject} dashboards per project`, () => {
  it('holds under 20 parallel creates from 40: exactly the limit stored, the rest 409; a delete gives its slot back', async () => {
    const full = await stack.createProject('dashboards-full');
    const create = (name: string) => stack.admin('POST', base(full), { name });
    for (let i = 0; i < DASHBOARD_LIMITS.perProject - 10; i++) expect((await create(`before ${i}`)).status).toBe(201);
    const racing = await Promise.all(Array.from({ length: 20 }, (_, i) => create(`racing ${i}`)));
    expect(racing.filter((r) => r.status === 201)).toHaveLength(10);
    const refused = racing.filter((r) => r.status === 409);
    expect(refused).toHaveLength(10);
    expect(refused[0]!.body.error).toBe(`The project has ${DASHBOARD_LIMITS.perProject} dashboards, the most it can keep: delete one first`);
    const listed = (await stack.admin('GET', base(full))).body.dashboards as Array<{ id: string }>;
    expect(listed).toHaveLength(DASHBOARD_LIMITS.perProject);
    expect((await stack.admin('DELETE', `${base(full)}/${listed[0]!.id}`)).status).toBe(204);
    expect((await create('after a delete')).status).toBe(201);
    expect((await create('one too many')).status).toBe(409);
  });
});
