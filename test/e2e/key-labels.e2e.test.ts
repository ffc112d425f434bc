/** A project key's optional label: given at creation, shown in the list, renamed or removed with PATCH; validated by field. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../helpers/local';

let stack: TestStack;
let project: string;
const keysPath = () => `/admin/v1/projects/${project}/keys`;

beforeAll(async () => {
  stack = await startTestStack();
  project = await stack.createProject('labels');
});
afterAll(() => stack.stop());

describe('key labels', () => {
  it('stores the label given at creation and lists it; a key without one lists null', async () => {
    const ios = await stack.admin('POST', keysPath(), { label: '  iOS app ', plan: 'pro' });
    expect(ios.status, JSON.stringify(ios.body)).toBe(201);
    expect(ios.body).toMatchObject({ label: 'iOS app', plan: 'pro', key: expect.stringMatching(/^tally_/) });
    const bare = await stack.admin('POST', keysPath(), {});
    expect(bare.body.label).toBeNull();
    const list = await stack.admin('GET', keysPath());
    expect(list.body.keys.map((k: { id: string; label: string | null }) => [k.id, k.label])).toEqual([
      [ios.body.id, 'iOS app'],
      [bare.body.id, null],
    ]);
    // The key still works and is still stored only as a hash.
    expect((await stack.post('/v1/events', ios.body.key, { events: [{ name: 'opened', user_id: 'u1' }] })).status).toBe(204);
    expect(JSON.stringify(await stack.deps.keys.listByProject(project))).not.toContain(ios.body.key);
  });

  it('renames a key with PATCH, and removes its label with null', async () => {
    const created = await stack.admin('POST', keysPath(), { label: 'Web' });
    const renamed = await stack.admin('PATCH', `${keysPath()}/${created.body.id}`, { label: 'Web shop' });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body).toMatchObject({ id: created.body.id, label: 'Web shop', key_prefix: created.body.key_prefix });
    expect(renamed.body.key).toBeUndefined();
    const listed = async () => (await stack.admin('GET', keysPath())).body.keys.find((k: { id: string }) => k.id === created.body.id).label;
    expect(await listed()).toBe('Web shop');
    const removed = await stack.admin('PATCH', `${keysPath()}/${created.body.id}`, { label: null });
    expect(removed.body.label).toBeNull();
    expect(await listed()).toBeNull();
    // The renamed key still authenticates.
    expect((await stack.post('/v1/events', created.body.key, { events: [{ name: 'opened', user_id: 'u2' }] })).status).toBe(204);
  });

  it('refuses a bad label with a 400 naming the field, and an unknown key with a 404', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ label: '' }, /label: label must not be empty/],
      [{ label: 'x'.repeat(201) }, /label: label is longer than 200 characters/],
      [{ label: 'a\u0000b' }, /label/],
      [{ label: 7 }, /label: label must be a string/],
    ];
    for (const [body, pattern] of cases) {
      const res = await stack.admin('POST', keysPath(), body);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(pattern);
    }
    const key = await stack.admin('POST', keysPath(), { label: 'Android' });
    const path = `${keysPath()}/${key.body.id}`;
    for (const [body, pattern] of [...cases, [{ plan: 'pro' }, /only label can be changed/], [{}, /label/]] as Array<[unknown, RegExp]>) {
      const res = await stack.admin('PATCH', path, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toMatch(pattern);
    }
    const unknown = '00000000-0000-0000-0000-000000000000';
    const missing = await stack.admin('PATCH', `${keysPath()}/${unknown}`, { label: 'x' });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatch(/Key .* not found/);
    expect((await stack.admin('GET', keysPath())).body.keys.find((k: { id: string }) => k.id === key.body.id).label).toBe('Android');
  });
});
