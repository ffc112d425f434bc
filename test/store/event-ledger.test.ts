import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAIM_LEASE_MS, DynamoEventLedger, claimKey, commitKey } from '../../lambdas/store/event-ledger';
import { startTestDynamo, type TestDynamo } from '../helpers/dynamo';

let dynamo: TestDynamo;
let ledger: DynamoEventLedger;
const now = Date.UTC(2026, 0, 1);
const ttl = Math.floor(now / 1000) + 30 * 86_400;

beforeAll(async () => {
  dynamo = await startTestDynamo();
  ledger = new DynamoEventLedger(dynamo.ddb, dynamo.table('events'), { dedupeWindowDays: 30 });
});
afterAll(() => dynamo.close());

const get = async (pk: string) => (await dynamo.ddb.send(new GetCommand({ TableName: dynamo.table('events'), Key: { pk } }))).Item;

/** DynamoDB's item size for write units: attribute names plus values (strings by UTF-8 length, numbers about 1 byte per 2 digits + 1). */
function itemBytes(item: Record<string, unknown>): number {
  return Object.entries(item).reduce(
    (n, [k, v]) => n + Buffer.byteLength(k) + (typeof v === 'number' ? Math.ceil(String(v).length / 2) + 1 : Buffer.byteLength(String(v))),
    0,
  );
}

/**
 * A document client that behaves like DynamoDB with ReturnValuesOnConditionCheckFailure: ALL_OLD (the
 * failure carries the existing item, marshalled, as the SDK gives it), counting the GetItem calls.
 */
function withAllOld(real: DynamoDBDocumentClient, table: string) {
  const counts = { gets: 0 };
  const client = {
    send: async (command: { input: Record<string, unknown> }) => {
      if (command instanceof GetCommand) counts.gets++;
      try {
        return await real.send(command as never);
      } catch (err) {
        if (command instanceof PutCommand && command.input.ReturnValuesOnConditionCheckFailure === 'ALL_OLD') {
          const key = (command.input.Item as { pk: string }).pk;
          const old = (await real.send(new GetCommand({ TableName: table, Key: { pk: key }, ConsistentRead: true }))).Item;
          if (old) Object.assign(err as object, { Item: marshall(old) });
        }
        throw err;
      }
    },
  } as unknown as DynamoDBDocumentClient;
  return { client, counts };
}

