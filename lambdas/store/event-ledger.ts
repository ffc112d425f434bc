/**
 * The events ledger on DynamoDB: one small keys-only claim per event, one commit per request, so an
 * event costs one write unit (docs/architecture.md, "Storing a batch"). Deduplication is a conditional
 * put on (project, dedupe key): no read-then-write, so two concurrent requests can never both claim one
 * event.
 *
 * - claim item, pk `<project>#<dedupe key>`: the owner (the request that claimed it), its lease and
 *   the TTL. Under 100 bytes: 1 write unit.
 * - commit item, pk `~commit#<owner>`: written once per request, after the raw stream accepted every
 *   event the request claimed. It turns all of that owner's claims into stored events at once.
 *
 * A claim is a duplicate when its owner's commit exists. A claim without a commit is in flight until
 * its lease passes; then a retry can take it over (a conditional put on the same owner and lease), so
 * nothing is deduplicated against an event that was never stored. Claims and commits expire with the
 * deduplication window (DynamoDB TTL), and so does a claim whose release failed.
 *
 * A failed claim reads the existing claim from the ConditionalCheckFailedException
 * (ReturnValuesOnConditionCheckFailure: ALL_OLD) where DynamoDB returns it; dynalite does not, and then
 * the claim is read with a consistent GetItem (the fallback).
 */
