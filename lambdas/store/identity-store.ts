/**
 * Identity links on DynamoDB as a union-find with compare-and-swap on roots. No transactions:
 *  - observe: a conditional put records an ID the first time it is seen (first writer wins);
 *  - link: the later-seen root is re-pointed at the earlier-seen root with a conditional update that
 *    only succeeds while it is still a root, so concurrent links of overlapping groups converge (the
 *    loser of a race re-reads the roots and tries again);
 *  - the loser's members are then re-pointed directly (best effort); readers follow pointers anyway,
 *    so a member missed by that step (or by the index's eventual consistency) still resolves.
 */
import {
  BatchGetCommand,
  GetCommand,
  PutCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { mapLimit } from '../domain/concurrency';
import { seenBefore, type SeenId } from '../domain/identity';
import { isConditionalCheckFailed, queryAll } from './dynamo-client';
import { TABLES } from './schema';
import { TransientError } from '../domain/transient-error';

const BY_CANONICAL = TABLES.identities.indexes[0]!.name;
/** Pointer chains are short (members are re-pointed on merge); this only guards against a bug looping. */
const MAX_HOPS = 16;
const LINK_ATTEMPTS = 8;

export interface IdentityItem extends SeenId {
  pk: string;
  project_id: string;
  canonical_id: string;
  canonical_pk: string;
  email?: string;
  email_at?: number;
  name?: string;
  name_at?: number;
}

export interface LinkResult {
  canonical: string;
  /** IDs whose canonical ID this call changed (the loser root and the members it re-pointed). */
  moved: string[];
}

export interface UserGroup {
  canonical: IdentityItem;
  members: IdentityItem[];
}

export class DynamoIdentityStore {
  constructor(private readonly ddb: DynamoDBDocumentClient, private readonly table: string) {}

  private pk(projectId: string, id: string) {
    return `${projectId}#${id}`;
  }

  /**
   * Records first sight of each ID (ids in order of appearance) and returns each ID's canonical ID.
   */
  async observe(projectId: string, ids: string[], seenMs: number): Promise<Map<string, string>> {
    const items = await this.ensure(projectId, ids, seenMs);
    const roots = await this.roots(projectId, [...items.values()], true);
    return new Map(ids.map((id) => [id, roots.get(id)!.id]));
  }

  /** The items of the IDs (in order of appearance), creating those seen for the first time. */
  private async ensure(projectId: string, ids: string[], seenMs: number): Promise<Map<string, IdentityItem>> {
    // Strongly consistent: an event sent right after a link must already resolve through it.
    const items = await this.getMany(projectId, ids, true);
    await mapLimit(ids.filter((id) => !items.has(id)), 8, async (id) => {
      items.set(id, await this.create(projectId, id, seenMs, ids.indexOf(id)));
    });
    return items;
  }

  /**
   * Links two IDs (creating either if new); idempotent and safe under concurrency. `beforeMerge` runs
   * before a root is re-pointed, with the IDs that will point at the new canonical ID: the caller
   * makes that durable in the identity stream first, so the stream never misses a merge that happened.
   */
  async link(
    projectId: string,
    a: string,
    b: string,
    seenMs: number,
    beforeMerge: (canonical: string, ids: string[]) => Promise<void> = async () => undefined,
  ): Promise<LinkResult> {
    let items = await this.ensure(projectId, [a, b], seenMs);
    for (let attempt = 0; attempt < LINK_ATTEMPTS; attempt++) {
      // A retry follows a lost race: re-read, the pointers have moved.
      if (attempt > 0) items = await this.getMany(projectId, [a, b], true);
      const roots = await this.roots(projectId, [...items.values()], true);
      const ra = roots.get(a)!;
      const rb = roots.get(b)!;
      if (ra.id === rb.id) return { canonical: ra.id, moved: [] };
      const [winner, loser] = seenBefore(ra, rb) ? [ra, rb] : [rb, ra];
      await beforeMerge(winner.id, [...new Set([a, b, loser.id])].filter((id) => id !== winner.id));
      try {
        await this.ddb.send(
          new UpdateCommand({
            TableName: this.table,
            Key: { pk: loser.pk },
            UpdateExpression: 'SET canonical_id = :w, canonical_pk = :wpk',
            ConditionExpression: 'canonical_id = :self',
            ExpressionAttributeValues: { ':w': winner.id, ':wpk': this.pk(projectId, winner.id), ':self': loser.id },
          }),
        );
      } catch (err) {
        if (isConditionalCheckFailed(err)) continue; // someone merged the loser meanwhile: re-read roots
        throw err;
      }
      const moved = [loser.id, ...(await this.repointMembers(projectId, loser.id, winner.id))];
      return { canonical: winner.id, moved };
    }
    throw new TransientError('Identity link did not converge under contention; retry');
  }

  /** The group of an ID: its canonical item and every linked ID, or undefined for an unknown ID. */
  async group(projectId: string, id: string): Promise<UserGroup | undefined> {
    const items = await this.getMany(projectId, [id], true);
    if (!items.has(id)) return undefined;
    const root = (await this.roots(projectId, [...items.values()], true)).get(id)!;
    const members = new Map<string, IdentityItem>([[root.id, root]]);
    const queue = [root.id];
    while (queue.length > 0) {
      const node = queue.shift()!;
      for (const child of await this.children(projectId, node)) {
        if (!members.has(child.id)) {
          members.set(child.id, child);
          queue.push(child.id);
        }
      }
    }
    return { canonical: root, members: [...members.values()] };
  }

  /** Sets profile fields on the item of the ID that sent them; a later value (by its time) wins. */
  async updateProfile(projectId: string, id: string, fields: { email?: string; name?: string }, atMs: number): Promise<void> {
    for (const field of ['email', 'name'] as const) {
      const value = fields[field];
      if (value === undefined) continue;
      try {
        await this.ddb.send(
          new UpdateCommand({
            TableName: this.table,
            Key: { pk: this.pk(projectId, id) },
            UpdateExpression: `SET #f = :v, #at = :t`,
            ConditionExpression: `attribute_exists(pk) AND (attribute_not_exists(#at) OR #at <= :t)`,
            ExpressionAttributeNames: { '#f': field, '#at': `${field}_at` },
            ExpressionAttributeValues: { ':v': value, ':t': atMs },
          }),
        );
      } catch (err) {
        if (!isConditionalCheckFailed(err)) throw err; // an older update arriving late changes nothing
      }
    }
  }

  private async create(projectId: string, id: string, seenMs: number, order: number): Promise<IdentityItem> {
    const item: IdentityItem = {
      pk: this.pk(projectId, id),
      project_id: projectId,
      id,
      canonical_id: id,
      canonical_pk: this.pk(projectId, id),
      first_seen_ms: seenMs,
      first_seen_order: order,
    };
    try {
      await this.ddb.send(new PutCommand({ TableName: this.table, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }));
      return item;
    } catch (err) {
      if (!isConditionalCheckFailed(err)) throw err;
      const existing = await this.getMany(projectId, [id], true);
      return existing.get(id)!;
    }
  }

  /** Follows canonical pointers to each item's root. */
  private async roots(projectId: string, start: IdentityItem[], consistent = false): Promise<Map<string, IdentityItem>> {
    const known = new Map(start.map((i) => [i.id, i]));
    const result = new Map<string, IdentityItem>();
    let frontier = start.map((i) => ({ origin: i.id, at: i }));
    for (let hop = 0; frontier.length > 0; hop++) {
      if (hop > MAX_HOPS) throw new Error('Identity pointer chain too long');
      const missing = [...new Set(frontier.filter((f) => f.at.canonical_id !== f.at.id && !known.has(f.at.canonical_id)).map((f) => f.at.canonical_id))];
      for (const [id, item] of await this.getMany(projectId, missing, consistent)) known.set(id, item);
      const next: typeof frontier = [];
      for (const f of frontier) {
        if (f.at.canonical_id === f.at.id) result.set(f.origin, f.at);
        else {
          const parent = known.get(f.at.canonical_id);
          if (!parent) throw new Error(`Identity item ${f.at.canonical_id} is missing`);
          next.push({ origin: f.origin, at: parent });
        }
      }
      frontier = next;
    }
    return result;
  }

  private async repointMembers(projectId: string, from: string, to: string): Promise<string[]> {
    const moved: string[] = [];
    await mapLimit(
      (await this.children(projectId, from)).filter((c) => c.id !== from),
      8,
      async (child) => {
        try {
          await this.ddb.send(
            new UpdateCommand({
              TableName: this.table,
              Key: { pk: child.pk },
              UpdateExpression: 'SET canonical_id = :to, canonical_pk = :topk',
              ConditionExpression: 'canonical_id = :from',
              ExpressionAttributeValues: { ':to': to, ':topk': this.pk(projectId, to), ':from': from },
            }),
          );
          moved.push(child.id);
        } catch (err) {
          if (!isConditionalCheckFailed(err)) throw err;
        }
      },
    );
    return moved.sort();
  }

  private children(projectId: string, canonicalId: string): Promise<IdentityItem[]> {
    return queryAll<IdentityItem>(this.ddb, {
      TableName: this.table,
      IndexName: BY_CANONICAL,
      KeyConditionExpression: 'canonical_pk = :c',
      ExpressionAttributeValues: { ':c': this.pk(projectId, canonicalId) },
    });
  }

  private async getMany(projectId: string, ids: string[], consistent: boolean): Promise<Map<string, IdentityItem>> {
    const found = new Map<string, IdentityItem>();
    const unique = [...new Set(ids)];
    if (consistent && unique.length === 1) {
      const out = await this.ddb.send(new GetCommand({ TableName: this.table, Key: { pk: this.pk(projectId, unique[0]!) }, ConsistentRead: true }));
      if (out.Item) found.set(unique[0]!, out.Item as IdentityItem);
      return found;
    }
    for (let i = 0; i < unique.length; i += 100) {
      let keys: Array<Record<string, unknown>> = unique.slice(i, i + 100).map((id) => ({ pk: this.pk(projectId, id) }));
      for (let attempt = 0; keys.length > 0; attempt++) {
        if (attempt > 5) throw new TransientError('Identity reads left unprocessed after retries');
        if (attempt > 0) await new Promise((r) => setTimeout(r, 25 * 2 ** attempt));
        const out = await this.ddb.send(
          new BatchGetCommand({ RequestItems: { [this.table]: { Keys: keys, ConsistentRead: consistent } } }),
        );
        for (const item of (out.Responses?.[this.table] ?? []) as IdentityItem[]) found.set(item.id, item);
        keys = (out.UnprocessedKeys?.[this.table]?.Keys ?? []) as typeof keys;
      }
    }
    return found;
  }
}