describe('DynamoEventLedger on dynalite', () => {
  it('lets exactly one of many concurrent claims of one event win', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => ledger.claim('p1', 'race', `req-${i}`, now)));
    expect(results.filter((r) => r === 'claimed')).toHaveLength(1);
    expect(results.filter((r) => r === 'in_flight')).toHaveLength(19);
  });

  it("reports duplicate only once the claim's owner committed", async () => {
    expect(await ledger.claim('p1', 'dup', 'a', now)).toBe('claimed');
    expect(await ledger.claim('p1', 'dup', 'b', now)).toBe('in_flight');
    await ledger.markStored('a', now);
    expect(await ledger.claim('p1', 'dup', 'b', now)).toBe('duplicate');
    expect(await get(commitKey('a'))).toEqual({ pk: commitKey('a'), expires_at: ttl });
  });

  it('finds its own claim when a put is repeated (a lost answer): still claimed, never in flight against itself', async () => {
    expect(await ledger.claim('p1', 'repeat', 'same-request', now)).toBe('claimed');
    expect(await ledger.claim('p1', 'repeat', 'same-request', now)).toBe('claimed');
    expect(await ledger.claim('p1', 'repeat', 'other-request', now)).toBe('in_flight');
  });

  it('writes claims and commits of one write unit each (under 1 KB), keys only, with the TTL', async () => {
    const dedupeKey = 'f'.repeat(64);
    const project = '0b8f6a34-5c1e-4f4b-9a57-2f0d7c1e9a11';
    const owner = '6f1c0f0e-2b1a-4c55-8f0e-0d3c6a7e5b21';
    expect(await ledger.claim(project, dedupeKey, owner, now)).toBe('claimed');
    await ledger.markStored(owner, now);
    const claim = await get(claimKey(project, dedupeKey));
    expect(claim).toEqual({ pk: claimKey(project, dedupeKey), owner, lease_until: now + CLAIM_LEASE_MS, expires_at: ttl });
    expect(itemBytes(claim!)).toBeLessThan(200);
    expect(itemBytes((await get(commitKey(owner)))!)).toBeLessThan(100);
  });

  it('releases only its own claims, so a retry can claim again', async () => {
    expect(await ledger.claim('p1', 'rel', 'owner-a', now)).toBe('claimed');
    await ledger.release('p1', ['rel'], 'owner-b');
    expect(await ledger.claim('p1', 'rel', 'owner-c', now)).toBe('in_flight');
    await ledger.release('p1', ['rel'], 'owner-a');
    expect(await ledger.claim('p1', 'rel', 'owner-c', now)).toBe('claimed');
  });

  it('gives a claim an expiry, so one whose release also failed does not stay forever', async () => {
    expect(await ledger.claim('p1', 'orphan', 'died', now)).toBe('claimed');
    expect(await get('p1#orphan')).toMatchObject({ owner: 'died', expires_at: ttl });
  });

  it('holds claims for the lease it is given (TALLY_CLAIM_LEASE_SECONDS locally)', async () => {
    const short = new DynamoEventLedger(dynamo.ddb, dynamo.table('events'), { dedupeWindowDays: 30, leaseMs: 2000 });
    expect(await short.claim('p1', 'short', 'died', now)).toBe('claimed');
    expect(await get('p1#short')).toMatchObject({ lease_until: now + 2000 });
    expect(await short.claim('p1', 'short', 'retry', now + 2000)).toBe('in_flight');
    expect(await short.claim('p1', 'short', 'retry', now + 2001)).toBe('claimed');
  });

  it('lets a retry take over a claim whose lease passed without a commit, but never a committed one', async () => {
    expect(await ledger.claim('p1', 'stale', 'dead-request', now)).toBe('claimed');
    expect(await ledger.claim('p1', 'stale', 'retry', now + CLAIM_LEASE_MS - 1)).toBe('in_flight');
    expect(await ledger.claim('p1', 'stale', 'retry', now + CLAIM_LEASE_MS + 1)).toBe('claimed');
    expect(await get('p1#stale')).toMatchObject({ owner: 'retry' });
    // The dead request's late commit does not make the retry's claim a stored one.
    await ledger.markStored('dead-request', now + CLAIM_LEASE_MS + 2);
    expect(await ledger.claim('p1', 'stale', 'third', now + CLAIM_LEASE_MS + 3)).toBe('in_flight');

    expect(await ledger.claim('p1', 'kept', 'x', now)).toBe('claimed');
    await ledger.markStored('x', now);
    expect(await ledger.claim('p1', 'kept', 'y', now + 10 * CLAIM_LEASE_MS)).toBe('duplicate');
    expect(await get('p1#kept')).toMatchObject({ owner: 'x' });
  });

  it('lets only one of many concurrent retries take over an expired claim', async () => {
    expect(await ledger.claim('p1', 'takeover', 'dead', now)).toBe('claimed');
    const later = now + CLAIM_LEASE_MS + 1;
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => ledger.claim('p1', 'takeover', `retry-${i}`, later)));
    expect(results.filter((r) => r === 'claimed')).toHaveLength(1);
    expect(results.filter((r) => r === 'in_flight')).toHaveLength(9);
  });

  it('treats items written before commits existed: "stored" is a duplicate, "pending" is a claim', async () => {
    const table = dynamo.table('events');
    await dynamo.ddb.send(new PutCommand({ TableName: table, Item: { pk: 'p1#legacy-stored', state: 'stored', expires_at: ttl } }));
    await dynamo.ddb.send(
      new PutCommand({ TableName: table, Item: { pk: 'p1#legacy-pending', state: 'pending', owner: 'old', lease_until: now, expires_at: ttl } }),
    );
    expect(await ledger.claim('p1', 'legacy-stored', 'n', now + 10 * CLAIM_LEASE_MS)).toBe('duplicate');
    expect(await ledger.claim('p1', 'legacy-pending', 'n', now - 1)).toBe('in_flight');
    expect(await ledger.claim('p1', 'legacy-pending', 'n', now + 1)).toBe('claimed');
  });

  it('keeps projects apart', async () => {
    expect(await ledger.claim('pa', 'same', 'r', now)).toBe('claimed');
    expect(await ledger.claim('pb', 'same', 'r', now)).toBe('claimed');
  });

  it('with ALL_OLD (DynamoDB), a duplicate reads only the commit, and a retried batch reads it once', async () => {
    const { client, counts } = withAllOld(dynamo.ddb, dynamo.table('events'));
    const allOld = new DynamoEventLedger(client, dynamo.table('events'), { dedupeWindowDays: 30 });
    for (let i = 0; i < 5; i++) expect(await allOld.claim('p2', `k${i}`, 'first', now)).toBe('claimed');
    expect(await allOld.claim('p2', 'k0', 'second', now)).toBe('in_flight');
    expect(counts.gets).toBe(1); // the commit lookup; the claim came with the failure
    await allOld.markStored('first', now);
    counts.gets = 0;
    for (let i = 0; i < 5; i++) expect(await allOld.claim('p2', `k${i}`, 'retry', now)).toBe('duplicate');
    expect(counts.gets).toBe(1);
  });
});
