/**
 * The events ledger on DynamoDB. Deduplication is a conditional put on (project, dedupe key):
 * no read-then-write, so two concurrent requests can never both store one event.
 *
 * An item is first "pending" (a claim with an owner and a lease), and becomes "stored" only after
 * the raw stream accepted the event. A claim whose request died before storing (and whose release
 * failed too) expires with its lease, so a retry can take it over: nothing is deduplicated against
 * an event that was never stored.
 */
import { BatchWriteCommand, DeleteCommand, GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { StoredEvent } from '../domain/event';
import { mapLimit } from '../domain/concurrency';
import { isConditionalCheckFailed } from './dynamo-client';
import type { ClaimOutcome, EventLedger, RecentFilter } from '../ports';
import { TABLES } from './schema';
import { TransientError } from '../domain/transient-error';

/** Longer than any ingestion request may run (the Lambda timeout is 10 s). */
export const CLAIM_LEASE_MS = 30_000;
const BY_PROJECT_TIME = TABLES.events.indexes[0]!.name;
const BATCH_WRITE_MAX = 25;
/** The recent-events listing reads at most this many pages of 1 MB before giving up on a filter. */
const MAX_LISTING_PAGES = 10;

export interface EventLedgerOptions {
  /** How long a stored item is kept (DynamoDB TTL): the deduplication window. */
  retentionDays: number;
}

export class DynamoEventLedger implements EventLedger {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly options: EventLedgerOptions = { retentionDays: 30 },
  ) {}

  async claim(projectId: string, dedupeKey: string, owner: string, nowMs: number): Promise<ClaimOutcome> {
    const pk = `${projectId}#${dedupeKey}`;
    // Two tries: the item can vanish between a failed put and the read (its owner released it).
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await this.ddb.send(
          new PutCommand({
            TableName: this.table,
            // expires_at too: a claim whose request died and whose release failed would otherwise stay
            // forever. It outlives the lease by far, so TTL never removes a claim still in use.
            Item: { pk, state: 'pending', owner, lease_until: nowMs + CLAIM_LEASE_MS, expires_at: this.expiresAt(nowMs) },
            ConditionExpression: 'attribute_not_exists(pk) OR (#state = :pending AND lease_until < :now)',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: { ':pending': 'pending', ':now': nowMs },
          }),
        );
        return 'claimed';
      } catch (err) {
        if (!isConditionalCheckFailed(err)) throw err;
      }
      const existing = await this.ddb.send(
        new GetCommand({ TableName: this.table, Key: { pk }, ConsistentRead: true, ProjectionExpression: '#s', ExpressionAttributeNames: { '#s': 'state' } }),
      );
      if (existing.Item?.state === 'stored') return 'duplicate';
      if (existing.Item?.state === 'pending') return 'in_flight';
    }
    return 'in_flight';
  }

  async release(projectId: string, dedupeKeys: string[], owner: string): Promise<void> {
    await mapLimit(dedupeKeys, 25, async (key) => {
      try {
        await this.ddb.send(
          new DeleteCommand({
            TableName: this.table,
            Key: { pk: `${projectId}#${key}` },
            ConditionExpression: '#state = :pending AND #owner = :owner',
            ExpressionAttributeNames: { '#state': 'state', '#owner': 'owner' },
            ExpressionAttributeValues: { ':pending': 'pending', ':owner': owner },
          }),
        );
      } catch (err) {
        if (!isConditionalCheckFailed(err)) throw err;
      }
    });
  }

  /** DynamoDB TTL (epoch seconds): the end of the deduplication window that starts at nowMs. */
  private expiresAt(nowMs: number): number {
    return Math.floor(nowMs / 1000) + this.options.retentionDays * 86_400;
  }

  async markStored(events: StoredEvent[], nowMs: number): Promise<void> {
    const expiresAt = this.expiresAt(nowMs);
    const items = events.map((e) => ({
      pk: `${e.project_id}#${e.dedupe_key}`,
      state: 'stored',
      project_id: e.project_id,
      sort_key: `${e.timestamp}#${e.dedupe_key}`,
      name: e.name,
      user_id: e.user_id,
      sent_user_id: e.sent_user_id,
      // One string attribute: properties are arbitrary JSON, which DynamoDB maps would reshape.
      event: JSON.stringify(e),
      expires_at: expiresAt,
    }));
    for (let i = 0; i < items.length; i += BATCH_WRITE_MAX) {
      await this.batchPut(items.slice(i, i + BATCH_WRITE_MAX));
    }
  }

  private async batchPut(items: Record<string, unknown>[]): Promise<void> {
    let pending = items.map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) {
        if (attempt > 5) throw new TransientError(`${pending.length} ledger writes left unprocessed after retries`);
        await new Promise((r) => setTimeout(r, 25 * 2 ** attempt));
      }
      const out = await this.ddb.send(new BatchWriteCommand({ RequestItems: { [this.table]: pending } }));
      pending = (out.UnprocessedItems?.[this.table] ?? []) as typeof pending;
    }
  }

  async recent(projectId: string, filter: RecentFilter): Promise<StoredEvent[]> {
    const conditions: string[] = [];
    const values: Record<string, unknown> = { ':p': projectId };
    if (filter.userId !== undefined) {
      conditions.push('(user_id = :u OR sent_user_id = :u)');
      values[':u'] = filter.userId;
    }
    if (filter.name !== undefined) {
      conditions.push('#name = :n');
      values[':n'] = filter.name;
    }
    const out: StoredEvent[] = [];
    let start: Record<string, unknown> | undefined;
    for (let page = 0; page < MAX_LISTING_PAGES && out.length < filter.limit; page++) {
      const res = await this.ddb.send(
        new QueryCommand({
          TableName: this.table,
          IndexName: BY_PROJECT_TIME,
          KeyConditionExpression: 'project_id = :p',
          FilterExpression: conditions.length ? conditions.join(' AND ') : undefined,
          ExpressionAttributeNames: filter.name !== undefined ? { '#name': 'name' } : undefined,
          ExpressionAttributeValues: values,
          ScanIndexForward: false,
          Limit: conditions.length ? undefined : filter.limit - out.length,
          ExclusiveStartKey: start,
        }),
      );
      for (const item of res.Items ?? []) out.push(JSON.parse(item.event as string) as StoredEvent);
      start = res.LastEvaluatedKey;
      if (!start) break;
    }
    return out.slice(0, filter.limit);
  }
}
