/**
 * A DynamoDB document client: the part of @aws-sdk/lib-dynamodb's DynamoDBDocumentClient the stores use,
 * `ddb.send(new PutCommand({...}))` with plain JavaScript values in and out (marshalled with
 * @aws-sdk/util-dynamodb, undefined values removed as documentClient() always asked), over the small
 * signed JSON client instead of the SDK's core. The table commands ensureTables and the cost meter use
 * (ListTables, CreateTable, DescribeTable) pass their input and output as DynamoDB has them.
 */
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { AwsJsonClient, type AwsClientOptions, type Output } from './json-client';
import type { ResponseMetadata } from './service-error';

export const DYNAMODB = {
  name: 'dynamodb',
  targetPrefix: 'DynamoDB_20120810',
  jsonVersion: '1.0',
  maxAttempts: 4,
  backoffBaseMs: 25,
  attemptTimeoutMs: 3_000,
} as const;

/**
 * An item, key or value map as plain JavaScript values. Its values are `any`, as lib-dynamodb's
 * NativeAttributeValue: a store puts its own item interfaces in and casts what it reads back.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Doc = Record<string, any>;
type Values = Record<string, unknown>;
type Names = Record<string, string>;
type ReturnValues = 'NONE' | 'ALL_OLD' | 'UPDATED_OLD' | 'ALL_NEW' | 'UPDATED_NEW';
type Capacity = 'INDEXES' | 'TOTAL' | 'NONE';

interface Common {
  TableName: string;
  ReturnConsumedCapacity?: Capacity;
}
interface Conditional {
  ConditionExpression?: string;
  ExpressionAttributeNames?: Names;
  ExpressionAttributeValues?: Values;
  ReturnValuesOnConditionCheckFailure?: 'ALL_OLD' | 'NONE';
}
export interface PutInput extends Common, Conditional {
  Item: Doc;
  ReturnValues?: ReturnValues;
}
export interface GetInput extends Common {
  Key: Doc;
  ConsistentRead?: boolean;
  ProjectionExpression?: string;
  ExpressionAttributeNames?: Names;
}
export interface UpdateInput extends Common, Conditional {
  Key: Doc;
  UpdateExpression: string;
  ReturnValues?: ReturnValues;
}
export interface DeleteInput extends Common, Conditional {
  Key: Doc;
  ReturnValues?: ReturnValues;
}
interface Read extends Common {
  IndexName?: string;
  FilterExpression?: string;
  ProjectionExpression?: string;
  ExpressionAttributeNames?: Names;
  ExpressionAttributeValues?: Values;
  ExclusiveStartKey?: Doc;
  Limit?: number;
  ConsistentRead?: boolean;
  Select?: 'ALL_ATTRIBUTES' | 'ALL_PROJECTED_ATTRIBUTES' | 'SPECIFIC_ATTRIBUTES' | 'COUNT';
}
export interface QueryInput extends Read {
  KeyConditionExpression: string;
  ScanIndexForward?: boolean;
}
export interface ScanInput extends Read {
  Segment?: number;
  TotalSegments?: number;
}
export interface BatchGetInput {
  RequestItems: Record<string, { Keys: Doc[]; ConsistentRead?: boolean; ProjectionExpression?: string; ExpressionAttributeNames?: Names }>;
  ReturnConsumedCapacity?: Capacity;
}
type WriteRequest = { PutRequest: { Item: Doc }; DeleteRequest?: never } | { DeleteRequest: { Key: Doc }; PutRequest?: never };
export interface BatchWriteInput {
  RequestItems: Record<string, WriteRequest[]>;
  ReturnConsumedCapacity?: Capacity;
}

interface Meta {
  $metadata: ResponseMetadata;
  ConsumedCapacity?: Output['ConsumedCapacity'];
}
export interface GetOutput extends Meta {
  Item?: Doc;
}
export interface WriteOutput extends Meta {
  Attributes?: Doc;
}
export interface PageOutput extends Meta {
  Items?: Doc[];
  Count?: number;
  ScannedCount?: number;
  LastEvaluatedKey?: Doc;
}
export interface BatchGetOutput extends Meta {
  Responses?: Record<string, Doc[]>;
  UnprocessedKeys?: BatchGetInput['RequestItems'];
}
export interface BatchWriteOutput extends Meta {
  UnprocessedItems?: BatchWriteInput['RequestItems'];
}

const MARSHALL = { removeUndefinedValues: true } as const;
const toWire = (doc: Doc) => binaryToBase64(marshall(doc, MARSHALL)) as Record<string, unknown>;
const fromWire = (item: Record<string, unknown>) => unmarshall(base64ToBinary(item) as never) as Doc;
const maybe = <T, R>(v: T | undefined, f: (v: T) => R): R | undefined => (v === undefined ? undefined : f(v));

/** One command: the operation, its input as given, and how input and output cross the wire. */
export abstract class DynamoCommand<I, O> {
  abstract readonly operation: string;
  constructor(readonly input: I) {}
  /** The wire input (AttributeValues). */
  abstract wireInput(): unknown;
  /** The output as plain values. */
  abstract output(wire: Output): O;
}

