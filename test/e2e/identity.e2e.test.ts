/** Identity through the local server: $identify links, canonical IDs on stored events, profiles. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestProject, UNTHROTTLED_KEY, type TestStack } from '../helpers/local';

let stack: TestStack;
let project: string;
let web: string;
let server: string;

beforeAll(async () => {
  ({ stack, project, key: web } = await startTestProject('identity'));
  server = await stack.createKey(project, UNTHROTTLED_KEY);
});
afterAll(() => stack.stop());

const events = (projectUser: string) => stack.rawEvents(project).filter((e) => e.sent_user_id === projectUser);
const send = async (key: string, body: unknown) => {
  const res = await stack.post('/v1/events', key, body);
  expect(res.status, res.text).toBe(204);
};

describe('identity', () => {
  it('resolves an anonymous visitor, their login and a server-side purchase to one canonical user with a merged profile', async () => {
    await send(web, { events: [{ name: 'page_view', user_id: 'anon-1', timestamp: '2026-04-01T10:00:00Z' }] });
    await send(web, {
      events: [
        {
          name: '$identify',
          user_id: 'user-1',
          timestamp: '2026-04-01T10:05:00Z',
          properties: { $anonymous_id: 'anon-1', email: 'ann@example.com', name: 'Ann' },
        },
        { name: 'add_to_cart', user_id: 'user-1', timestamp: '2026-04-01T10:06:00Z' },
      ],
    });
    await send(server, { events: [{ name: 'purchase', user_id: 'user-1', timestamp: '2026-04-01T10:07:00Z', properties: { amount: 42 } }] });
    await send(web, { events: [{ name: 'page_view', user_id: 'anon-1', timestamp: '2026-04-01T10:08:00Z' }] });

    const before = events('anon-1').find((e) => e.timestamp === '2026-04-01T10:00:00.000Z')!;
    expect(before.user_id).toBe('anon-1'); // stored before the link: stays as it was
    for (const e of [...events('user-1'), ...events('anon-1')]) expect(e.user_id).toBe('anon-1');
    expect(
      events('user-1')
        .map((e) => e.name)
        .sort(),
    ).toEqual(['$identify', 'add_to_cart', 'purchase']);

    for (const id of ['anon-1', 'user-1']) {
      const res = await stack.admin('GET', `/admin/v1/projects/${project}/users/${id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        user_id: 'anon-1',
        ids: ['anon-1', 'user-1'],
        email: 'ann@example.com',
        name: 'Ann',
        first_seen: expect.stringMatching(/Z$/),
      });
    }
    // The listing's user_id finds the person: any linked ID lists the events of every ID of the group,
    // and `people` names them all by the same label (the email), the canonical ID on each event.
    const everyEvent = ['page_view', 'purchase', 'add_to_cart', '$identify', 'page_view'];
    for (const id of ['user-1', 'anon-1']) {
      const listed = await stack.admin('GET', `/admin/v1/projects/${project}/events?user_id=${id}`);
      expect(listed.body.events.map((e: { name: string }) => e.name)).toEqual(everyEvent);
      expect(listed.body.people).toEqual({ 'anon-1': { label: 'ann@example.com', email: 'ann@example.com', name: 'Ann' } });
      expect(new Set(listed.body.events.map((e: { user_id: string }) => e.user_id))).toEqual(new Set(['anon-1']));
    }
    // An ID nobody linked lists its own events only, and a person without a profile is named by their newest ID.
    await send(web, { events: [{ name: 'page_view', user_id: 'loner' }] });
    const loner = await stack.admin('GET', `/admin/v1/projects/${project}/events?user_id=loner`);
    expect(loner.body.events.map((e: { name: string }) => e.name)).toEqual(['page_view']);
    expect(loner.body.people).toEqual({ loner: { label: 'loner', email: null, name: null } });
  });

  it('makes the user ID canonical when it was seen first', async () => {
    await send(server, { events: [{ name: 'signup', user_id: 'user-2' }] });
    await send(web, { events: [{ name: 'page_view', user_id: 'anon-2' }] });
    await send(web, { events: [{ name: '$identify', user_id: 'user-2', properties: { $anonymous_id: 'anon-2' } }] });
    await send(web, { events: [{ name: 'page_view', user_id: 'anon-2', timestamp: 1767225600 }] });
    expect(events('anon-2').find((e) => e.timestamp === '2026-01-01T00:00:00.000Z')!.user_id).toBe('user-2');
    expect((await stack.admin('GET', `/admin/v1/projects/${project}/users/anon-2`)).body.user_id).toBe('user-2');
  });

  it('merges two groups when their IDs are linked, and writes the links to the identity stream', async () => {
    await send(web, { events: [{ name: '$identify', user_id: 'phone-user', properties: { $anonymous_id: 'phone-anon', name: 'Phone' } }] });
    await send(web, { events: [{ name: '$identify', user_id: 'laptop-user', properties: { $anonymous_id: 'laptop-anon', email: 'l@example.com' } }] });
    await send(web, { events: [{ name: '$identify', user_id: 'laptop-user', properties: { $anonymous_id: 'phone-user' } }] });
    const user = await stack.admin('GET', `/admin/v1/projects/${project}/users/laptop-anon`);
    expect(user.body).toMatchObject({ user_id: 'phone-anon', email: 'l@example.com', name: 'Phone' });
    expect(user.body.ids.sort()).toEqual(['laptop-anon', 'laptop-user', 'phone-anon', 'phone-user']);

    // A query can map every linked ID to its canonical ID by following the latest record of each ID.
    const latest = new Map<string, string>();
    for (const r of stack.identityRecords(project)) latest.set(r.id, r.canonical_id);
    const resolve = (id: string): string => (latest.has(id) && latest.get(id) !== id ? resolve(latest.get(id)!) : id);
    for (const id of ['laptop-anon', 'laptop-user', 'phone-user', 'phone-anon']) expect(resolve(id)).toBe('phone-anon');
  });

  it('a retried batch dedupes even when a link happened between the two tries', async () => {
    const batch = { events: [{ name: 'checkout', user_id: 'retry-user', timestamp: 1767225700 }] };
    stack.firehose.down = true;
    expect((await stack.post('/v1/events', web, batch)).status).toBe(503);
    stack.firehose.down = false;
    await send(web, { events: [{ name: 'checkout', user_id: 'retry-user', timestamp: 1767225700 }] });
    await send(web, { events: [{ name: '$identify', user_id: 'retry-user', properties: { $anonymous_id: 'retry-anon-seen-later' } }] });
    await send(web, batch);
    const stored = events('retry-user').filter((e) => e.name === 'checkout');
    expect(stored).toHaveLength(1);
  });

  it('handles concurrent identifies of one pair', async () => {
    await send(web, { events: [{ name: 'page_view', user_id: 'race-anon', timestamp: '2026-04-01T08:59:00Z' }] });
    await Promise.all(
      // Five different events (the dedupe key is name, user and timestamp: without their own
      // timestamps, two received in the same millisecond would be one event, the second "in flight").
      Array.from({ length: 5 }, (_, i) =>
        send(web, { events: [{ name: '$identify', user_id: 'race-user', timestamp: `2026-04-01T09:00:0${i}Z`, properties: { $anonymous_id: 'race-anon' } }] }),
      ),
    );
    const user = await stack.admin('GET', `/admin/v1/projects/${project}/users/race-user`);
    expect(user.body).toMatchObject({ user_id: 'race-anon', ids: ['race-anon', 'race-user'] });
  });

  it('updates the profile with later values and keeps fields that are absent', async () => {
    await send(web, { events: [{ name: '$identify', user_id: 'prof', timestamp: '2026-04-02T00:00:00Z', properties: { email: 'a@example.com', name: 'A' } }] });
    await send(web, { events: [{ name: '$identify', user_id: 'prof', timestamp: '2026-04-03T00:00:00Z', properties: { email: 'b@example.com' } }] });
    await send(web, { events: [{ name: '$identify', user_id: 'prof', timestamp: '2026-04-01T00:00:00Z', properties: { email: 'older@example.com' } }] });
    const user = await stack.admin('GET', `/admin/v1/projects/${project}/users/prof`);
    expect(user.body).toMatchObject({ user_id: 'prof', email: 'b@example.com', name: 'A' });
  });

  it('answers 404 for an unknown user and keeps projects apart', async () => {
    expect((await stack.admin('GET', `/admin/v1/projects/${project}/users/nobody`)).status).toBe(404);
    const other = await stack.createProject('identity other');
    expect((await stack.admin('GET', `/admin/v1/projects/${other}/users/anon-1`)).status).toBe(404);
  });
});
