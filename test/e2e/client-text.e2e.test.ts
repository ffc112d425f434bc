/**
 * The text rule (docs/api.md, "Text from clients"; issue 19, cases 1 and 4), through the local server:
 * a string that is not well-formed Unicode, or an ID, name or property key holding U+0000, is refused
 * with a 400 naming the field and the rule, before anything is stored or looked up. So two different
 * IDs never become one stored key, and an admin filter never reaches SQL with a value it cannot carry.
 *
 * The bodies are JSON.stringify of JavaScript strings: a lone surrogate is sent as the escape "\ud800",
 * as an SDK that cut a string inside an emoji would send it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestProject, type TestStack } from '../helpers/local';

let stack: TestStack;
let project: string;
let key: string;

beforeAll(async () => {
  ({ stack, project, key } = await startTestProject('client text'));
});
afterAll(() => stack.stop());

const NOT_WELL_FORMED = 'is not well-formed Unicode: it contains an unpaired UTF-16 surrogate (such as half of an emoji cut off)';
const HAS_NUL = 'contains U+0000 (NUL), which Tally does not accept in IDs, names and property keys';

const eventsOf = (sentUserId: string) => stack.rawEvents(project).filter((e) => e.sent_user_id === sentUserId);
const user = async (id: string) => stack.admin('GET', `/admin/v1/projects/${project}/users/${encodeURIComponent(id)}`);
const listing = async (query: string) => stack.admin('GET', `/admin/v1/projects/${project}/events?${query}`);

describe.each(['/v1/events', '/api/events'])('%s', (path) => {
  const api = path === '/api/events';
  const tag = api ? 'api' : 'v1';
  /** The one failing event's message, in the path's error shape (details on /v1, folded into error on /api). */
  const refused = (res: { status: number; json: any; text: string }, index = 0): string => {
    expect(res.status, res.text).toBe(400);
    if (api) {
      const m = /^Validation failed: event (\d+): (.*)$/s.exec(res.json.error);
      expect(m, res.json.error).not.toBeNull();
      expect(Number(m![1])).toBe(index);
      return m![2]!;
    }
    expect(res.json.error).toBe('Validation failed');
    expect(res.json.details).toHaveLength(1);
    expect(res.json.details[0].index).toBe(index);
    return res.json.details[0].error;
  };
  const send = (body: unknown) => stack.post(path, key, body);

  it('case 1: user IDs differing only in a lone surrogate are refused, instead of becoming one stored key', async () => {
    const [a, b] = [`z1-${tag}\ud800`, `z1-${tag}\udc00`];
    expect(refused(await send({ events: [{ name: 'e', user_id: a }] }))).toBe(`user_id ${NOT_WELL_FORMED}`);
    // On main this one failed with 500 on every retry: both IDs had become one identity key.
    expect(refused(await send({ events: [{ name: 'e', user_id: b }] }))).toBe(`user_id ${NOT_WELL_FORMED}`);
    expect(stack.rawEvents(project).filter((e) => e.sent_user_id?.startsWith(`z1-${tag}`))).toEqual([]);
    // A whole emoji (a surrogate pair) is well-formed and stays accepted, stored exactly as sent.
    const emoji = `z1-${tag}\ud83d\ude00`;
    expect((await send({ events: [{ name: 'e', user_id: emoji }] })).status).toBe(api ? 200 : 204);
    expect(eventsOf(emoji)).toHaveLength(1);
  });

  it('case 1: $identify with anonymous IDs differing only in a lone surrogate merges no one', async () => {
    const [userA, userB] = [`lsA-${tag}`, `lsB-${tag}`];
    const identify = (userId: string, anonymousId: string) =>
      send({ events: [{ name: '$identify', user_id: userId, properties: { $anonymous_id: anonymousId } }] });
    expect(refused(await identify(userA, `x-${tag}\ud800R`))).toBe(`properties.$anonymous_id ${NOT_WELL_FORMED}`);
    expect(refused(await identify(userB, `x-${tag}\udbffR`))).toBe(`properties.$anonymous_id ${NOT_WELL_FORMED}`);
    for (const id of [userA, userB]) expect((await send({ events: [{ name: 'later', user_id: id }] })).status).toBe(api ? 200 : 204);
    for (const id of [userA, userB]) expect((await user(id)).body).toMatchObject({ user_id: id, ids: [id] });
    expect(stack.identityRecords(project)).toEqual([]);
  });

  it('every ID, name, device field and property key is checked, from the event or the context, at any depth', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ events: [{ name: 'bad\udfff' }] }, `name ${NOT_WELL_FORMED}`],
      [{ events: [{ name: 'bad\u0000' }] }, `name ${HAS_NUL}`],
      [{ events: [{ name: 'e', user_id: 'nul\u0000user' }] }, `user_id ${HAS_NUL}`],
      [{ events: [{ name: 'e', userId: 'camel\ud800' }] }, `user_id ${NOT_WELL_FORMED}`],
      [{ events: [{ name: 'e', session_id: '\udc00s' }] }, `session_id ${NOT_WELL_FORMED}`],
      [{ events: [{ name: 'e', client_event_id: 'id\u0000' }] }, `event_id ${HAS_NUL}`],
      [{ events: [{ name: 'e', platform: 'web\ud800' }] }, `platform ${NOT_WELL_FORMED}`],
      [{ events: [{ name: 'e' }], context: { locale: 'en\u0000' } }, `locale ${HAS_NUL}`],
      [{ events: [{ name: 'e' }], context: { timezone: 'UTC\udbff' } }, `timezone ${NOT_WELL_FORMED}`],
      [{ events: [{ name: '$identify', user_id: 'u', properties: { $anonymous_id: 'a\u0000' } }] }, `properties.$anonymous_id ${HAS_NUL}`],
      [{ events: [{ name: 'e', properties: { 'k\ud800': 1 } }] }, `a key in properties ${NOT_WELL_FORMED}`],
      [{ events: [{ name: 'e', properties: { cart: { items: [{ 'sku\u0000': 'x' }] } } }] }, `a key in properties.cart.items[0] ${HAS_NUL}`],
      [{ events: [{ name: 'e', properties: { title: 'caf\ud83d' } }] }, `properties.title ${NOT_WELL_FORMED}`],
      [{ events: [{ name: 'e', properties: { tags: ['ok', 'cut\udc00'] } }] }, `properties.tags[1] ${NOT_WELL_FORMED}`],
    ];
    for (const [body, message] of cases) expect(refused(await send(body)), message).toBe(message);
    // The failing event is named by its index; the batch is refused as a whole (spec rule 1).
    expect(refused(await send({ events: [{ name: 'fine' }, { name: 'e', user_id: 'u\ud800' }] }), 1)).toBe(`user_id ${NOT_WELL_FORMED}`);
    expect(stack.rawEvents(project).filter((e) => e.name === 'fine' || e.name.startsWith('bad'))).toEqual([]);
  });

  it('U+0000 in a property value is data: stored and listed back as sent', async () => {
    const sent = `nul-value-${tag}`;
    expect((await send({ events: [{ name: 'nul_value', user_id: sent, properties: { note: 'a\u0000b', deep: ['\u0000'] } }] })).status).toBe(api ? 200 : 204);
    expect(eventsOf(sent).map((e) => e.properties)).toEqual([{ note: 'a\u0000b', deep: ['\u0000'] }]);
    const listed = await listing(`user_id=${sent}`);
    expect(listed.status).toBe(200);
    expect(listed.body.events.map((e: any) => e.properties)).toEqual([{ note: 'a\u0000b', deep: ['\u0000'] }]);
  });
});

