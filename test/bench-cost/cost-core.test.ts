/**
 * The counting core of npm run bench:cost, on fixed inputs with hand-computed answers, so the
 * benchmark cannot silently drift from DynamoDB's and Firehose's billing rules.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itemSize, itemWriteBill, numberSize, readUnits, writeUnits, type Item, type TableInfo } from '../bench/cost/dynamo-units';
import { firehoseBilledBytes, installMeter, Meter } from '../bench/cost/meter';
import { startTestDynamo, type TestDynamo } from '../helpers/dynamo';

const item = (plain: Record<string, unknown>) => marshall(plain) as Item;

describe('DynamoDB item size', () => {
  it('sizes a ledger claim as the documented rules add up', () => {
    const claim = item({ pk: 'proj-1#abc', state: 'pending', owner: 'req-1', lease_until: 1767225630000, expires_at: 1769817600 });
    // pk 2+10, state 5+7, owner 5+5, lease_until 11 + (9 significant digits -> 5+1),
    // expires_at 10 + (8 significant digits -> 4+1)
    expect(itemSize(claim)).toBe(12 + 12 + 10 + 17 + 15);
  });

  it('counts maps, lists, booleans, nulls and UTF-8', () => {
    // m: 1 + map(3 + [a: 1 + 1 + number 2] + [b: 1 + 1 + list(3 + (1 + 1) + (1 + 1))])
    expect(itemSize(item({ m: { a: 1, b: [true, null] } }))).toBe(1 + 3 + 4 + 9);
    expect(itemSize(item({ s: 'é' }))).toBe(1 + 2);
    expect(numberSize('0')).toBe(2);
    expect(numberSize('-0.00120')).toBe(2); // "12": 1 + 1
    expect(numberSize('123456789012345678901234567890123456.78')).toBe(20); // 38 digits
  });

  it('rounds write units to 1 KB and read units to 4 KB', () => {
    expect([0, 1, 1024, 1025, 2048, 2049].map(writeUnits)).toEqual([1, 1, 1, 2, 2, 3]);
    expect(readUnits(0, true)).toBe(1);
    expect(readUnits(4096, true)).toBe(1);
    expect(readUnits(4097, false)).toBe(1);
    expect(readUnits(8193, true)).toBe(3);
    expect(readUnits(100, false)).toBe(0.5);
  });
});

const EVENTS: TableInfo = {
  name: 'events',
  keys: ['pk'],
  indexes: [{ name: 'by_project_time', keys: ['project_id', 'sort_key'], projection: { type: 'ALL' } }],
};

/** A "stored" ledger item of exactly `bytes` bytes (event attribute padded). */
function storedItem(bytes: number): Item {
  const base = { pk: 'p#k', state: 'stored', project_id: 'p', sort_key: '1#k', event: '' };
  const pad = bytes - itemSize(item(base));
  return item({ ...base, event: 'x'.repeat(pad) });
}

describe('DynamoDB write bills', () => {
  const claim = item({ pk: 'p#k', state: 'pending' });

  it('bills a stored item replacing a claim on the table and on the index that projects it', () => {
    const stored = storedItem(1025);
    expect(itemSize(stored)).toBe(1025);
    expect(itemWriteBill(EVENTS, 'put', claim, stored)).toEqual({ table: 2, indexes: { by_project_time: 2 } });
    // A claim alone never enters the index (no project_id, no sort_key).
    expect(itemWriteBill(EVENTS, 'put', undefined, claim)).toEqual({ table: 1, indexes: {} });
  });

  it('bills a failed conditional write on the item as it stands, and no index', () => {
    expect(itemWriteBill(EVENTS, 'put', storedItem(2100), undefined, { failed: true, attempted: claim })).toEqual({ table: 3, indexes: {} });
    expect(itemWriteBill(EVENTS, 'update', undefined, undefined, { failed: true })).toEqual({ table: 1, indexes: {} });
  });

  it('bills an index key change as a delete and a put, a delete on the deleted item', () => {
    const before = storedItem(500);
    const after = { ...before, sort_key: { S: '2#k' } };
    expect(itemWriteBill(EVENTS, 'update', before, after)).toEqual({ table: 1, indexes: { by_project_time: 2 } });
    expect(itemWriteBill(EVENTS, 'delete', storedItem(3000), undefined)).toEqual({ table: 3, indexes: { by_project_time: 3 } });
    expect(itemWriteBill(EVENTS, 'put', undefined, storedItem(1000), { transactional: true })).toEqual({ table: 2, indexes: { by_project_time: 1 } });
  });
});

describe('Firehose billing', () => {
  it('rounds every record up to 5 KB', () => {
    expect([1, 5120, 5121, 19_298].map(firehoseBilledBytes)).toEqual([5120, 5120, 10_240, 20_480]);
    const meter = new Meter();
    meter.firehoseRecords('s', [100, 6000]);
    expect(meter.firehose.get('s')).toEqual({ records: 2, bytes: 6100, billedBytes: 5120 + 10_240, calls: 1 });
  });
});

describe('the meter on dynalite', () => {
  let dynamo: TestDynamo;
  const meter = new Meter();
  let uninstall: () => void;

  beforeAll(async () => {
    dynamo = await startTestDynamo();
    uninstall = installMeter(meter);
  });
  afterAll(async () => {
    uninstall?.();
    await dynamo?.close();
  });

  it('counts what a claim, its commit, a duplicate claim and a strong read of the commit bill, and dynalite agrees on the table', async () => {
    const table = dynamo.table('events');
    meter.reset();
    meter.crossCheck = true;
    meter.enabled = true;
    const claim = { pk: 'p#k', owner: 'r1', lease_until: 1767225630000, expires_at: 1769817600 };
    const condition = { ConditionExpression: 'attribute_not_exists(pk)' };
    await dynamo.ddb.send(new PutCommand({ TableName: table, Item: claim, ...condition }));
    await dynamo.ddb.send(new PutCommand({ TableName: table, Item: { pk: '~commit#r1', expires_at: 1769817600 } }));
    await expect(dynamo.ddb.send(new PutCommand({ TableName: table, Item: claim, ...condition }))).rejects.toThrow();
    await dynamo.ddb.send(new GetCommand({ TableName: table, Key: { pk: '~commit#r1' }, ConsistentRead: true }));
    meter.enabled = false;

    // The ledger has no index: a claim, a commit and a failed claim are one write unit each.
    expect(Object.fromEntries(meter.writes)).toEqual({ [table]: 1 + 1 + 1 });
    expect(Object.fromEntries(meter.reads)).toEqual({ [table]: 1 });
    expect(meter.total(meter.conditionalFailures)).toBe(1);
    expect(meter.unmetered.size).toBe(0);
    // dynalite reports table units for successful calls (its failed condition is an error without units).
    expect(meter.crossChecks.map((c) => [c.op, c.ours, c.dynalite])).toEqual([
      ['PutCommand', 1, 1],
      ['PutCommand', 1, 1],
      ['GetCommand', 1, 1],
    ]);
  });
});
