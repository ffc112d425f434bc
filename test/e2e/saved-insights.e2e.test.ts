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

describe('the limit of 200 saved insights per project', () => {
  it('holds under 40 parallel creates from 190: exactly 200 stored, the rest 409; a delete gives its slot back', async () => {
    const full = await stack.createProject('saved-full');
    const create = (name: string) => stack.admin('POST', base(full), { name, kind: 'trends', definition: DEFINITION });
    for (let i = 0; i < 190; i += 10) {
      const batch = await Promise.all(Array.from({ length: 10 }, (_, j) => create(`before ${i + j}`)));
      expect(batch.map((r) => r.status)).toEqual(Array(10).fill(201));
    }
    const racing = await Promise.all(Array.from({ length: 40 }, (_, i) => create(`racing ${i}`)));
    const statuses = racing.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s === 409)).toHaveLength(30);
    expect(racing.find((r) => r.status === 409)!.body.error).toBe('The project has 200 saved insights, the most it can keep: delete one first');
    const listed = (await stack.admin('GET', base(full))).body.saved_insights as Array<{ id: string }>;
    expect(listed).toHaveLength(200);

    expect((await create('one more')).status).toBe(409);
    expect((await stack.admin('DELETE', `${base(full)}/${listed[0]!.id}`)).status).toBe(204);
    // Deleting it again gives nothing more back.
    expect((await stack.admin('DELETE', `${base(full)}/${listed[0]!.id}`)).status).toBe(404);
    const again = await Promise.all(Array.from({ length: 5 }, (_, i) => create(`again ${i}`)));
    expect(again.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    expect((await stack.admin('GET', base(full))).body.saved_insights).toHaveLength(200);
  }, 120_000);

  it('counts the insights a project saved before the limit was held by slots', async () => {
    const older = await stack.createProject('saved-older');
    // As an older version stored them: insight items only, no slots item.
    const ddb = stack.deps.savedInsights as unknown as { ddb: import('@aws-sdk/lib-dynamodb').DynamoDBDocumentClient; table: string };
    const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
    for (let i = 0; i < 199; i++) {
      const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      await ddb.ddb.send(
        new PutCommand({
          TableName: ddb.table,
          Item: { project_id: older, id, name: `old ${i}`, kind: 'trends', definition: JSON.stringify(DEFINITION), created_at: 'x', updated_at: 'x' },
        }),
      );
    }
    const racing = await Promise.all(
      Array.from({ length: 6 }, (_, i) => stack.admin('POST', base(older), { name: `new ${i}`, kind: 'trends', definition: DEFINITION })),
    );
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    expect((await stack.admin('GET', base(older))).body.saved_insights).toHaveLength(200);
  }, 60_000);
});

describe('a change racing a delete', () => {
  it('does not bring the deleted insight back', async () => {
    const created = await stack.admin('POST', base(), { name: 'Short-lived', kind: 'trends', definition: DEFINITION });
    const id = created.body.id as string;
    const [deleted, changed] = await Promise.all([stack.admin('DELETE', `${base()}/${id}`), stack.admin('PATCH', `${base()}/${id}`, { name: 'Renamed' })]);
    expect(deleted.status).toBe(204);
    expect([200, 404]).toContain(changed.status);
    expect((await stack.admin('GET', `${base()}/${id}`)).status).toBe(404);
  });
});
