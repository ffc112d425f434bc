/**
 * Requests about a person, kept per project (the deletions and exports tables): keyed by project and
 * "<requested_at>#<id>", so a project's listing is one reverse Query, newest first; a request is found
 * by its ID through the time its ID names (the ID is "<requested_at ms base 36>-<uuid>",
 * handlers/deletions.ts) and the unfinished ones by a Scan of the (small) table. Progress replaces
 * the item whole.
 */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { queryAll, scanAll } from './dynamo-client';
import { InvalidDeletionCursor } from '../ports';

export interface ProjectRequest {
  id: string;
  project_id: string;
  requested_at: string;
  state: string;
}

type Item<T> = T & { sk: string };

const skOf = (d: Pick<ProjectRequest, 'id' | 'requested_at'>) => `${d.requested_at}#${d.id}`;

/** The request time a request ID names (its first part, milliseconds in base 36); undefined for an ID of another shape. */
export function requestedAtOf(id: string): string | undefined {
  const m = /^([0-9a-z]{1,11})-[0-9a-f-]{36}$/.exec(id);
  if (!m) return undefined;
  const ms = parseInt(m[1]!, 36);
  return Number.isFinite(ms) && ms < 8.64e15 ? new Date(ms).toISOString() : undefined;
}

export class DynamoProjectRequests<T extends ProjectRequest> {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  private fromItem({ sk: _sk, ...d }: Item<T>): T {
    return d as unknown as T;
  }

  async put(request: T): Promise<void> {
    await this.ddb.send(new PutCommand({ TableName: this.table, Item: { ...request, sk: skOf(request) } }));
  }

  async get(projectId: string, id: string): Promise<T | undefined> {
    const at = requestedAtOf(id);
    if (!at) return undefined;
    const out = await this.ddb.send(new GetCommand({ TableName: this.table, Key: { project_id: projectId, sk: `${at}#${id}` }, ConsistentRead: true }));
    return out.Item ? this.fromItem(out.Item as Item<T>) : undefined;
  }

  async list(projectId: string, limit: number, cursor?: string): Promise<{ items: T[]; next?: string }> {
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
    return { items: ((out.Items ?? []) as Array<Item<T>>).map((i) => this.fromItem(i)), ...(next ? { next: Buffer.from(next).toString('base64url') } : {}) };
  }

  async all(projectId: string): Promise<T[]> {
    const items = await queryAll<Item<T>>(this.ddb, {
      TableName: this.table,
      KeyConditionExpression: 'project_id = :p',
      ExpressionAttributeValues: { ':p': projectId },
      ConsistentRead: true,
    });
    return items.map((i) => this.fromItem(i));
  }

  /** Every request not done (or matching `orWhere`, a condition on other attributes), of every project, oldest first. */
  async unfinished(orWhere?: { condition: string; values: Record<string, unknown> }): Promise<T[]> {
    const items = await scanAll<Item<T>>(this.ddb, {
      TableName: this.table,
      FilterExpression: orWhere ? `#s <> :done OR ${orWhere.condition}` : '#s <> :done',
      ExpressionAttributeNames: { '#s': 'state' },
      ExpressionAttributeValues: { ':done': 'done', ...orWhere?.values },
      ConsistentRead: true,
    });
    return items.map((i) => this.fromItem(i)).sort((a, b) => a.requested_at.localeCompare(b.requested_at) || a.id.localeCompare(b.id));
  }

  async remove(request: T): Promise<void> {
    await this.ddb.send(new DeleteCommand({ TableName: this.table, Key: { project_id: request.project_id, sk: skOf(request) } }));
  }
}

function decodeCursor(cursor: string): string {
  const sk = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^\d{4}-\d{2}-\d{2}T[\d:.]+Z#[0-9a-z]{1,11}-[0-9a-f-]{36}$/.test(sk))
    throw new InvalidDeletionCursor('cursor is not one this listing gave: start again without it');
  return sk;
}
