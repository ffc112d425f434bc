/**
 * The document client on dynalite (as the local stack runs it): plain values in and out, every value
 * type DynamoDB stores (binary included, which crosses the wire as base64), undefined values removed,
 * pages, batches, and the table commands.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DescribeTableCommand,
  GetCommand,
  ListTablesCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
} from '../../lambdas/aws-client/dynamodb';
import { startTestDynamo, type TestDynamo } from '../helpers/dynamo';

let dynamo: TestDynamo;
let table: string;
beforeAll(async () => {
  dynamo = await startTestDynamo();
  table = dynamo.table('experiments'); // project_id + sk
});
afterAll(() => dynamo.close());

describe('DocumentClient on dynalite', () => {
  it('round-trips every value type, binary and sets included, and drops undefined values', async () => {
    const item = {
      project_id: 'p1',
      sk: 'all-types',
      s: 'Zoë 🚀',
      n: 12.5,
      big: 9_007_199_254_740_991,
      yes: true,
      nothing: null,
      bytes: Buffer.from([0, 1, 254, 255]),
      list: [1, 'two', { three: 3 }, Buffer.from('x')],
      map: { nested: { deeper: 'ok', gone: undefined } },
      strings: new Set(['a', 'b']),
      numbers: new Set([1, 2]),
      gone: undefined,
    };
    await dynamo.ddb.send(new PutCommand({ TableName: table, Item: item }));
    const out = await dynamo.ddb.send(new GetCommand({ TableName: table, Key: { project_id: 'p1', sk: 'all-types' }, ConsistentRead: true }));
    const { gone: _gone, ...stored } = item;
    expect(out.Item).toEqual({
      ...stored,
      bytes: new Uint8Array([0, 1, 254, 255]),
      list: [1, 'two', { three: 3 }, new Uint8Array(Buffer.from('x'))],
      map: { nested: { deeper: 'ok' } },
    });
    expect(out.Item).not.toHaveProperty('gone');
  });

  it('stores every binary form marshall accepts: ArrayBuffer, DataView, other typed arrays, a binary set, a slice of a larger buffer', async () => {
    const backing = new Uint8Array([9, 9, 1, 2, 3, 9]);
    const item = {
      project_id: 'p1',
      sk: 'binary-forms',
      arrayBuffer: new Uint8Array([0, 1, 2]).buffer,
      dataView: new DataView(new Uint8Array([3, 4, 250]).buffer),
      uint16: new Uint16Array([1, 258]),
      int8: new Int8Array([-1, 5]),
      slice: backing.subarray(2, 5),
      nested: { list: [new Uint8Array([7]).buffer] },
      set: new Set([new Uint8Array([1]), new Uint8Array([2, 3])]),
    };
    await dynamo.ddb.send(new PutCommand({ TableName: table, Item: item }));
    const out = await dynamo.ddb.send(new GetCommand({ TableName: table, Key: { project_id: 'p1', sk: 'binary-forms' }, ConsistentRead: true }));
    const bytesOf = (v: ArrayBuffer | ArrayBufferView) => (v instanceof ArrayBuffer ? new Uint8Array(v) : new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
    expect(out.Item).toEqual({
      project_id: 'p1',
      sk: 'binary-forms',
      arrayBuffer: new Uint8Array([0, 1, 2]),
      dataView: new Uint8Array([3, 4, 250]),
      uint16: bytesOf(item.uint16),
      int8: new Uint8Array([255, 5]),
      slice: new Uint8Array([1, 2, 3]),
      nested: { list: [new Uint8Array([7])] },
      set: new Set([new Uint8Array([1]), new Uint8Array([2, 3])]),
    });
    expect((out.Item!.uint16 as Uint8Array).byteLength).toBe(4);
  });

  it('answers no Item for a missing key, and Attributes for ReturnValues', async () => {
    expect((await dynamo.ddb.send(new GetCommand({ TableName: table, Key: { project_id: 'p1', sk: 'missing' } }))).Item).toBeUndefined();
    await dynamo.ddb.send(new PutCommand({ TableName: table, Item: { project_id: 'p1', sk: 'counter', n: 1 } }));
    const updated = await dynamo.ddb.send(
      new UpdateCommand({
        TableName: table,
        Key: { project_id: 'p1', sk: 'counter' },
        UpdateExpression: 'ADD #n :one',
        ExpressionAttributeNames: { '#n': 'n' },
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'ALL_NEW',
      }),
    );
    expect(updated.Attributes).toEqual({ project_id: 'p1', sk: 'counter', n: 2 });
    const deleted = await dynamo.ddb.send(new DeleteCommand({ TableName: table, Key: { project_id: 'p1', sk: 'counter' }, ReturnValues: 'ALL_OLD' }));
    expect(deleted.Attributes).toEqual({ project_id: 'p1', sk: 'counter', n: 2 });
  });

  it('fails a conditional put with ConditionalCheckFailedException, not retried', async () => {
    await dynamo.ddb.send(new PutCommand({ TableName: table, Item: { project_id: 'p1', sk: 'once' } }));
    const err = await dynamo.ddb
      .send(new PutCommand({ TableName: table, Item: { project_id: 'p1', sk: 'once' }, ConditionExpression: 'attribute_not_exists(sk)' }))
      .catch((e: unknown) => e as { name: string; $metadata: { attempts: number; httpStatusCode: number } });
    expect(err).toMatchObject({ name: 'ConditionalCheckFailedException', $fault: 'client', $metadata: { attempts: 1, httpStatusCode: 400 } });
  });

  it('pages a query with LastEvaluatedKey and ExclusiveStartKey, and a scan', async () => {
    for (let i = 0; i < 5; i++) await dynamo.ddb.send(new PutCommand({ TableName: table, Item: { project_id: 'paged', sk: `k${i}` } }));
    const seen: string[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await dynamo.ddb.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'project_id = :p',
          ExpressionAttributeValues: { ':p': 'paged' },
          Limit: 2,
          ExclusiveStartKey: start,
        }),
      );
      seen.push(...(page.Items ?? []).map((i) => i.sk as string));
      start = page.LastEvaluatedKey;
      if (start) expect(start).toEqual({ project_id: 'paged', sk: seen[seen.length - 1] });
    } while (start);
    expect(seen).toEqual(['k0', 'k1', 'k2', 'k3', 'k4']);
    const scan = await dynamo.ddb.send(
      new ScanCommand({ TableName: table, FilterExpression: 'project_id = :p', ExpressionAttributeValues: { ':p': 'paged' } }),
    );
    expect(scan.Items).toHaveLength(5);
  });

  it('writes and reads in batches', async () => {
    await dynamo.ddb.send(
      new BatchWriteCommand({
        RequestItems: {
          [table]: [
            { PutRequest: { Item: { project_id: 'batch', sk: 'a', v: 1 } } },
            { PutRequest: { Item: { project_id: 'batch', sk: 'b', v: 2 } } },
            { DeleteRequest: { Key: { project_id: 'paged', sk: 'k0' } } },
          ],
        },
      }),
    );
    const out = await dynamo.ddb.send(
      new BatchGetCommand({
        RequestItems: {
          [table]: {
            Keys: [
              { project_id: 'batch', sk: 'a' },
              { project_id: 'batch', sk: 'b' },
              { project_id: 'paged', sk: 'k0' },
            ],
          },
        },
      }),
    );
    expect(out.Responses?.[table]?.sort((x, y) => String(x.sk).localeCompare(String(y.sk)))).toEqual([
      { project_id: 'batch', sk: 'a', v: 1 },
      { project_id: 'batch', sk: 'b', v: 2 },
    ]);
    expect(out.UnprocessedKeys ?? {}).toEqual({});
  });

  it('passes table commands through as DynamoDB has them', async () => {
    const tables = await dynamo.ddb.send(new ListTablesCommand({}));
    expect(tables.TableNames).toContain(table);
    const described = await dynamo.ddb.send(new DescribeTableCommand({ TableName: table }));
    expect(described.Table.KeySchema).toEqual([
      { AttributeName: 'project_id', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ]);
  });
});