/** Item, Key, ExpressionAttributeValues and ExclusiveStartKey marshalled; the rest as given. */
function marshallCommon<T extends object>(input: T): Record<string, unknown> {
  const wire: Record<string, unknown> = { ...(input as Record<string, unknown>) };
  for (const field of ['Item', 'Key', 'ExpressionAttributeValues', 'ExclusiveStartKey'])
    if (wire[field] !== undefined) wire[field] = toWire(wire[field] as Doc);
  return wire;
}

function unmarshallAttributes(out: Output): WriteOutput {
  return { ...out, Attributes: maybe(out.Attributes, fromWire) };
}

export class PutCommand extends DynamoCommand<PutInput, WriteOutput> {
  readonly operation = 'PutItem';
  wireInput = () => marshallCommon(this.input);
  output = unmarshallAttributes;
}

export class GetCommand extends DynamoCommand<GetInput, GetOutput> {
  readonly operation = 'GetItem';
  wireInput = () => marshallCommon(this.input);
  output = (out: Output): GetOutput => ({ ...out, Item: maybe(out.Item, fromWire) });
}

export class UpdateCommand extends DynamoCommand<UpdateInput, WriteOutput> {
  readonly operation = 'UpdateItem';
  wireInput = () => marshallCommon(this.input);
  output = unmarshallAttributes;
}

export class DeleteCommand extends DynamoCommand<DeleteInput, WriteOutput> {
  readonly operation = 'DeleteItem';
  wireInput = () => marshallCommon(this.input);
  output = unmarshallAttributes;
}

const page = (out: Output): PageOutput => ({
  ...out,
  Items: maybe(out.Items as Record<string, unknown>[] | undefined, (items) => items.map(fromWire)),
  LastEvaluatedKey: maybe(out.LastEvaluatedKey, fromWire),
});

export class QueryCommand extends DynamoCommand<QueryInput, PageOutput> {
  readonly operation = 'Query';
  wireInput = () => marshallCommon(this.input);
  output = page;
}

export class ScanCommand extends DynamoCommand<ScanInput, PageOutput> {
  readonly operation = 'Scan';
  wireInput = () => marshallCommon(this.input);
  output = page;
}

const mapValues = <A, B>(record: Record<string, A> | undefined, f: (a: A) => B): Record<string, B> | undefined =>
  record && Object.fromEntries(Object.entries(record).map(([k, v]) => [k, f(v)]));

export class BatchGetCommand extends DynamoCommand<BatchGetInput, BatchGetOutput> {
  readonly operation = 'BatchGetItem';
  wireInput = () => ({ ...this.input, RequestItems: mapValues(this.input.RequestItems, (r) => ({ ...r, Keys: r.Keys.map(toWire) })) });
  output = (out: Output): BatchGetOutput => ({
    ...out,
    Responses: mapValues(out.Responses as Record<string, Record<string, unknown>[]> | undefined, (items) => items.map(fromWire)),
    UnprocessedKeys: mapValues(out.UnprocessedKeys as BatchGetInput['RequestItems'] | undefined, (r) => ({ ...r, Keys: r.Keys.map(fromWire) })),
  });
}

