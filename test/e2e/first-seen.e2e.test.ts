/**
 * A person's first seen is the earliest event's `timestamp` (not when events arrived), the same in People
 * and on the person's page, and never after last seen: also after a backfill of older events sent later.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, UNTHROTTLED_KEY, type TestStack } from '../helpers/local';

let stack: TestStack;
let project: string;
let key: string;

const at = (day: number, hour: number) => `2026-04-${String(day).padStart(2, '0')}T${String(hour).padStart(2, '0')}:00:00.000Z`;

async function send(events: unknown[]) {
  const res = await stack.post('/v1/events', key, { events });
  expect(res.status, res.text).toBe(204);
}

async function listed(search: string) {
  const res = await stack.admin('GET', `/admin/v1/projects/${project}/users?${new URLSearchParams({ search })}`);
  expect(res.status).toBe(200);
  expect(res.body.users).toHaveLength(1);
  return res.body.users[0] as { user_id: string; first_seen: string; last_seen: string };
}

async function page(id: string) {
  const res = await stack.admin('GET', `/admin/v1/projects/${project}/users/${encodeURIComponent(id)}`);
  expect(res.status).toBe(200);
  return res.body as { first_seen: string };
}

beforeAll(async () => {
  stack = await startTestStack();
  project = await stack.createProject('first-seen');
  key = await stack.createKey(project, UNTHROTTLED_KEY);
});
afterAll(() => stack.stop());

describe('first seen', () => {
  it('is the earliest event time of the person, in People and on the page, before last seen', async () => {
    await send([
      { name: 'page_viewed', user_id: 'pat', timestamp: at(10, 9) },
      { name: 'page_viewed', user_id: 'pat', timestamp: at(12, 9) },
    ]);
    let user = await listed('pat');
    expect(user.first_seen).toBe(at(10, 9));
    expect(user.last_seen).toBe(at(12, 9));

    // A backfill: an older event, sent after the newer ones.
    await send([{ name: 'signed_up', user_id: 'pat', timestamp: at(2, 7) }]);
    user = await listed('pat');
    expect(user.first_seen).toBe(at(2, 7));
    expect(user.last_seen).toBe(at(12, 9));
    expect(Date.parse(user.first_seen)).toBeLessThanOrEqual(Date.parse(user.last_seen));
    expect((await page('pat')).first_seen).toBe(at(2, 7));

    // A later batch with a newer event does not move it forward.
    await send([{ name: 'page_viewed', user_id: 'pat', timestamp: at(14, 9) }]);
    user = await listed('pat');
    expect({ first_seen: user.first_seen, last_seen: user.last_seen }).toEqual({ first_seen: at(2, 7), last_seen: at(14, 9) });
  });

  it('takes the earliest event of any linked ID, also one backfilled under the signed-in ID', async () => {
    await send([
      { name: 'page_viewed', user_id: 'anon-kim', timestamp: at(20, 10) },
      { name: '$identify', user_id: 'kim', timestamp: at(20, 11), properties: { $anonymous_id: 'anon-kim', name: 'Kim' } },
    ]);
    expect((await page('kim')).first_seen).toBe(at(20, 10));
    await send([{ name: 'order_placed', user_id: 'kim', timestamp: at(5, 8) }]);
    const user = await listed('kim');
    expect(user.first_seen).toBe(at(5, 8));
    expect((await page('anon-kim')).first_seen).toBe(at(5, 8));
    expect(Date.parse(user.first_seen)).toBeLessThanOrEqual(Date.parse(user.last_seen));
  });
});
