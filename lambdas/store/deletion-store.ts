/**
 * The deletions of people (table deletions): keyed by project and "<requested_at>#<id>", so a
 * project's listing is one reverse Query, newest first; a deletion is found by its ID through the
 * time its ID names (the ID is "<requested_at ms base 36>-<uuid>", handlers/deletions.ts) and the
 * unfinished ones by a Scan of the (small) table. Progress replaces the item whole.
 */
import { GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { scanAll } from './dynamo-client';
import { InvalidDeletionCursor, type Deletion, type DeletionPage, type DeletionStore } from '../ports';

type Item = Deletion & { sk: string };

const skOf = (d: Pick<Deletion, 'id' | 'requested_at'>) => `${d.requested_at}#${d.id}`;

/** The request time a deletion ID names (its first part, milliseconds in base 36); undefined for an ID of another shape. */
export function requestedAtOf(id: string): string | undefined {
  const m = /^([0-9a-z]{1,11})-[0-9a-f-]{36}$/.exec(id);
  if (!m) return undefined;
  const ms = parseInt(m[1]!, 36);
  return Number.isFinite(ms) && ms < 8.64e15 ? new Date(ms).toISOString() : undefined;
}

const fromItem = ({ sk: _sk, ...d }: Item): Deletion => d;

export class DynamoDeletionStore implements DeletionStore {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async create(deletion: Deletion): Promise<void> {
    await this.ddb.send(new PutCommand({ TableName: this.table, Item: { ...deletion, sk: skOf(deletion) } }));
  }

  async get(projectId: string, id: string): Promise<Deletion | undefined> {
    const at = requestedAtOf(id);
    if (!at) return undefined;
    const out = await this.ddb.send(new GetCommand({ TableName: this.table, Key: { project_id: projectId, sk: `${at}#${id}` }, ConsistentRead: true }));
    return out.Item ? fromItem(out.Item as Item) : undefined;
  }

  async list(projectId: string, limit: number, cursor?: string): Promise<DeletionPage> {
    const start = cursor === undefined ? undefined : decodeCursor(cursor);
    const out = await this.ddb.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'project_id = :p',
        ExpressionAttributeValues: { ':p': projectId },
        ScanIndexForward: false,
        Limit: limit,
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: { project_id: projectId, sk: start } } : {}),
      }),
    );
    const next = out.LastEvaluatedKey?.sk as string | undefined;
    return { deletions: ((out.Items ?? []) as Item[]).map(fromItem), ...(next ? { next: Buffer.from(next).toString('base64url') } : {}) };
  }

  async unfinished(nowMs: number): Promise<Deletion[]> {
    const items = await scanAll<Item>(this.ddb, {
      TableName: this.table,
      FilterExpression: '#s <> :done OR sweep_until > :now',
      ExpressionAttributeNames: { '#s': 'state' },
      ExpressionAttributeValues: { ':done': 'done', ':now': new Date(nowMs).toISOString() },
      ConsistentRead: true,
    });
    return items.map(fromItem).sort((a, b) => a.requested_at.localeCompare(b.requested_at) || a.id.localeCompare(b.id));
  }

  async save(deletion: Deletion): Promise<void> {
    await this.ddb.send(new PutCommand({ TableName: this.table, Item: { ...deletion, sk: skOf(deletion) } }));
  }
}

function decodeCursor(cursor: string): string {
  const sk = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^\d{4}-\d{2}-\d{2}T[\d:.]+Z#[0-9a-z]{1,11}-[0-9a-f-]{36}$/.test(sk))
    throw new InvalidDeletionCursor('cursor is not one this listing gave: start again without it');
  return sk;
}
