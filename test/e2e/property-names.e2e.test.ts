/**
 * GET /admin/v1/projects/{project_id}/property-names through the local server (DuckDB over the raw
 * files, the SQL Athena runs too): the top-level property names of the events received in the latest
 * 7 days, on how many events each (a resent event once), the most first; per project; limit; 400, 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../helpers/local';

const DAY_MS = 86_400_000;
let stack: TestStack;
let clock = Date.parse('2026-04-15T12:00:00.000Z');

beforeAll(async () => {
  stack = await startTestStack({ clock: () => clock });
});
afterAll(() => stack.stop());

describe('property names', () => {
  it('names the properties of the latest 7 days of events with their counts, the most first, per project', async () => {
    const project = await stack.createProject('props');
    const key = await stack.createKey(project);
    const other = await stack.createProject('props other');
    // Received 8 days before the listing: outside its window.
    clock -= 8 * DAY_MS;
    await stack.post('/v1/events', key, { events: [{ name: 'old', user_id: 'ann', timestamp: new Date(clock).toISOString(), properties: { legacy: 1 } }] });
    clock += 8 * DAY_MS;
    const at = new Date(clock - 3_600_000).toISOString();
    const res = await stack.post('/v1/events', key, {
      events: [
        { name: 'buy', user_id: 'ann', timestamp: at, properties: { plan: 'pro', price: 9.5 } },
        { name: 'buy', user_id: 'bo', timestamp: at, properties: { plan: 'free', 'a b.c': { nested: true } } },
        { name: 'view', user_id: 'bo', timestamp: at },
      ],
    });
    expect(res.status, res.text).toBe(204);
    // A resend of one event is stored once, and counted once.
    await stack.post('/v1/events', key, { events: [{ name: 'buy', user_id: 'ann', timestamp: at, properties: { plan: 'pro', price: 9.5 } }] });

    const names = await stack.admin('GET', `/admin/v1/projects/${project}/property-names`);
    expect(names.status, JSON.stringify(names.body)).toBe(200);
    expect(names.body).toEqual({
      property_names: [
        { name: 'plan', events: 2 },
        { name: 'a b.c', events: 1 },
        { name: 'price', events: 1 },
      ],
    });
    expect((await stack.admin('GET', `/admin/v1/projects/${project}/property-names?limit=1`)).body.property_names).toEqual([{ name: 'plan', events: 2 }]);
    expect((await stack.admin('GET', `/admin/v1/projects/${other}/property-names`)).body).toEqual({ property_names: [] });
    const bad = await stack.admin('GET', `/admin/v1/projects/${project}/property-names?limit=1001`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('limit: limit must be at most 1000');
    expect((await stack.admin('GET', '/admin/v1/projects/nope/property-names')).status).toBe(404);
  });
});