describe('other control characters', () => {
  it('are accepted in IDs, stored as sent, and found by the listing filter and the users lookup', async () => {
    const id = 'tab\there\nline\u0001\u001f\u007f';
    expect((await stack.post('/v1/events', key, { events: [{ name: 'ctl\tname', user_id: id }] })).status).toBe(204);
    expect(eventsOf(id).map((e) => e.name)).toEqual(['ctl\tname']);
    const listed = await listing(new URLSearchParams({ user_id: id, name: 'ctl\tname' }).toString());
    expect(listed.status).toBe(200);
    expect(listed.body.events.map((e: any) => e.sent_user_id)).toEqual([id]);
    expect((await user(id)).body).toMatchObject({ user_id: id, ids: [id] });
  });
});

describe('case 4: the admin API refuses what no stored ID or name can hold, never with a 500', () => {
  it('a NUL in the events listing filters is a 400 naming the filter and the rule', async () => {
    for (const [query, message] of [
      ['user_id=nul%00user', `user_id: user_id ${HAS_NUL}`],
      ['name=a%00b', `name: name ${HAS_NUL}`],
    ] as const) {
      const res = await listing(query);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body).toEqual({ error: message });
    }
  });

  it('a NUL in a users lookup is a 400 too', async () => {
    const res = await stack.admin('GET', `/admin/v1/projects/${project}/users/nul%00user`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: `id ${HAS_NUL}` });
  });

  it('percent-encoded bytes that are not UTF-8 match nothing: 200 with no rows', async () => {
    // %ED%A0%80 would be a surrogate's UTF-8 form, which UTF-8 forbids; URL decoding reads it as U+FFFD.
    const res = await listing('user_id=z1%ED%A0%80');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ events: [], people: {} });
  });
});

describe('GET /v1/experiments', () => {
  it('answers an ID breaking the rule with no assignments (200, as the spec requires) and records nothing', async () => {
    const res = await fetch(`${stack.url}/v1/experiments?user_id=nul%00id`, { headers: { Authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ assigned_variants: {} });
    const both = await fetch(`${stack.url}/v1/experiments?user_id=fine-id&anonymous_id=nul%00anon`, { headers: { Authorization: `Bearer ${key}` } });
    expect(await both.json()).toEqual({ assigned_variants: {} });
    expect((await user('fine-id')).status).toBe(404);
  });
});

describe('admin bodies', () => {
  it('experiment names, variants and goal events follow the rule (they become claims and SQL literals)', async () => {
    const create = (body: Record<string, unknown>) => stack.admin('POST', `/admin/v1/projects/${project}/experiments`, body);
    for (const [body, message] of [
      [{ name: 'Checkout \ud800', goal_event: 'purchase' }, `name: name ${NOT_WELL_FORMED}`],
      [{ name: 'Checkout', goal_event: 'pur\u0000chase' }, `goal_event: goal_event ${HAS_NUL}`],
      [{ name: 'Checkout', goal_event: 'purchase', variants: ['a', 'b\udc00'] }, `variants.1: a variant ${NOT_WELL_FORMED}`],
    ] as const) {
      const res = await create(body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body).toEqual({ error: message });
    }
    expect((await stack.admin('GET', `/admin/v1/projects/${project}/experiments`)).body.experiments).toEqual([]);
  });
});
