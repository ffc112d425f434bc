/**
 * Counts the billed units of every DynamoDB and Firehose call the process makes, by wrapping
 * `send` of the AWS SDK's DynamoDBDocumentClient and FirehoseClient (every store gets its client from
 * those classes, wherever the stores live; the call deadline, lambdas/store/aws-sdk-config.ts, calls
 * the class's send on each call). The calls still go to dynalite and the local Firehose
 * endpoint unchanged; the meter only reads around them:
 *  - item sizes come from the items themselves (the item before a write, read with an unmetered
 *    GetItem, and after it), never from estimates;
 *  - a failed conditional write is billed as DynamoDB bills it, then rethrown untouched.
 * It also counts "waves" of AWS calls: each time the number of calls in flight rises from zero,
 * one sequential wait a Lambda would spend on the network.
 */
import { DescribeTableCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { FirehoseClient } from '@aws-sdk/client-firehose';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { itemSize, itemWriteBill, pageReadUnits, readUnits, type Item, type TableInfo, type WriteBill } from './dynamo-units';

/** Firehose bills every record rounded up to 5 KB (Firehose pricing page, "Direct PUT"). */
export const FIREHOSE_ROUNDING_BYTES = 5 * 1024;
export const firehoseBilledBytes = (recordBytes: number) => Math.ceil(recordBytes / FIREHOSE_ROUNDING_BYTES) * FIREHOSE_ROUNDING_BYTES;

type Send = (this: unknown, command: unknown, ...rest: unknown[]) => Promise<any>;
type Raw = (command: unknown) => Promise<any>;

export interface CrossCheck {
  op: string;
  ours: number;
  dynalite: number;
}

export class Meter {
  enabled = false;
  /** RRU per "table" or "table/index". */
  readonly reads = new Map<string, number>();
  /** WRU per "table" or "table/index". */
  readonly writes = new Map<string, number>();
  /** Calls per "Operation table". */
  readonly calls = new Map<string, number>();
  readonly conditionalFailures = new Map<string, number>();
  readonly unmetered = new Map<string, number>();
  /** Per delivery stream: records, raw bytes, billed bytes (5 KB rounding). */
  readonly firehose = new Map<string, { records: number; bytes: number; billedBytes: number; calls: number }>();
  /** Waves of AWS calls by the service that opened them. */
  readonly waves = { dynamodb: 0, firehose: 0 };
  readonly crossChecks: CrossCheck[] = [];
  /** Ask dynalite for ReturnConsumedCapacity and keep its figure next to ours (table units only). */
  crossCheck = false;
  private inFlight = 0;

  reset(): void {
    for (const m of [this.reads, this.writes, this.calls, this.conditionalFailures, this.unmetered, this.firehose]) m.clear();
    this.waves.dynamodb = 0;
    this.waves.firehose = 0;
    this.crossChecks.length = 0;
  }

  enter(service: 'dynamodb' | 'firehose'): void {
    if (this.inFlight++ === 0) this.waves[service]++;
  }

  exit(): void {
    this.inFlight--;
  }

  private add(map: Map<string, number>, key: string, n: number) {
    map.set(key, (map.get(key) ?? 0) + n);
  }

  read(table: string, index: string | undefined, units: number) {
    this.add(this.reads, index ? `${table}/${index}` : table, units);
  }

  write(table: string, bill: WriteBill) {
    this.add(this.writes, table, bill.table);
    for (const [index, units] of Object.entries(bill.indexes)) this.add(this.writes, `${table}/${index}`, units);
  }

  call(op: string, table: string) {
    this.add(this.calls, `${op} ${table}`, 1);
  }

  failure(op: string, table: string) {
    this.add(this.conditionalFailures, `${op} ${table}`, 1);
  }

  skip(op: string) {
    this.add(this.unmetered, op, 1);
  }

  firehoseRecords(stream: string, recordBytes: number[]) {
    const s = this.firehose.get(stream) ?? { records: 0, bytes: 0, billedBytes: 0, calls: 0 };
    s.calls++;
    for (const n of recordBytes) {
      s.records++;
      s.bytes += n;
      s.billedBytes += firehoseBilledBytes(n);
    }
    this.firehose.set(stream, s);
  }

  total(map: Map<string, number>, prefix?: string): number {
    let sum = 0;
    for (const [k, v] of map) if (!prefix || k === prefix || k.startsWith(`${prefix}/`)) sum += v;
    return sum;
  }
}

const MARSHALL = { removeUndefinedValues: true } as const;
const toItem = (plain: Record<string, unknown> | undefined): Item | undefined => (plain ? (marshall(plain, MARSHALL) as Item) : undefined);
const isConditionFailure = (err: unknown) => (err as { name?: string })?.name === 'ConditionalCheckFailedException';
const keyOf = (table: TableInfo, item: Record<string, unknown>) => Object.fromEntries(table.keys.map((k) => [k, item[k]]));
const sameKey = (a: Record<string, unknown>, b: Record<string, unknown>) =>
  JSON.stringify(a, Object.keys(a).sort()) === JSON.stringify(b, Object.keys(b).sort());

/** Installs the meter on both clients; returns the function that removes it. */
export function installMeter(meter: Meter): () => void {
  const restore: Array<() => void> = [];
  const tables = new Map<string, Promise<TableInfo>>();

  const wrap = (proto: object, service: 'dynamodb' | 'firehose', metered: (raw: Raw, command: any) => Promise<any>) => {
    const had = Object.prototype.hasOwnProperty.call(proto, 'send');
    const original = (proto as { send: Send }).send;
    (proto as { send: Send }).send = async function (this: unknown, command: unknown, ...rest: unknown[]) {
      if (!meter.enabled) return original.call(this, command, ...rest);
      // The metered command keeps its send options; the meter's own reads go out without any.
      const raw: Raw = (c) => original.call(this, c, ...(c === command ? rest : []));
      meter.enter(service);
      try {
        return await metered(raw, command);
      } finally {
        meter.exit();
      }
    };
    restore.push(() => {
      if (had) (proto as { send: Send }).send = original;
      else delete (proto as { send?: Send }).send;
    });
  };

  wrap(DynamoDBDocumentClient.prototype, 'dynamodb', (raw, command) => meterDynamo(meter, raw, command, tables));
  wrap(FirehoseClient.prototype, 'firehose', async (raw, command) => {
    const out = await raw(command);
    if (command?.constructor?.name === 'PutRecordBatchCommand') {
      const records = (command.input.Records ?? []) as Array<{ Data: Uint8Array }>;
      // Records the stream rejected (ErrorCode) are not billed; the sink resends them.
      const accepted = records.filter((_, i) => !out.RequestResponses?.[i]?.ErrorCode);
      meter.firehoseRecords(
        command.input.DeliveryStreamName,
        accepted.map((r) => r.Data.length),
      );
    } else {
      meter.skip(`Firehose ${command?.constructor?.name}`);
    }
    return out;
  });
  return () => restore.forEach((r) => r());
}

function describe(raw: Raw, tables: Map<string, Promise<TableInfo>>, name: string): Promise<TableInfo> {
  let info = tables.get(name);
  if (!info) {
    info = raw(new DescribeTableCommand({ TableName: name })).then(({ Table }) => ({
      name,
      keys: (Table.KeySchema ?? []).map((k: { AttributeName: string }) => k.AttributeName),
      indexes: (Table.GlobalSecondaryIndexes ?? []).map((g: any) => ({
        name: g.IndexName,
        keys: g.KeySchema.map((k: { AttributeName: string }) => k.AttributeName),
        projection: { type: g.Projection?.ProjectionType ?? 'ALL', include: g.Projection?.NonKeyAttributes },
      })),
    }));
    tables.set(name, info);
  }
  return info;
}

async function meterDynamo(meter: Meter, raw: Raw, command: any, tables: Map<string, Promise<TableInfo>>): Promise<any> {
  const op: string = command?.constructor?.name ?? 'unknown';
  const input = command.input ?? {};
  const table = (name: string) => describe(raw, tables, name);
  /** The whole item as it stands (unmetered), marshalled. */
  const current = async (name: string, key: Record<string, unknown>) =>
    toItem((await raw(new GetCommand({ TableName: name, Key: key, ConsistentRead: true }))).Item);
  const ask = () => {
    if (meter.crossCheck) input.ReturnConsumedCapacity = 'TOTAL';
  };
  const check = (ours: number, out: any) => {
    if (!meter.crossCheck || !out?.ConsumedCapacity) return;
    const list = Array.isArray(out.ConsumedCapacity) ? out.ConsumedCapacity : [out.ConsumedCapacity];
    meter.crossChecks.push({ op, ours, dynalite: list.reduce((s: number, c: { CapacityUnits?: number }) => s + (c.CapacityUnits ?? 0), 0) });
  };

  switch (op) {
    case 'GetCommand': {
      const info = await table(input.TableName);
      meter.call(op, info.name);
      ask();
      const out = await raw(command);
      const full = input.ProjectionExpression || input.AttributesToGet ? await current(info.name, input.Key) : toItem(out.Item);
      const units = readUnits(full ? itemSize(full) : 0, input.ConsistentRead === true);
      meter.read(info.name, undefined, units);
      check(units, out);
      return out;
    }
    case 'PutCommand':
    case 'UpdateCommand':
    case 'DeleteCommand': {
      const info = await table(input.TableName);
      meter.call(op, info.name);
      const key = op === 'PutCommand' ? keyOf(info, input.Item) : input.Key;
      const kind = op === 'PutCommand' ? 'put' : op === 'UpdateCommand' ? 'update' : 'delete';
      const before = await current(info.name, key);
      ask();
      let out;
      try {
        out = await raw(command);
      } catch (err) {
        if (isConditionFailure(err)) {
          meter.failure(op, info.name);
          meter.write(info.name, itemWriteBill(info, kind, before, undefined, { failed: true, attempted: toItem(input.Item) }));
        }
        throw err;
      }
      const after = kind === 'put' ? toItem(input.Item) : kind === 'update' ? await current(info.name, key) : undefined;
      const bill = itemWriteBill(info, kind, before, after);
      meter.write(info.name, bill);
      check(bill.table, out);
      return out;
    }
    case 'BatchWriteCommand': {
      const requests = Object.entries(input.RequestItems as Record<string, any[]>);
      const plans = await Promise.all(
        requests.map(async ([name, list]) => {
          const info = await table(name);
          meter.call(op, info.name);
          const rows = await Promise.all(
            list.map(async (r) => {
              const key = r.PutRequest ? keyOf(info, r.PutRequest.Item) : r.DeleteRequest.Key;
              return { r, key, before: await current(info.name, key) };
            }),
          );
          return { info, rows };
        }),
      );
      ask();
      const out = await raw(command);
      let ours = 0;
      for (const { info, rows } of plans) {
        const unprocessed = ((out.UnprocessedItems?.[info.name] ?? []) as any[]).map((r) =>
          r.PutRequest ? keyOf(info, r.PutRequest.Item) : r.DeleteRequest.Key,
        );
        for (const { r, key, before } of rows) {
          if (unprocessed.some((u) => sameKey(u, key))) continue;
          const bill = r.PutRequest ? itemWriteBill(info, 'put', before, toItem(r.PutRequest.Item)) : itemWriteBill(info, 'delete', before, undefined);
          meter.write(info.name, bill);
          ours += bill.table;
        }
      }
      check(ours, out);
      return out;
    }
    case 'BatchGetCommand': {
      ask();
      const out = await raw(command);
      let ours = 0;
      for (const [name, request] of Object.entries(input.RequestItems as Record<string, any>)) {
        const info = await table(name);
        meter.call(op, info.name);
        const unprocessed = (out.UnprocessedKeys?.[name]?.Keys ?? []) as Record<string, unknown>[];
        const responses = (out.Responses?.[name] ?? []) as Record<string, unknown>[];
        for (const key of request.Keys as Record<string, unknown>[]) {
          if (unprocessed.some((u) => sameKey(u, key))) continue;
          const found = request.ProjectionExpression ? await current(name, key) : toItem(responses.find((i) => sameKey(keyOf(info, i), key)));
          const units = readUnits(found ? itemSize(found) : 0, request.ConsistentRead === true);
          meter.read(name, undefined, units);
          ours += units;
        }
      }
      check(ours, out);
      return out;
    }
    case 'QueryCommand':
    case 'ScanCommand': {
      const info = await table(input.TableName);
      meter.call(op, input.IndexName ? `${info.name}/${input.IndexName}` : info.name);
      const out = await raw(command);
      // What the page evaluated: the same page without its filter and projection (unmetered).
      const keyCondition: string = input.KeyConditionExpression ?? '';
      const used = (placeholders?: Record<string, unknown>) =>
        placeholders && Object.fromEntries(Object.entries(placeholders).filter(([p]) => new RegExp(`${p}\\b`).test(keyCondition)));
      const names = used(input.ExpressionAttributeNames);
      const values = used(input.ExpressionAttributeValues);
      const Replay = op === 'QueryCommand' ? QueryCommand : ScanCommand;
      const evaluated = await raw(
        new Replay({
          TableName: input.TableName,
          IndexName: input.IndexName,
          KeyConditionExpression: input.KeyConditionExpression,
          ExpressionAttributeNames: names && Object.keys(names).length ? names : undefined,
          ExpressionAttributeValues: values && Object.keys(values).length ? (values as Record<string, AttributeValue>) : undefined,
          ScanIndexForward: input.ScanIndexForward,
          Limit: input.Limit,
          ExclusiveStartKey: input.ExclusiveStartKey,
          ConsistentRead: input.ConsistentRead,
        } as never),
      );
      const bytes = ((evaluated.Items ?? []) as Record<string, unknown>[]).reduce((s, i) => s + itemSize(toItem(i)!), 0);
      meter.read(info.name, input.IndexName, pageReadUnits(bytes, input.ConsistentRead === true));
      return out;
    }
    default:
      // TransactWrite/TransactGet and anything else: not used by ingestion today; counted as unmetered
      // so the report says so instead of silently leaving them out.
      meter.skip(`DynamoDB ${op}`);
      return raw(command);
  }
}