const writeRequests = (requests: WriteRequest[], f: (doc: Doc) => Doc): WriteRequest[] =>
  requests.map((r) => (r.PutRequest ? { PutRequest: { Item: f(r.PutRequest.Item) } } : { DeleteRequest: { Key: f(r.DeleteRequest!.Key) } }));

export class BatchWriteCommand extends DynamoCommand<BatchWriteInput, BatchWriteOutput> {
  readonly operation = 'BatchWriteItem';
  wireInput = () => ({ ...this.input, RequestItems: mapValues(this.input.RequestItems, (list) => writeRequests(list, toWire)) });
  output = (out: Output): BatchWriteOutput => ({
    ...out,
    UnprocessedItems: mapValues(out.UnprocessedItems as BatchWriteInput['RequestItems'] | undefined, (list) => writeRequests(list, fromWire)),
  });
}

/** A table-level command: input and output exactly as DynamoDB has them. */
abstract class TableCommand extends DynamoCommand<Doc, Output> {
  wireInput = () => this.input;
  output = (out: Output) => out;
}
export class ListTablesCommand extends TableCommand {
  readonly operation = 'ListTables';
}
export class CreateTableCommand extends TableCommand {
  readonly operation = 'CreateTable';
}
export class DescribeTableCommand extends TableCommand {
  readonly operation = 'DescribeTable';
}

/** The document client: one per process, its sockets kept alive between calls. */
export class DocumentClient {
  private readonly json: AwsJsonClient;

  constructor(options: AwsClientOptions = {}) {
    this.json = new AwsJsonClient(DYNAMODB, options);
  }

  async send<O>(command: DynamoCommand<unknown, O>): Promise<O> {
    return command.output(await this.json.call(command.operation, command.wireInput()));
  }

  destroy(): void {
    this.json.destroy();
  }
}

/**
 * B and BS values go over JSON as base64 (the SDK's serializer does this); the rest as marshall made them.
 * Binary is whatever marshall takes as binary and leaves as given: an ArrayBuffer, or any view of one
 * (Buffer, Uint8Array, other typed arrays, DataView), whose own bytes are sent (not its whole buffer).
 */
function binaryToBase64(value: unknown): unknown {
  if (value instanceof ArrayBuffer) return Buffer.from(value).toString('base64');
  if (ArrayBuffer.isView(value)) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let list: unknown[] | undefined;
    value.forEach((v, i) => {
      const c = binaryToBase64(v);
      if (c !== v) (list ??= value.slice())[i] = c;
    });
    return list ?? value;
  }
  let copy: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(value)) {
    const c = binaryToBase64(v);
    if (c !== v) (copy ??= { ...(value as Record<string, unknown>) })[k] = c;
  }
  return copy ?? value;
}

/** A Uint8Array as the SDK gives binary values (not a Buffer), over the decoded bytes. */
function bytes(base64: string): Uint8Array {
  const b = Buffer.from(base64, 'base64');
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

/** The reverse for answers: B and BS (base64 strings) back to bytes, inside maps and lists too. */
function base64ToBinary(item: Record<string, unknown>): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(item)) {
    const converted = attributeFromWire(v as Record<string, unknown>);
    if (converted !== v) (copy ??= { ...item })[k] = converted;
  }
  return copy ?? item;
}
function attributeFromWire(av: Record<string, unknown>): Record<string, unknown> {
  if (!av || typeof av !== 'object') return av;
  if (typeof av.B === 'string') return { B: bytes(av.B) };
  if (Array.isArray(av.BS)) return { BS: (av.BS as string[]).map(bytes) };
  if (av.M && typeof av.M === 'object') {
    const m = base64ToBinary(av.M as Record<string, unknown>);
    return m === av.M ? av : { M: m };
  }
  if (Array.isArray(av.L)) {
    const l = (av.L as Record<string, unknown>[]).map(attributeFromWire);
    return l.every((x, i) => x === (av.L as unknown[])[i]) ? av : { L: l };
  }
  return av;
}
