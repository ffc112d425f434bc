/**
 * Suppression through the local server (docs/privacy.md "Suppression", domain/suppression.ts): after
 * a deletion with `suppress: true` is answered, events of every ID of the person (and an `$identify`
 * linking one of them) are accepted with 204 and never stored, linked or listed, while another user's
 * events of the same batch are stored; an ID deleted without suppress becomes a new person.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, UNTHROTTLED_KEY, type TestStack } from '../helpers/local';
import { testDuckDb, type TestDuckDb } from '../helpers/duckdb';
import { analystCounts as countsOf } from '../helpers/person-counts';

const HOUR = 3_600_000;
let now = Date.parse('2026-04-15T09:30:00Z');
let stack: TestStack;
let duck: TestDuckDb;
let project: string;
let key: string;

const CAT = ['cat', 'cat-phone'];

const send = async (events: unknown[]) => {
  const res = await stack.post('/v1/events', key, { events });
  expect(res.status, res.text).toBe(204);
};

const analystCounts = (ids: string[]) => countsOf(stack, duck, ids);

const deletePerson = async (body: Record<string, unknown>) => {
  const res = await stack.admin('POST', `/admin/v1/projects/${project}/deletions`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.deletion as { id: string; suppress: boolean };
};

beforeAll(async () => {
  stack = await startTestStack({ clock: () => now });
  duck = await testDuckDb();
  project = await stack.createProject('suppression');
  key = await stack.createKey(project, UNTHROTTLED_KEY);
  await send([
    { name: 'view', user_id: 'cat-phone', timestamp: '2026-04-09T10:00:00Z' },
    { name: '$identify', user_id: 'cat', timestamp: '2026-04-09T10:01:00Z', properties: { $anonymous_id: 'cat-phone', email: 'cat@example.com' } },
    { name: 'view', user_id: 'dan', timestamp: '2026-04-09T11:00:00Z' },
    { name: 'view', user_id: 'bob', timestamp: '2026-04-09T12:00:00Z' },
  ]);
});
afterAll(async () => {
  duck?.close();
  await stack?.stop();
});

describe('a deletion with suppress', () => {
  it("drops every later event of the person's IDs from the moment it is answered, and stores the rest of the batch", async () => {
    now = Date.parse('2026-04-15T09:40:00Z');
    const deletion = await deletePerson({ user_id: 'cat-phone', suppress: true });
    expect(deletion.suppress).toBe(true);

    // Before the deletion has run: her IDs (the one asked for, and the one linked to it), and an
    // $identify linking her device to a new account, are accepted and dropped; Bob's event is stored.
    now = Date.parse('2026-04-15T09:41:00Z');
    await send([
      { name: 'view', user_id: 'cat', timestamp: '2026-04-15T09:41:00Z' },
      { name: 'view', user_id: 'cat-phone', timestamp: '2026-04-15T09:41:01Z' },
      { name: '$identify', user_id: 'eve', timestamp: '2026-04-15T09:41:02Z', properties: { $anonymous_id: 'cat-phone' } },
      { name: 'view', user_id: 'bob', timestamp: '2026-04-15T09:41:03Z' },
    ]);
    const raw = () => stack.rawEvents(project).map((e) => e.sent_user_id);
    expect(raw().filter((id) => id === 'bob')).toHaveLength(2);
    expect(raw()).not.toContain('eve');
    expect(raw().filter((id) => CAT.includes(id ?? ''))).toHaveLength(2); // the two from before the request only

    await stack.compaction.runNow();
    const done = await stack.admin('GET', `/admin/v1/projects/${project}/deletions/${deletion.id}`);
    expect(done.body.deletion).toMatchObject({ state: 'done', suppress: true, ids: CAT });

    // After it ran: still dropped, the same batch's other user still stored.
    now = Date.parse('2026-04-15T09:50:00Z');
    await send([
      { name: 'view', user_id: 'cat', timestamp: '2026-04-15T09:50:00Z' },
      { name: '$identify', user_id: 'cat', timestamp: '2026-04-15T09:50:01Z', properties: { $anonymous_id: 'cat-tablet', name: 'Cat' } },
      { name: 'view', user_id: 'bob', timestamp: '2026-04-15T09:50:02Z' },
    ]);
    // The same event again is dropped again (it was never recorded as stored, nor as seen).
    await send([{ name: 'view', user_id: 'cat', timestamp: '2026-04-15T09:50:00Z' }]);

    // Asking for her variants: 200 with none, and nothing stored for her (no identity item, link or
    // assignment); Bob, asking in the same way, is assigned.
    const created = await stack.admin('POST', `/admin/v1/projects/${project}/experiments`, { name: 'Paywall', goal_event: 'purchase' });
    expect((await stack.admin('POST', `/admin/v1/projects/${project}/experiments/${created.body.id}/start`)).status).toBe(200);
    const variantsOf = async (query: string) => {
      const res = await fetch(`${stack.url}/v1/experiments?${query}`, { headers: { Authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
      return ((await res.json()) as { assigned_variants: Record<string, string> }).assigned_variants;
    };
    for (const query of ['user_id=cat', 'anonymous_id=cat-phone', 'user_id=cat-new-account&anonymous_id=cat-phone', 'user_id=cat&anonymous_id=cat-tablet']) {
      expect(await variantsOf(query), query).toEqual({});
    }
    expect(Object.keys(await variantsOf('user_id=bob'))).toEqual(['Paywall']);
    for (const id of [...CAT, 'cat-new-account', 'cat-tablet'])
      expect(await stack.deps.assignments.getMany(project, [created.body.id], id), id).toEqual(new Map());

    await stack.compaction.runNow(now + 2 * HOUR);
    const gone = { events: 0, unique_events: 0, landing_events: 0, curated_events: 0, identities: 0, curated_identities: 0 };
    expect(await analystCounts([...CAT, 'eve', 'cat-tablet', 'cat-new-account'])).toEqual(gone);
    expect(await analystCounts(['bob'])).toMatchObject({ events: 3, unique_events: 3 });
    expect(stack.rawEvents(project).filter((e) => [...CAT, 'eve', 'cat-tablet'].includes(e.sent_user_id ?? ''))).toEqual([]);
    expect(
      stack.identityRecords(project).filter((r) => [...CAT, 'eve', 'cat-tablet', 'cat-new-account'].some((id) => r.id === id || r.canonical_id === id)),
    ).toEqual([]);
    for (const id of [...CAT, 'eve', 'cat-tablet', 'cat-new-account'])
      expect((await stack.admin('GET', `/admin/v1/projects/${project}/users/${id}`)).status).toBe(404);
    const users = await stack.admin('GET', `/admin/v1/projects/${project}/users`);
    expect(users.body.users.map((u: { user_id: string }) => u.user_id).sort()).toEqual(['bob', 'dan']);
    for (const search of ['cat', 'cat@example.com']) {
      expect((await stack.admin('GET', `/admin/v1/projects/${project}/users?search=${encodeURIComponent(search)}`)).body.users).toEqual([]);
    }
    const listed = await stack.admin('GET', `/admin/v1/projects/${project}/events`);
    expect(new Set(listed.body.events.map((e: { sent_user_id: string }) => e.sent_user_id))).toEqual(new Set(['bob', 'dan']));
  });

  it('without suppress, an ID that sends again after its deletion is a new person: its events are stored', async () => {
    now = Date.parse('2026-04-15T12:00:00Z');
    const deletion = await deletePerson({ user_id: 'dan' });
    await stack.compaction.runNow();
    expect((await stack.admin('GET', `/admin/v1/projects/${project}/deletions/${deletion.id}`)).body.deletion.state).toBe('done');
    expect(await analystCounts(['dan'])).toMatchObject({ events: 0, unique_events: 0, identities: 0 });

    now = Date.parse('2026-04-15T12:10:00Z');
    await send([{ name: 'view', user_id: 'dan', timestamp: '2026-04-15T12:10:00Z' }]);
    await stack.compaction.runNow(now + 2 * HOUR);
    expect(await analystCounts(['dan'])).toMatchObject({ events: 1, unique_events: 1 });
    expect((await stack.admin('GET', `/admin/v1/projects/${project}/users/dan`)).status).toBe(200);
  });

  it('refuses an ID with NUL or broken Unicode, in an event as in a deletion, and stores the batch of a user not suppressed', async () => {
    for (const user_id of ['cat\u0000', 'cat\ud800']) {
      const res = await stack.post('/v1/events', key, { events: [{ name: 'view', user_id, timestamp: '2026-04-15T12:20:00Z' }] });
      expect(res.status, res.text).toBe(400);
      const asked = await stack.admin('POST', `/admin/v1/projects/${project}/deletions`, { user_id, suppress: true });
      expect(asked.status).toBe(400);
      expect(JSON.stringify(asked.body)).toMatch(/user_id (contains U\+0000|is not well-formed Unicode).*no event can carry such an ID/);
    }
    // A user whose ID only starts like a suppressed one is stored.
    now = Date.parse('2026-04-15T12:30:00Z');
    await send([{ name: 'view', user_id: 'cat-phone2', timestamp: '2026-04-15T12:31:00Z' }]);
    expect(stack.rawEvents(project).filter((e) => e.sent_user_id === 'cat-phone2')).toHaveLength(1);
  });
});