import { DeleteCommand, GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { mapLimit } from '../domain/concurrency';
import { isConditionalCheckFailed } from './dynamo-client';
import type { ClaimOutcome, EventLedger } from '../ports';

/**
 * The default lease: longer than any ingestion request may run (the Lambda timeout is 10 s). Locally
 * TALLY_CLAIM_LEASE_SECONDS sets it (EventLedgerOptions.leaseMs).
 */
export const CLAIM_LEASE_MS = 30_000;
/** Prefix of commit items' keys: `~` sorts after any project ID and is never one (project IDs are generated). */
export const COMMIT_PREFIX = '~commit#';
/** Owners known to have committed (commits are never undone before their TTL): saves reads on retried batches. */
const KNOWN_COMMITS_MAX = 1000;

export interface EventLedgerOptions {
  /** How long claims and commits are kept (DynamoDB TTL): the deduplication window. */
  dedupeWindowDays: number;
  /**
   * How long a claim without a commit holds its event before a retry may take it over. Shorter: a
   * resend after a crash is stored sooner; a request slower than the lease may see its events stored
   * twice (readers count each once). @default CLAIM_LEASE_MS
   */
  leaseMs?: number;
}

interface ClaimItem {
  owner?: string;
  lease_until?: number;
  /** Items written before commits existed: "stored" (a duplicate) or "pending". */
  state?: string;
}

export const claimKey = (projectId: string, dedupeKey: string) => `${projectId}#${dedupeKey}`;
export const commitKey = (owner: string) => `${COMMIT_PREFIX}${owner}`;

export class DynamoEventLedger implements EventLedger {
  private readonly knownCommits = new Set<string>();

  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly options: EventLedgerOptions = { dedupeWindowDays: 30 },
  ) {}

  async claim(projectId: string, dedupeKey: string, owner: string, nowMs: number): Promise<ClaimOutcome> {
    const pk = claimKey(projectId, dedupeKey);
    // expires_at: a claim whose request died and whose release failed would otherwise stay forever.
    // It outlives the lease by far, so TTL never removes a claim still in use.
    const item = { pk, owner, lease_until: nowMs + (this.options.leaseMs ?? CLAIM_LEASE_MS), expires_at: this.expiresAt(nowMs) };
    let existing = await this.put(item, { condition: 'attribute_not_exists(pk)' });
    // Three tries: the claim can vanish (released) or be taken over between a failed put and the next.
    for (let attempt = 0; attempt < 3; attempt++) {
      if (existing === 'written') return 'claimed';
      if (existing === undefined) {
        existing = await this.put(item, { condition: 'attribute_not_exists(pk)' });
        continue;
      }
      // This request's own claim: an earlier attempt of this put was written but its answer was lost.
      if (existing.owner === owner) return 'claimed';
      if (existing.state === 'stored' || (existing.owner !== undefined && (await this.committed(existing.owner)))) return 'duplicate';
      if ((existing.lease_until ?? 0) >= nowMs) return 'in_flight';
      // A pending claim whose lease passed without a commit: its request died. Take it over, unless
      // someone else did first (same owner and lease, or the put fails).
      existing = await this.put(item, {
        condition: '#owner = :old_owner AND lease_until = :old_lease',
        names: { '#owner': 'owner' },
        values: { ':old_owner': existing.owner, ':old_lease': existing.lease_until },
      });
    }
    return existing === 'written' ? 'claimed' : 'in_flight';
  }

  /**
   * A conditional put of a claim: 'written', or the claim that failed the condition (undefined when it
   * is gone by the time it is read).
   */
  private async put(
    item: Record<string, unknown>,
    cond: { condition: string; names?: Record<string, string>; values?: Record<string, unknown> },
  ): Promise<'written' | ClaimItem | undefined> {
    try {
      await this.ddb.send(
        new PutCommand({
          TableName: this.table,
          Item: item,
          ConditionExpression: cond.condition,
          ExpressionAttributeNames: cond.names,
          ExpressionAttributeValues: cond.values,
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return 'written';
    } catch (err) {
      if (!isConditionalCheckFailed(err)) throw err;
      const old = oldItem(err);
      if (old) return old;
    }
    // Fallback where the failure does not carry the item (dynalite).
    const read = await this.ddb.send(new GetCommand({ TableName: this.table, Key: { pk: item.pk }, ConsistentRead: true }));
    return read.Item ? (read.Item as ClaimItem) : undefined;
  }

  private async committed(owner: string): Promise<boolean> {
    if (this.knownCommits.has(owner)) return true;
    const read = await this.ddb.send(
      new GetCommand({ TableName: this.table, Key: { pk: commitKey(owner) }, ConsistentRead: true, ProjectionExpression: 'pk' }),
    );
    if (!read.Item) return false;
    if (this.knownCommits.size >= KNOWN_COMMITS_MAX) this.knownCommits.clear();
    this.knownCommits.add(owner);
    return true;
  }

  async release(projectId: string, dedupeKeys: string[], owner: string): Promise<void> {
    await mapLimit(dedupeKeys, 25, async (key) => {
      try {
        await this.ddb.send(
          new DeleteCommand({
            TableName: this.table,
            Key: { pk: claimKey(projectId, key) },
            ConditionExpression: '#owner = :owner',
            ExpressionAttributeNames: { '#owner': 'owner' },
            ExpressionAttributeValues: { ':owner': owner },
          }),
        );
      } catch (err) {
        if (!isConditionalCheckFailed(err)) throw err;
      }
    });
  }

  /** DynamoDB TTL (epoch seconds): the end of the deduplication window that starts at nowMs. */
  private expiresAt(nowMs: number): number {
    return Math.floor(nowMs / 1000) + this.options.dedupeWindowDays * 86_400;
  }

  async markStored(owner: string, nowMs: number): Promise<void> {
    // Unconditional and idempotent: writing it twice changes nothing.
    await this.ddb.send(new PutCommand({ TableName: this.table, Item: { pk: commitKey(owner), expires_at: this.expiresAt(nowMs) } }));
  }
}

/** The item a ConditionalCheckFailedException carries with ReturnValuesOnConditionCheckFailure: ALL_OLD (wire format). */
function oldItem(err: unknown): ClaimItem | undefined {
  const item = (err as { Item?: Record<string, unknown> }).Item;
  if (!item || typeof item !== 'object' || !('pk' in item)) return undefined;
  // The document client does not unmarshall errors: values arrive as { S: ... } / { N: ... }.
  const pk = item.pk;
  return (pk !== null && typeof pk === 'object' ? unmarshall(item as Parameters<typeof unmarshall>[0]) : item) as ClaimItem;
}
