import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoIdentityStore } from '../../lambdas/store/identity-store';
import { startTestDynamo, type TestDynamo } from '../helpers/dynamo';

let dynamo: TestDynamo;
let store: DynamoIdentityStore;
let project = 0;
const nextProject = () => `p${++project}`;

beforeAll(async () => {
  dynamo = await startTestDynamo();
  store = new DynamoIdentityStore(dynamo.ddb, dynamo.table('identities'));
});
afterAll(() => dynamo.close());

const canonicalOf = async (p: string, id: string) => (await store.observe(p, [id], Date.now())).get(id);

describe('DynamoIdentityStore on dynalite', () => {
  it('remembers when it first saw an ID; an unlinked ID is its own canonical ID', async () => {
    const p = nextProject();
    expect(await store.observe(p, ['a', 'b'], 1000)).toEqual(new Map([['a', 'a'], ['b', 'b']]));
    await store.observe(p, ['a'], 5000);
    const group = await store.group(p, 'a');
    expect(group?.canonical).toMatchObject({ id: 'a', first_seen_ms: 1000 });
    expect(await store.group(p, 'never-seen')).toBeUndefined();
  });

  it('links with the anonymous ID seen first: the anonymous ID is canonical', async () => {
    const p = nextProject();
    await store.observe(p, ['anon'], 1000);
    await store.observe(p, ['user'], 2000);
    expect((await store.link(p, 'anon', 'user', 3000)).canonical).toBe('anon');
    expect(await canonicalOf(p, 'user')).toBe('anon');
  });

  it('links with the user ID seen first: the user ID is canonical', async () => {
    const p = nextProject();
    await store.observe(p, ['user'], 1000);
    await store.observe(p, ['anon'], 2000);
    expect((await store.link(p, 'anon', 'user', 3000)).canonical).toBe('user');
    expect(await canonicalOf(p, 'anon')).toBe('user');
  });

  it('breaks a same-request tie by order of appearance', async () => {
    const p = nextProject();
    await store.observe(p, ['zz-anon', 'aa-user'], 1000);
    expect((await store.link(p, 'zz-anon', 'aa-user', 1000)).canonical).toBe('zz-anon');
  });

  it('merges two groups: the earliest-seen canonical wins and every member moves', async () => {
    const p = nextProject();
    await store.observe(p, ['a2'], 500); // the earliest ID of all
    await store.observe(p, ['a1'], 1000);
    await store.observe(p, ['u1', 'u2', 'd2'], 2000);
    await store.link(p, 'a1', 'u1', 3000);
    await store.link(p, 'a2', 'u2', 3000);
    await store.link(p, 'd2', 'u2', 3000);
    const merge = await store.link(p, 'u1', 'u2', 4000);
    expect(merge.canonical).toBe('a2');
    expect(merge.moved).toEqual(['a1', 'u1']);
    for (const id of ['a1', 'u1', 'a2', 'u2', 'd2']) expect(await canonicalOf(p, id)).toBe('a2');
    const group = await store.group(p, 'u1');
    expect(group!.members.map((m) => m.id).sort()).toEqual(['a1', 'a2', 'd2', 'u1', 'u2']);
    expect((await store.link(p, 'a1', 'd2', 5000)).moved).toEqual([]); // idempotent
  });

  it('concurrent identifies of one pair agree on one group', async () => {
    const p = nextProject();
    await store.observe(p, ['anon'], 1000);
    const results = await Promise.all(Array.from({ length: 10 }, () => store.link(p, 'anon', 'user', 2000)));
    expect(new Set(results.map((r) => r.canonical))).toEqual(new Set(['anon']));
    expect((await store.group(p, 'user'))!.members.map((m) => m.id).sort()).toEqual(['anon', 'user']);
  });

  it('concurrent links of overlapping groups converge on the earliest ID', async () => {
    const p = nextProject();
    const ids = Array.from({ length: 8 }, (_, i) => `id${i}`);
    for (const [i, id] of ids.entries()) await store.observe(p, [id], 1000 + i);
    await Promise.all(ids.slice(1).map((id, i) => store.link(p, ids[i]!, id, 5000)));
    for (const id of ids) expect(await canonicalOf(p, id)).toBe('id0');
    expect((await store.group(p, 'id7'))!.members).toHaveLength(8);
  });

  it('runs beforeMerge with the moving IDs first, and does not merge when it fails', async () => {
    const p = nextProject();
    await store.observe(p, ['a'], 1000);
    await store.observe(p, ['b'], 2000);
    await expect(store.link(p, 'a', 'b', 3000, async () => { throw new Error('stream down'); })).rejects.toThrow('stream down');
    expect(await canonicalOf(p, 'b')).toBe('b');
    const calls: Array<[string, string[]]> = [];
    await store.link(p, 'b', 'a', 3000, async (c, ids) => void calls.push([c, ids]));
    expect(calls).toEqual([['a', ['b']]]);
    expect(await canonicalOf(p, 'b')).toBe('a');
  });

  it('keeps the later profile value, ignores an older one, and leaves absent fields alone', async () => {
    const p = nextProject();
    await store.observe(p, ['u'], 1000);
    await store.updateProfile(p, 'u', { email: 'old@example.com', name: 'Ann' }, 2000);
    await store.updateProfile(p, 'u', { email: 'new@example.com' }, 3000);
    await store.updateProfile(p, 'u', { email: 'stale@example.com', name: 'Stale' }, 1500);
    expect((await store.group(p, 'u'))!.canonical).toMatchObject({ email: 'new@example.com', name: 'Ann' });
    // Each field keeps its own time: a name sent at 2500 is newer than Ann (2000), older than the email.
    await store.updateProfile(p, 'u', { email: 'older@example.com', name: 'Annie' }, 2500);
    expect((await store.group(p, 'u'))!.canonical).toMatchObject({ email: 'new@example.com', name: 'Annie' });
  });
});
