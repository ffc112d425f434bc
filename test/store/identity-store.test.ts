import { GetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toStoredEvent, type ReceivedEvent } from '../../lambdas/domain/event';
import type { IdentityRecord } from '../../lambdas/domain/identity';
import { DuckDbResultsQuery } from '../../lambdas/adapters/duckdb-results-query';
import { InProcessDuckDb } from '../../lambdas/adapters/duckdb-local';
import { compactClosedHours, writeLanding, writeLandingEvents } from '../helpers/landing';
import { DynamoIdentityStore } from '../../lambdas/store/identity-store';
import { resolveIdentities } from '../../lambdas/services/resolve-identities';
import type { IdentityJournal, PointerChange } from '../../lambdas/ports/identity-store';
import { TABLES } from '../../lambdas/store/schema';
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
    expect(await store.observe(p, ['a', 'b'], 1000)).toEqual(
      new Map([
        ['a', 'a'],
        ['b', 'b'],
      ]),
    );
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

  it('journals the loser root before it moves, and does not merge when that fails', async () => {
    const p = nextProject();
    await store.observe(p, ['a'], 1000);
    await store.observe(p, ['b'], 2000);
    const failing = {
      beforeMerge: async () => {
        throw new Error('stream down');
      },
      moved: async () => undefined,
    };
    await expect(store.link(p, 'a', 'b', 3000, failing)).rejects.toThrow('stream down');
    expect(await canonicalOf(p, 'b')).toBe('b');
    const calls: PointerChange[] = [];
    await store.link(p, 'b', 'a', 3000, { beforeMerge: async (c) => void calls.push(c), moved: async (cs) => void calls.push(...cs) });
    expect(calls).toEqual([{ id: 'b', canonical_id: 'a', version: 1, reason: 'link' }]);
    expect(await canonicalOf(p, 'b')).toBe('a');
  });

  it('creates a new user ID already linked: one journalled put, no re-pointing write', async () => {
    const p = nextProject();
    await store.observe(p, ['anon'], 1000);
    const { ddb, sent } = recording(dynamo.ddb);
    const linking = new DynamoIdentityStore(ddb, dynamo.table('identities'));
    const stream = memoryStream(p);
    const canonical = await linking.observe(p, ['anon', 'user'], 2000, { links: [['anon', 'user']], journal: stream.journal });
    expect(canonical).toEqual(
      new Map([
        ['anon', 'anon'],
        ['user', 'anon'],
      ]),
    );
    expect(stream.records.map((r) => [r.id, r.canonical_id, r.version, r.reason])).toEqual([['user', 'anon', 1, 'link']]);
    expect(sent.filter((c) => c === 'UpdateCommand')).toEqual([]);
    expect(await linking.link(p, 'anon', 'user', 2000, stream.journal)).toEqual({ canonical: 'anon', moved: [] });
    const group = await store.group(p, 'user');
    expect(group?.canonical.id).toBe('anon');
    expect(group?.members.find((m) => m.id === 'user')).toMatchObject({ version: 1, first_seen_ms: 2000 });
  });

  it('a linked create that loses the race to an unlinked create re-asserts the ID in the stream, which then agrees with the table', async () => {
    const p = nextProject();
    const table = dynamo.table('identities');
    const other = new DynamoIdentityStore(dynamo.ddb, table);
    let raced = false;
    // Another request (which arrived earlier) creates 'member' unlinked between this request's read and its put.
    const send = async (command: { constructor: { name: string }; input: { Item?: { id?: string } } }) => {
      if (!raced && command.constructor.name === 'PutCommand' && command.input.Item?.id === 'member') {
        raced = true;
        await other.observe(p, ['member'], 1500);
      }
      return dynamo.ddb.send(command as never);
    };
    const ddb = new Proxy(dynamo.ddb, { get: (t, prop, r) => (prop === 'send' ? send : Reflect.get(t, prop, r)) });
    const records: IdentityRecord[] = [];
    const deps = {
      identities: new DynamoIdentityStore(ddb, table),
      identitySink: { put: async (r: IdentityRecord[]) => void records.push(...r) },
    };
    const batch = [
      { name: '$identify', sent_user_id: 'member', properties: { $anonymous_id: 'visitor' }, timestamp: '2026-01-01T00:00:02.000Z' },
    ] as unknown as ReceivedEvent[];
    const canonical = await resolveIdentities(p, batch, deps, 2000);
    expect(raced).toBe(true);
    // The stream's answer for an ID is its highest-version line (as the results SQL reads it); an ID
    // with no line is its own canonical ID.
    const streamPointer = (id: string) => records.filter((r) => r.id === id).sort((a, b) => b.version - a.version)[0]?.canonical_id ?? id;
    const root = (id: string): string => {
      const next = streamPointer(id);
      return next === id ? id : root(next);
    };
    for (const id of ['visitor', 'member']) expect(root(id), id).toBe(canonical.get(id));
    expect(canonical.get('visitor')).toBe(canonical.get('member'));
  });

  it('writes email and name sent together in one update', async () => {
    const p = nextProject();
    await store.observe(p, ['u'], 1000);
    const { ddb, sent } = recording(dynamo.ddb);
    await new DynamoIdentityStore(ddb, dynamo.table('identities')).updateProfile(p, 'u', { email: 'a@example.com', name: 'Ann' }, 2000);
    expect(sent).toEqual(['UpdateCommand']);
    expect((await store.group(p, 'u'))!.canonical).toMatchObject({ email: 'a@example.com', name: 'Ann' });
  });

  it('resolves a login batch (a new user ID, its profile, its events) in one read, one put and one update', async () => {
    const p = nextProject();
    // The visitor's earlier events (one second before the batch's) are kept as its first event time.
    await store.observe(p, ['visitor'], 1000, { eventTimes: new Map([['visitor', Date.parse('2026-01-01T00:00:01.000Z')]]) });
    const { ddb, sent } = recording(dynamo.ddb);
    const records: IdentityRecord[] = [];
    const at = '2026-01-01T00:00:02.000Z';
    const batch = [
      { name: 'page', sent_user_id: 'visitor', properties: {}, timestamp: at },
      { name: '$identify', sent_user_id: 'member', properties: { $anonymous_id: 'visitor', email: 'm@example.com', name: 'M' }, timestamp: at },
      { name: 'page', sent_user_id: 'member', properties: {}, timestamp: at },
    ] as unknown as ReceivedEvent[];
    const deps = {
      identities: new DynamoIdentityStore(ddb, dynamo.table('identities')),
      identitySink: { put: async (r: IdentityRecord[]) => void records.push(...r) },
    };
    const canonical = await resolveIdentities(p, batch, deps, 2000);
    expect(canonical).toEqual(
      new Map([
        ['visitor', 'visitor'],
        ['member', 'visitor'],
      ]),
    );
    expect(sent).toEqual(['BatchGetCommand', 'PutCommand', 'UpdateCommand']);
    expect(records.map((r) => [r.id, r.canonical_id, r.version, r.reason])).toEqual([['member', 'visitor', 1, 'link']]);
    expect((await store.group(p, 'member'))!.members.find((m) => m.id === 'member')).toMatchObject({ email: 'm@example.com', name: 'M' });
  });

  it('keeps the earliest event time of an ID: no write for newer events, one conditional update for a backfill', async () => {
    const p = nextProject();
    await store.observe(p, ['ann'], 1000, { eventTimes: new Map([['ann', 5000]]) });
    const { ddb, sent } = recording(dynamo.ddb);
    const recorded = new DynamoIdentityStore(ddb, dynamo.table('identities'));
    await recorded.observe(p, ['ann'], 2000, { eventTimes: new Map([['ann', 9000]]) });
    expect(sent).toEqual(['GetCommand']);
    await recorded.observe(p, ['ann'], 3000, { eventTimes: new Map([['ann', 4000]]) });
    expect(sent).toEqual(['GetCommand', 'GetCommand', 'UpdateCommand']);
    expect((await store.group(p, 'ann'))!.canonical).toMatchObject({ first_seen_ms: 1000, first_event_ms: 4000 });
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

/** A client that records the name of every command it sends. */
function recording(ddb: DynamoDBDocumentClient): { ddb: DynamoDBDocumentClient; sent: string[] } {
  const sent: string[] = [];
  const send = (command: { constructor: { name: string } }) => {
    sent.push(command.constructor.name);
    return ddb.send(command as never);
  };
  return { sent, ddb: new Proxy(ddb, { get: (target, prop, receiver) => (prop === 'send' ? send : Reflect.get(target, prop, receiver)) }) };
}

/** A client whose by_canonical index reads return nothing: AWS's eventually consistent index, at its worst. */
function staleIndex(ddb: DynamoDBDocumentClient): DynamoDBDocumentClient {
  const send = (command: unknown) =>
    command instanceof QueryCommand && command.input.IndexName === TABLES.identities.indexes[0]!.name
      ? Promise.resolve({ Items: [] })
      : ddb.send(command as never);
  return new Proxy(ddb, { get: (target, prop, receiver) => (prop === 'send' ? send : Reflect.get(target, prop, receiver)) });
}

/** The identity stream in memory: what the journal hands over, as the service writes it. */
function memoryStream(projectId: string): { journal: IdentityJournal; records: IdentityRecord[] } {
  const records: IdentityRecord[] = [];
  const add = (changes: PointerChange[]) => void records.push(...changes.map((c) => ({ project_id: projectId, ...c, timestamp: '2026-03-01T00:00:00.000Z' })));
  return { records, journal: { beforeMerge: async (c) => add([c]), moved: async (cs) => add(cs) } };
}

const pointerOf = async (p: string, id: string) =>
  (await dynamo.ddb.send(new GetCommand({ TableName: dynamo.table('identities'), Key: { pk: `${p}#${id}` }, ConsistentRead: true }))).Item!
    .canonical_id as string;

describe('identity resolution when re-points are missed (eventually consistent index)', () => {
  it('a chain of 19 missed re-points still resolves, and reading it compresses the path and records that', async () => {
    const p = nextProject();
    const lagging = new DynamoIdentityStore(staleIndex(dynamo.ddb), dynamo.table('identities'));
    const ids = Array.from({ length: 20 }, (_, i) => `x${i}`);
    for (const [i, id] of ids.entries()) await lagging.observe(p, [id], 1000 + i);
    // Each link merges the current root into an earlier ID; the index never shows the members to re-point.
    for (let k = 19; k >= 1; k--) await lagging.link(p, `x${k}`, `x${k - 1}`, 5000);
    expect(await pointerOf(p, 'x19')).toBe('x18');

    const stream = memoryStream(p);
    expect((await lagging.observe(p, ['x19'], 9000, { journal: stream.journal })).get('x19')).toBe('x0');
    for (let k = 2; k <= 19; k++) expect(await pointerOf(p, `x${k}`)).toBe('x0');
    expect(stream.records.map((r) => [r.id, r.canonical_id, r.reason]).sort()).toEqual(
      ids
        .slice(2)
        .map((id) => [id, 'x0', 'compress'])
        .sort(),
    );
    expect(stream.records.every((r) => r.version === 2)).toBe(true); // each item's second pointer change
    const again = memoryStream(p);
    expect((await lagging.observe(p, ['x19'], 9000, { journal: again.journal })).get('x19')).toBe('x0');
    expect(again.records).toEqual([]);
    expect((await store.group(p, 'x19'))!.members).toHaveLength(20);
  });
});

describe('identity stream and table under concurrent merges', () => {
  it('the results SQL over the stream resolves every ID to the canonical ID the table gives', async () => {
    const p = `concurrent-${Date.now()}`;
    const stream = memoryStream(p);
    // Two clusters, merged by many concurrent links in every order: a descending chain of 30, plus random pairs.
    const clusters = [0, 1].map((c) => Array.from({ length: 30 }, (_, i) => `c${c}-${String(i).padStart(2, '0')}`));
    for (const cluster of clusters) for (const [i, id] of cluster.entries()) await store.observe(p, [id], 1000 + i);
    const links: Array<[string, string]> = [];
    for (const cluster of clusters) {
      for (let i = cluster.length - 1; i > 0; i--) links.push([cluster[i]!, cluster[i - 1]!]);
      for (let n = 0; n < 30; n++) links.push([cluster[Math.floor(Math.random() * 30)]!, cluster[Math.floor(Math.random() * 30)]!]);
    }
    links.sort(() => Math.random() - 0.5);
    await Promise.all(links.filter(([a, b]) => a !== b).map(([a, b]) => store.link(p, a, b, 5000, stream.journal)));

    const all = clusters.flat();
    const table = await store.observe(p, all, 9000);
    for (const cluster of clusters) for (const id of cluster) expect(table.get(id)).toBe(cluster[0]);

    // Every ID enrolls with an exposure; if the stream resolves them as the table does, there are two users.
    const dataDir = mkdtempSync(join(tmpdir(), 'tally-identity-stream-'));
    try {
      writeLanding(dataDir, 'identities', stream.records, { hour: '2026-03-01-00' });
      const facts = {
        projectId: p,
        receivedMs: Date.UTC(2026, 2, 2),
        source: 'v1' as const,
        sdk: null,
        sdkVersion: null,
        geo: { country: null, region: null, city: null },
      };
      const events = all.map((id) =>
        toStoredEvent(
          { name: '$experiment_exposure', user_id: id, timestampMs: Date.UTC(2026, 2, 2), properties: { $experiment_name: 'exp', $variant: 'a' } },
          facts,
        ),
      );
      writeLandingEvents(dataDir, events);
      const query = new DuckDbResultsQuery(dataDir, { threads: 1 });
      const duckdb = new InProcessDuckDb();
      try {
        const request = {
          projectId: p,
          experimentId: 'e',
          experimentName: 'exp',
          variants: ['a', 'b'],
          goalEvent: 'buy',
          projectCreatedAt: '2026-03-01T00:00:00.000Z',
          from: '2026-03-01T00:00:00.000Z',
          to: '2026-03-03T00:00:00.000Z',
        };
        expect((await query.count(request)).variants[0]).toEqual({ variant: 'a', enrolled: 2, converted: 0 });
        // The same from the curated partitions, once the links (every version of them) and events are compacted.
        const [, identities] = await compactClosedHours(dataDir, duckdb, Date.UTC(2026, 2, 3, 1));
        expect(identities).toMatchObject({ stream: 'identities', compactedThrough: '2026-03-02-23' });
        expect((await query.count(request)).variants[0]).toEqual({ variant: 'a', enrolled: 2, converted: 0 });
      } finally {
        await query.close();
        await duckdb.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
