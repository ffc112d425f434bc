import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toStoredEvent, parseBatch } from '../../lambdas/domain/event';
import { CLAIM_LEASE_MS, DynamoEventLedger } from '../../lambdas/store/event-ledger';
import { startTestDynamo, type TestDynamo } from '../helpers/dynamo';

let dynamo: TestDynamo;
let ledger: DynamoEventLedger;
const now = Date.UTC(2026, 0, 1);

beforeAll(async () => {
  dynamo = await startTestDynamo();
  ledger = new DynamoEventLedger(dynamo.ddb, dynamo.table('events'), { retentionDays: 30 });
});
afterAll(() => dynamo.close());

function event(name: string, userId: string, ts: number, projectId = 'p1') {
  const r = parseBatch({ events: [{ name, user_id: userId, timestamp: ts }] });
  if (!r.ok) throw new Error('bad');
  return toStoredEvent(r.events[0]!, {
    projectId,
    receivedMs: now,
    source: 'v1',
    sdk: null,
    sdkVersion: null,
    geo: { country: null, region: null, city: null },
  });
}

describe('DynamoEventLedger on dynalite', () => {
  it('lets exactly one of many concurrent claims of one event win', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => ledger.claim('p1', 'race', `req-${i}`, now)));
    expect(results.filter((r) => r === 'claimed')).toHaveLength(1);
    expect(results.filter((r) => r === 'in_flight')).toHaveLength(19);
  });

  it('reports duplicate only once the event is marked stored', async () => {
    const e = event('signup', 'u1', now);
    expect(await ledger.claim('p1', e.dedupe_key, 'a', now)).toBe('claimed');
    expect(await ledger.claim('p1', e.dedupe_key, 'b', now)).toBe('in_flight');
    await ledger.markStored([e], now);
    expect(await ledger.claim('p1', e.dedupe_key, 'b', now)).toBe('duplicate');
    const item = await dynamo.ddb.send(new GetCommand({ TableName: dynamo.table('events'), Key: { pk: `p1#${e.dedupe_key}` } }));
    expect(item.Item).toMatchObject({ state: 'stored', expires_at: Math.floor(now / 1000) + 30 * 86_400 });
  });

  it('releases only its own pending claims, so a retry can claim again', async () => {
    expect(await ledger.claim('p1', 'rel', 'owner-a', now)).toBe('claimed');
    await ledger.release('p1', ['rel'], 'owner-b');
    expect(await ledger.claim('p1', 'rel', 'owner-c', now)).toBe('in_flight');
    await ledger.release('p1', ['rel'], 'owner-a');
    expect(await ledger.claim('p1', 'rel', 'owner-c', now)).toBe('claimed');
  });

  it('gives a pending claim an expiry, so one whose release also failed does not stay forever', async () => {
    expect(await ledger.claim('p1', 'orphan', 'died', now)).toBe('claimed');
    const item = await dynamo.ddb.send(new GetCommand({ TableName: dynamo.table('events'), Key: { pk: 'p1#orphan' } }));
    expect(item.Item).toMatchObject({ state: 'pending', expires_at: Math.floor(now / 1000) + 30 * 86_400 });
  });

  it('lets a retry take over a pending claim whose lease expired, but never a stored event', async () => {
    expect(await ledger.claim('p1', 'stale', 'dead-request', now)).toBe('claimed');
    expect(await ledger.claim('p1', 'stale', 'retry', now + CLAIM_LEASE_MS - 1)).toBe('in_flight');
    expect(await ledger.claim('p1', 'stale', 'retry', now + CLAIM_LEASE_MS + 1)).toBe('claimed');
    const e = event('stored', 'u', now);
    await ledger.claim('p1', e.dedupe_key, 'x', now);
    await ledger.markStored([e], now);
    expect(await ledger.claim('p1', e.dedupe_key, 'y', now + 10 * CLAIM_LEASE_MS)).toBe('duplicate');
  });

  it('keeps projects apart', async () => {
    const a = event('same', 'u', now, 'pa');
    const b = event('same', 'u', now, 'pb');
    expect(a.dedupe_key).toBe(b.dedupe_key);
    expect(await ledger.claim('pa', a.dedupe_key, 'r', now)).toBe('claimed');
    expect(await ledger.claim('pb', b.dedupe_key, 'r', now)).toBe('claimed');
  });

  it('lists stored events newest first, filtered by name or user, within one project only', async () => {
    const events = [
      event('view', 'alice', now + 1000, 'list'),
      event('buy', 'alice', now + 2000, 'list'),
      event('view', 'bob', now + 3000, 'list'),
      event('view', 'bob', now + 4000, 'other'),
    ];
    for (const e of events) await ledger.claim(e.project_id, e.dedupe_key, 'r', now);
    await ledger.markStored(events, now);
    const all = await ledger.recent('list', { limit: 10 });
    expect(all.map((e) => [e.name, e.user_id])).toEqual([
      ['view', 'bob'],
      ['buy', 'alice'],
      ['view', 'alice'],
    ]);
    expect((await ledger.recent('list', { limit: 10, userId: 'alice' })).map((e) => e.name)).toEqual(['buy', 'view']);
    expect((await ledger.recent('list', { limit: 10, name: 'view' })).map((e) => e.user_id)).toEqual(['bob', 'alice']);
    expect(await ledger.recent('list', { limit: 1 })).toHaveLength(1);
  });

  it('writes more than one BatchWriteItem worth (25) of stored events', async () => {
    const events = Array.from({ length: 60 }, (_, i) => event('bulk', `u${i}`, now, 'bulk'));
    await ledger.markStored(events, now);
    expect(await ledger.recent('bulk', { limit: 100 })).toHaveLength(60);
  });
});
