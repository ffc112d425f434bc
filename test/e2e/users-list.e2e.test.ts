/** GET /admin/v1/projects/{project_id}/users: the users seen recently, through the local server. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, UNTHROTTLED_KEY, type TestStack } from '../helpers/local';

let stack: TestStack;
let project: string;

beforeAll(async () => {
  stack = await startTestStack();
  project = await stack.createProject('users');
  const key = await stack.createKey(project, UNTHROTTLED_KEY);
  const at = (minute: number) => `2026-04-01T08:${String(minute).padStart(2, '0')}:00Z`;
  const res = await stack.post('/v1/events', key, {
    events: [
      { name: 'page_viewed', user_id: 'anon-1', timestamp: at(0) },
      { name: '$identify', user_id: 'grace', timestamp: at(1), properties: { $anonymous_id: 'anon-1', email: 'grace@example.com', name: 'Grace Hopper' } },
      { name: 'checkout_completed', user_id: 'grace', timestamp: at(2), event_id: 'checkout-1' },
      { name: 'page_viewed', user_id: 'anon-2', timestamp: at(3) },
    ],
  });
  expect(res.status, res.text).toBe(204);
  // A client retry: the same event again, stored as a second raw copy and counted once.
  const retry = await stack.post('/v1/events', key, { events: [{ name: 'checkout_completed', user_id: 'grace', timestamp: at(2), event_id: 'checkout-1' }] });
  expect(retry.status, retry.text).toBe(204);
});
afterAll(() => stack.stop());

describe('recent users', () => {
  it('lists users the most recently seen first, with linked IDs, events and last seen', async () => {
    const res = await stack.admin('GET', `/admin/v1/projects/${project}/users`);
    expect(res.status).toBe(200);
    expect(res.body.users).toEqual([
      {
        user_id: 'anon-2',
        ids: ['anon-2'],
        id_count: 1,
        events: 1,
        last_seen: '2026-04-01T08:03:00.000Z',
        email: null,
        name: null,
        first_seen: expect.any(String),
      },
      // The anonymous ID was seen first, so it is the canonical ID; grace is linked to it. The duplicate
      // copy of checkout_completed counts once: page_viewed + $identify + checkout_completed = 3.
      {
        user_id: 'anon-1',
        ids: ['grace', 'anon-1'],
        id_count: 2,
        events: 3,
        last_seen: '2026-04-01T08:02:00.000Z',
        email: 'grace@example.com',
        name: 'Grace Hopper',
        first_seen: expect.any(String),
      },
    ]);
  });

  it("gives each listed user the same email, name and first seen as the user's page", async () => {
    const list = await stack.admin('GET', `/admin/v1/projects/${project}/users?search=grace`);
    const page = await stack.admin('GET', `/admin/v1/projects/${project}/users/grace`);
    expect(page.status).toBe(200);
    const [user] = list.body.users;
    expect({ email: user.email, name: user.name, first_seen: user.first_seen }).toEqual({
      email: page.body.email,
      name: page.body.name,
      first_seen: page.body.first_seen,
    });
    expect(user.email).toBe('grace@example.com');
  });

  it('searches by any ID and honours the limit', async () => {
    const search = await stack.admin('GET', `/admin/v1/projects/${project}/users?search=GRA&limit=5`);
    expect(search.body.users.map((u: { user_id: string }) => u.user_id)).toEqual(['anon-1']);
    expect((await stack.admin('GET', `/admin/v1/projects/${project}/users?limit=1`)).body.users).toHaveLength(1);
    expect((await stack.admin('GET', `/admin/v1/projects/${project}/users?search=nobody`)).body.users).toEqual([]);
  });

  it('searches by email and by name, ignoring case; an email sent on any other event than $identify is not a profile', async () => {
    const search = async (text: string) =>
      (await stack.admin('GET', `/admin/v1/projects/${project}/users?${new URLSearchParams({ search: text })}`)).body.users.map(
        (u: { user_id: string }) => u.user_id,
      );
    // No ID contains these: only grace's $identify (email grace@example.com, name Grace Hopper) does.
    expect(await search('EXAMPLE.com')).toEqual(['anon-1']);
    expect(await search('hopper')).toEqual(['anon-1']);
    expect(await search('%')).toEqual([]);
    const other = await stack.createProject('users-search');
    const key = await stack.createKey(other, UNTHROTTLED_KEY);
    const res = await stack.post('/v1/events', key, {
      events: [
        { name: 'invite_sent', user_id: 'ada', timestamp: '2026-04-01T09:00:00Z', properties: { email: 'friend@example.com' } },
        { name: '$identify', user_id: 'linus', timestamp: '2026-04-01T09:01:00Z', properties: { email: 'Linus@Example.com' } },
      ],
    });
    expect(res.status, res.text).toBe(204);
    const found = await stack.admin('GET', `/admin/v1/projects/${other}/users?search=example`);
    expect(found.body.users.map((u: { user_id: string; email: string | null }) => [u.user_id, u.email])).toEqual([['linus', 'Linus@Example.com']]);
  });

  describe('search text', () => {
    let other: string;
    const search = async (text: string) => {
      const found = await stack.admin('GET', `/admin/v1/projects/${other}/users?${new URLSearchParams({ search: text })}`);
      expect(found.status, JSON.stringify(found.body)).toBe(200);
      return found.body.users.map((u: { user_id: string }) => u.user_id);
    };
    beforeAll(async () => {
      other = await stack.createProject('users-literal');
      const key = await stack.createKey(other, UNTHROTTLED_KEY);
      const res = await stack.post('/v1/events', key, {
        events: [
          { name: '$identify', user_id: 'u-grace', timestamp: '2026-04-01T09:00:00Z', properties: { name: 'Grace Hopper' } },
          { name: 'page_viewed', user_id: 'ÉMILE-Ωmega', timestamp: '2026-04-01T09:01:00Z' },
          { name: 'page_viewed', user_id: 'İSTANBUL-1', timestamp: '2026-04-01T09:02:00Z' },
        ],
      });
      expect(res.status, res.text).toBe(204);
    });

    it('is taken literally, spaces included', async () => {
      // "grace " is in "Grace Hopper", "hopper " is not.
      expect(await search('grace ')).toEqual(['u-grace']);
      expect(await search(' hopper')).toEqual(['u-grace']);
      expect(await search('hopper ')).toEqual([]);
      expect(await search(' ')).toEqual(['u-grace']);
    });

    it('ignores case with one fold both engines apply alike', async () => {
      // Latin-1 and Greek letters fold; İ (whose lower case is two code points) matches only itself,
      // where DuckDB's lower() would have made it "i" and Athena's need not.
      expect(await search('émile-ωMEGA')).toEqual(['ÉMILE-Ωmega']);
      expect(await search('istanbul')).toEqual([]);
      expect(await search('İstanbul')).toEqual(['İSTANBUL-1']);
    });
  });

  it('pages with next_cursor: every user once, in order, with the same search; a made-up cursor is a 400 saying what to pass', async () => {
    const first = await stack.admin('GET', `/admin/v1/projects/${project}/users?limit=1`);
    expect(first.body.users.map((u: { user_id: string }) => u.user_id)).toEqual(['anon-2']);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await stack.admin('GET', `/admin/v1/projects/${project}/users?${new URLSearchParams({ limit: '1', cursor: first.body.next_cursor })}`);
    expect(second.body.users.map((u: { user_id: string }) => u.user_id)).toEqual(['anon-1']);
    expect(second.body.users[0].email).toBe('grace@example.com');
    expect(second.body.next_cursor).toBeNull();
    expect((await stack.admin('GET', `/admin/v1/projects/${project}/users`)).body.next_cursor).toBeNull();
    // The cursor keeps its place under a search too: past the only match there is nothing.
    const searched = await stack.admin('GET', `/admin/v1/projects/${project}/users?search=anon&limit=1`);
    expect(searched.body.users.map((u: { user_id: string }) => u.user_id)).toEqual(['anon-2']);
    const rest = await stack.admin(
      'GET',
      `/admin/v1/projects/${project}/users?${new URLSearchParams({ search: 'anon', limit: '1', cursor: searched.body.next_cursor })}`,
    );
    expect(rest.body.users.map((u: { user_id: string }) => u.user_id)).toEqual(['anon-1']);
    const bad = await stack.admin('GET', `/admin/v1/projects/${project}/users?cursor=not-a-cursor`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('cursor is not one this listing gave');
    // A cursor whose time is no instant (made up, or edited): refused the same way, not compared as text.
    for (const lastSeen of ['9999-99-99T99:99:99.999Z', 'yesterday', '2026-04-01T08:03:00Z']) {
      const forged = Buffer.from(JSON.stringify([lastSeen, 'anon-2'])).toString('base64url');
      const res = await stack.admin('GET', `/admin/v1/projects/${project}/users?cursor=${forged}`);
      expect(res.status, lastSeen).toBe(400);
      expect(res.body.error).toContain('cursor is not one this listing gave');
    }
  });

  it('refuses a bad limit or an empty search by name, an unknown project with 404, and no token with 401', async () => {
    const bad = await stack.admin('GET', `/admin/v1/projects/${project}/users?limit=201`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/limit must be at most 200/);
    expect((await stack.admin('GET', `/admin/v1/projects/${project}/users?search=`)).body.error).toMatch(/search must not be empty/);
    expect((await stack.admin('GET', '/admin/v1/projects/00000000-0000-4000-8000-000000000000/users')).status).toBe(404);
    expect((await fetch(`${stack.url}/admin/v1/projects/${project}/users`)).status).toBe(401);
  });
});
