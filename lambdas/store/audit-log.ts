/**
 * The audit log (table audit_log): one partition ("log"), sort key "<at>#<id>", newest first by a
 * reverse Query. An entry is put with a condition that it is new (an SDK retry of a put whose answer
 * was lost is a ConditionalCheckFailed on our own item: treated as written), and only its status is
 * ever updated, once. It expires (TTL) after the retention days.
 */
import { PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { actorName, type AuditEntry } from '../domain/audit-entry';
import { InvalidAuditCursor, type AuditFilter, type AuditLog, type AuditPage } from '../ports';
import { isRetriedConditionalCheckFailed } from './dynamo-client';

const PK = 'log';
const DAY_SECONDS = 86_400;

type Item = AuditEntry & { pk: string; sk: string; actor_name: string; project_id?: string; expires_at: number };

const skOf = (e: Pick<AuditEntry, 'id' | 'at'>) => `${e.at}#${e.id}`;

export class DynamoAuditLog implements AuditLog {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly retentionDays: number,
  ) {}

  async begin(entry: AuditEntry): Promise<void> {
    const item: Item = {
      ...entry,
      pk: PK,
      sk: skOf(entry),
      actor_name: actorName(entry.actor),
      ...(entry.target.project_id ? { project_id: entry.target.project_id } : {}),
      expires_at: Math.floor(Date.parse(entry.at) / 1000) + this.retentionDays * DAY_SECONDS,
    };
    try {
      await this.ddb.send(new PutCommand({ TableName: this.table, Item: item, ConditionExpression: 'attribute_not_exists(sk)' }));
    } catch (err) {
      if (!isRetriedConditionalCheckFailed(err)) throw err;
    }
  }

  async finish(entry: Pick<AuditEntry, 'id' | 'at'>, status: number, fields: string[]): Promise<void> {
    await this.ddb.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { pk: PK, sk: skOf(entry) },
        UpdateExpression: 'SET #s = :s, #f = :f',
        ConditionExpression: 'attribute_exists(sk)',
        ExpressionAttributeNames: { '#s': 'status', '#f': 'fields' },
        ExpressionAttributeValues: { ':s': status, ':f': fields },
      }),
    );
  }

  async list(filter: AuditFilter, limit: number, cursor?: string): Promise<AuditPage> {
    const names: Record<string, string> = { '#pk': 'pk', '#sk': 'sk' };
    const values: Record<string, unknown> = { ':pk': PK };
    let key = '#pk = :pk';
    const from = filter.from ?? '';
    const to = filter.to ? `${filter.to}#\uffff` : '\uffff';
    key += ' AND #sk BETWEEN :from AND :to';
    values[':from'] = from;
    values[':to'] = to;
    const conditions: string[] = [];
    const eq = (attr: string, value: string | undefined) => {
      if (value === undefined) return;
      names[`#${attr}`] = attr;
      values[`:${attr}`] = value;
      conditions.push(`#${attr} = :${attr}`);
    };
    eq('actor_name', filter.actor);
    eq('route', filter.route);
    eq('project_id', filter.projectId);
    let start = cursor === undefined ? undefined : decodeCursor(cursor);
    const entries: AuditEntry[] = [];
    // Limit counts items read before the filter: read on until the page is full or the log ends.
    do {
      const out = await this.ddb.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: key,
          ...(conditions.length ? { FilterExpression: conditions.join(' AND ') } : {}),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ScanIndexForward: false,
          Limit: limit - entries.length,
          ...(start ? { ExclusiveStartKey: { pk: PK, sk: start } } : {}),
        }),
      );
      for (const item of (out.Items ?? []) as Item[]) {
        const { pk: _pk, sk: _sk, actor_name: _a, project_id: _p, expires_at: _e, ...entry } = item;
        entries.push(entry);
      }
      start = out.LastEvaluatedKey?.sk as string | undefined;
    } while (start !== undefined && entries.length < limit);
    return { entries, ...(start !== undefined ? { next: Buffer.from(start).toString('base64url') } : {}) };
  }
}

function decodeCursor(cursor: string): string {
  const sk = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^\d{4}-\d{2}-\d{2}T[\d:.]+Z#[0-9a-f-]{36}$/.test(sk)) throw new InvalidAuditCursor('cursor is not one this listing gave: start again without it');
  return sk;
}
