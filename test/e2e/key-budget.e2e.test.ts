/**
 * IDs become DynamoDB keys, which AWS limits in UTF-8 bytes (dynalite counts UTF-16 units and would
 * accept them): over-long IDs get a 400 naming the field and the event, before anything is stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestProject, type TestStack } from '../helpers/local';

let stack: TestStack;
let project: string;
let key: string;

beforeAll(async () => {
  ({ stack, project, key } = await startTestProject('key budget'));
  const exp = await stack.admin('POST', `/admin/v1/projects/${project}/experiments`, { name: 'budget', goal_event: 'buy' });
  await stack.admin('POST', `/admin/v1/projects/${project}/experiments/${exp.body.id}/start`);
});
afterAll(() => stack.stop());

const ok = { name: 'fine', user_id: 'u-ok', timestamp: 1767225600 };

describe('IDs longer than a DynamoDB key allows', () => {
  it('an $anonymous_id of 1,000 "é" (2,000 bytes) gets 400 naming the field and the event, and nothing of the batch is stored', async () => {
    // Within the 1,024 characters of an ID field (which an $identify's $anonymous_id follows too), over the bytes.
    const identify = { name: '$identify', user_id: 'u-anon-long', properties: { $anonymous_id: 'é'.repeat(1000) } };
    const res = await stack.post('/v1/events', key, { events: [ok, identify] });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('Validation failed');
    expect(res.json.details).toEqual([{ index: 1, error: expect.stringMatching(/properties\.\$anonymous_id is 2000 bytes.*at most 1024 bytes/) }]);
    const api = await stack.post('/api/events', key, { events: [identify] });
    expect(api.status).toBe(400);
    expect(api.json.error).toMatch(/\$anonymous_id is 2000 bytes/);
    expect(stack.rawEvents(project)).toHaveLength(0);
  });

  it('a user_id of 1,024 "é" (1,024 characters, 2,048 bytes) gets 400; 1,024 ASCII characters are accepted', async () => {
    const res = await stack.post('/v1/events', key, { events: [{ name: 'e', user_id: 'é'.repeat(1024) }] });
    expect(res.status).toBe(400);
    expect(res.json.details).toEqual([{ index: 0, error: expect.stringMatching(/^user_id is 2048 bytes as UTF-8/) }]);
    expect(stack.rawEvents(project)).toHaveLength(0);

    expect((await stack.post('/v1/events', key, { events: [{ name: 'e', user_id: 'x'.repeat(1024) }] })).status).toBe(204);
    expect((await stack.post('/v1/events', key, { events: [{ name: 'e', user_id: 'é'.repeat(512) }] })).status).toBe(204);
  });

  it('GET /v1/experiments answers 200 with no assignments for an ID over the budget, and assigns one within it', async () => {
    const get = (query: string) => fetch(`${stack.url}/v1/experiments?${query}`, { headers: { Authorization: `Bearer ${key}` } });
    for (const query of [`user_id=${encodeURIComponent('é'.repeat(1024))}`, `user_id=u1&anonymous_id=${encodeURIComponent('é'.repeat(600))}`]) {
      const res = await get(query);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ assigned_variants: {} });
    }
    const fits = await get(`user_id=${encodeURIComponent('é'.repeat(512))}`);
    expect(Object.keys(((await fits.json()) as { assigned_variants: object }).assigned_variants)).toEqual(['budget']);
  });

  it('the admin user lookup answers 404 for an ID over the budget (it can never have been stored)', async () => {
    const res = await stack.admin('GET', `/admin/v1/projects/${project}/users/${'a'.repeat(3000)}`);
    expect(res.status).toBe(404);
  });

  it('admin paths with an over-long project, experiment or key ID answer 404, not a storage error', async () => {
    const long = 'a'.repeat(3000);
    expect((await stack.admin('GET', `/admin/v1/projects/${long}/experiments`)).status).toBe(404);
    expect((await stack.admin('GET', `/admin/v1/projects/${project}/experiments/${long}`)).status).toBe(404);
    expect((await stack.admin('GET', `/admin/v1/projects/${project}/experiments/${long}/results`)).status).toBe(404);
    expect((await stack.admin('DELETE', `/admin/v1/projects/${project}/keys/${long}`)).status).toBe(404);
  });
});
