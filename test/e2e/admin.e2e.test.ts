/** The admin API for projects, keys and the recent-events listing. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../helpers/local';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

describe('admin API', () => {
  it('refuses a wrong or missing admin token with 401', async () => {
    for (const headers of [{}, { Authorization: 'Bearer wrong-token-wrong-token' }] as Record<string, string>[]) {
      const res = await fetch(`${stack.url}/admin/v1/projects`, { headers });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: 'Invalid or missing admin token' });
    }
  });

  it('creates and lists projects', async () => {
    const created = await stack.admin('POST', '/admin/v1/projects', { name: 'Shop' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'Shop', created_at: expect.stringMatching(/Z$/) });
    const list = await stack.admin('GET', '/admin/v1/projects');
    expect(list.body.projects).toContainEqual(created.body);
  });

  it('names the field in a malformed body', async () => {
    expect((await stack.admin('POST', '/admin/v1/projects', {})).body.error).toMatch(/^name: name is required/);
    expect((await stack.admin('POST', '/admin/v1/projects', { name: 5 })).status).toBe(400);
    const bad = await fetch(`${stack.url}/admin/v1/projects`, {
      method: 'POST',
      headers: { Authorization: 'Bearer test-admin-token-0123456789' },
      body: '{"name":',
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/Invalid JSON body/);
  });

  it('creates keys with plan defaults, shows the value once, and stores only a hash', async () => {
    const project = await stack.createProject('keys');
    const free = await stack.admin('POST', `/admin/v1/projects/${project}/keys`, {});
    expect(free.status).toBe(201);
    expect(free.body).toMatchObject({
      key: expect.stringMatching(/^tally_/),
      plan: 'free',
      rate_limit_per_minute: 100,
      allowed_origins: [],
      allowed_bundle_ids: [],
    });
    const pro = await stack.admin('POST', `/admin/v1/projects/${project}/keys`, { plan: 'pro', allowed_origins: ['https://App.Example.com/'] });
    expect(pro.body).toMatchObject({ plan: 'pro', rate_limit_per_minute: 1000, allowed_origins: ['https://app.example.com'] });
    const ent = await stack.admin('POST', `/admin/v1/projects/${project}/keys`, {
      plan: 'enterprise',
      rate_limit_per_minute: 5000,
      allowed_bundle_ids: ['com.acme'],
    });
    expect(ent.body).toMatchObject({ plan: 'enterprise', rate_limit_per_minute: 5000, allowed_bundle_ids: ['com.acme'] });

    const list = await stack.admin('GET', `/admin/v1/projects/${project}/keys`);
    expect(list.body.keys.map((k: { id: string }) => k.id)).toEqual([free.body.id, pro.body.id, ent.body.id]);
    const listed = JSON.stringify(list.body);
    expect(listed).not.toContain(free.body.key);
    expect(listed).not.toContain('key_hash');
    const stored = await stack.deps.keys.listByProject(project);
    expect(JSON.stringify(stored)).not.toContain(free.body.key);
  });

  it('validates key options by field', async () => {
    const project = await stack.createProject('key validation');
    const cases: Array<[unknown, RegExp]> = [
      [{ plan: 'gold' }, /plan: plan must be one of free, pro, enterprise/],
      [{ rate_limit_per_minute: 1.5 }, /rate_limit_per_minute/],
      [{ allowed_origins: ['not a url'] }, /allowed_origins\.0/],
      [{ allowed_bundle_ids: 'com.acme' }, /allowed_bundle_ids/],
    ];
    for (const [body, pattern] of cases) {
      const res = await stack.admin('POST', `/admin/v1/projects/${project}/keys`, body);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(pattern);
    }
  });

  it('answers 404 for unknown projects and keys', async () => {
    const unknown = '00000000-0000-0000-0000-000000000000';
    for (const [method, path] of [
      ['GET', `/admin/v1/projects/${unknown}/keys`],
      ['POST', `/admin/v1/projects/${unknown}/keys`],
      ['GET', `/admin/v1/projects/${unknown}/events`],
    ] as const) {
      const res = await stack.admin(method, path, method === 'POST' ? {} : undefined);
      expect(res.status).toBe(404);
      expect(res.body.error).toMatch(/Project .* not found/);
    }
    const project = await stack.createProject('no keys');
    expect((await stack.admin('DELETE', `/admin/v1/projects/${project}/keys/${unknown}`)).status).toBe(404);
  });

  it('a key of one project cannot be revoked through another project', async () => {
    const a = await stack.createProject('a');
    const b = await stack.createProject('b');
    const key = await stack.admin('POST', `/admin/v1/projects/${a}/keys`, {});
    expect((await stack.admin('DELETE', `/admin/v1/projects/${b}/keys/${key.body.id}`)).status).toBe(404);
    expect((await stack.post('/v1/events', key.body.key, { events: [] })).status).toBe(204);
  });

  it('lists stored events newest first, filtered by user_id, name and limit, per project', async () => {
    const project = await stack.createProject('listing');
    const key = await stack.createKey(project);
    const other = await stack.createProject('listing other');
    const otherKey = await stack.createKey(other);
    await stack.post('/v1/events', key, {
      events: [
        { name: 'view', user_id: 'ann', timestamp: '2026-01-01T10:00:00Z', properties: { n: 1 } },
        { name: 'buy', user_id: 'ann', timestamp: '2026-01-01T11:00:00Z' },
        { name: 'view', user_id: 'bo', timestamp: '2026-01-01T12:00:00Z' },
      ],
    });
    await stack.post('/v1/events', otherKey, { events: [{ name: 'view', user_id: 'ann', timestamp: '2026-01-01T13:00:00Z' }] });
    const all = await stack.admin('GET', `/admin/v1/projects/${project}/events`);
    expect(all.body.events.map((e: any) => `${e.name}:${e.user_id}`)).toEqual(['view:bo', 'buy:ann', 'view:ann']);
    expect(all.body.events[2]).toMatchObject({
      event_id: null,
      session_id: null,
      timestamp: '2026-01-01T10:00:00.000Z',
      properties: { n: 1 },
      country: null,
      region: null,
      city: null,
      platform: null,
    });
    const ann = await stack.admin('GET', `/admin/v1/projects/${project}/events?user_id=ann&name=view`);
    expect(ann.body.events).toHaveLength(1);
    const limited = await stack.admin('GET', `/admin/v1/projects/${project}/events?limit=1`);
    expect(limited.body.events.map((e: any) => e.name)).toEqual(['view']);
    const bad = await stack.admin('GET', `/admin/v1/projects/${project}/events?limit=0`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/limit/);
  });

  it('names the events received recently with their counts, the most first, per project', async () => {
    const project = await stack.createProject('names');
    const key = await stack.createKey(project);
    const other = await stack.createProject('names other');
    await stack.post('/v1/events', key, {
      events: [
        { name: 'view', user_id: 'ann', timestamp: '2026-01-01T10:00:00Z' },
        { name: 'buy', user_id: 'ann', timestamp: '2026-01-01T11:00:00Z' },
        { name: 'view', user_id: 'bo', timestamp: '2026-01-01T12:00:00Z' },
        { name: 'add', user_id: 'bo', timestamp: '2026-01-02T12:00:00Z' },
      ],
    });
    // A resend of one event is stored once, and counted once.
    await stack.post('/v1/events', key, { events: [{ name: 'view', user_id: 'bo', timestamp: '2026-01-01T12:00:00Z' }] });
    const names = await stack.admin('GET', `/admin/v1/projects/${project}/event-names`);
    expect(names.status).toBe(200);
    expect(names.body).toEqual({
      event_names: [
        { name: 'view', events: 2, last_seen: '2026-01-01T12:00:00.000Z' },
        { name: 'add', events: 1, last_seen: '2026-01-02T12:00:00.000Z' },
        { name: 'buy', events: 1, last_seen: '2026-01-01T11:00:00.000Z' },
      ],
    });
    expect((await stack.admin('GET', `/admin/v1/projects/${project}/event-names?limit=1`)).body.event_names).toHaveLength(1);
    expect((await stack.admin('GET', `/admin/v1/projects/${other}/event-names`)).body).toEqual({ event_names: [] });
    const bad = await stack.admin('GET', `/admin/v1/projects/${project}/event-names?limit=1001`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('limit: limit must be at most 1000');
    expect((await stack.admin('GET', '/admin/v1/projects/nope/event-names')).status).toBe(404);
  });
});
