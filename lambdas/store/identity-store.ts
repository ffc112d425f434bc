/**
 * Identity links on DynamoDB as a union-find with compare-and-swap on roots. No transactions:
 *  - observe: a conditional put records an ID the first time it is seen (first writer wins). The two
 *    IDs of a link are created one after the other, the later one stamped after the earlier one as
 *    committed (domain/canonical-order.ts firstSightStamp), so first-seen order between them follows commit
 *    order whatever order concurrent requests arrive or commit in;
 *  - link: the later-seen root is re-pointed at the earlier-seen root with a conditional update that
 *    only succeeds while it is still a root, so concurrent links of overlapping groups converge (the
 *    loser of a race re-reads the roots and tries again);
 *  - the loser's members are then re-pointed directly, found through the by_canonical index. That
 *    index is eventually consistent on AWS, so a member can be missed and keep pointing at the old
 *    root; readers follow pointers to the root whatever the length of the chain, and shorten every
 *    chain they walk (path compression), so resolution converges instead of failing.
 * Every pointer change carries a version (1, 2, … per item) that the conditional write commits; the
 * journal records each change with it, so the identity stream's "latest row" is the table's order.
 *
 * A write may be sent more than once (the AWS SDK retries a call whose answer was lost), so a conditional write can fail on its own earlier attempt. A ConditionalCheckFailedException
 * of a retried call is therefore checked against the item, read consistently (committedEarlier): the
 * write counts as committed when the item holds exactly what it writes. The pointer and the version are
 * what identify a change: another request that made the same change wrote the same pointer with the
 * same version and journals the same line, so the table and the stream agree either way, and no token
 * is needed. Two writes need no check: a profile update (its condition accepts its own values again)
 * and reassert (its only condition is that the item exists: a retry raises the version by 2 once more,
 * and the line it journals carries the version and pointer the table then holds, the highest one).
 */
import { BatchGetCommand, DeleteCommand, GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mapLimit } from '../domain/concurrency';
import { lowersFirstEvent } from '../domain/first-seen';
import { creationOrder, firstSightStamp, requestPosition, seenBefore, type SeenId } from '../domain/canonical-order';
import { TransientError } from '../domain/transient-error';
import { suppressionDigest } from '../domain/suppression';
import { isConditionalCheckFailed, isRetriedConditionalCheckFailed, queryAll } from './dynamo-client';
import { TABLES } from './schema';
import type { IdentityItem, IdentityJournal, IdentityStore, LinkResult, ObserveOptions, PointerChange, UserGroup } from '../ports/identity-store';

const BY_CANONICAL = TABLES.identities.indexes[0]!.name;
const LINK_ATTEMPTS = 8;

export const NO_JOURNAL: IdentityJournal = { beforeMerge: async () => undefined, moved: async () => undefined };

export class DynamoIdentityStore implements IdentityStore {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  private pk(projectId: string, id: string) {
    return `${projectId}#${id}`;
  }

  /**
   * A suppressed ID's marker (domain/suppression.ts): keyed by the digest of project and ID, never the
   * ID. The NUL after the project's `#` keeps it apart from every identity item: IDs refuse NUL.
   */
  private markerPk(projectId: string, id: string) {
    return `${projectId}#\u0000suppressed#${suppressionDigest(projectId, id)}`;
  }

  /**
   * The items of these IDs and which of them are suppressed, in one strongly consistent BatchGet (the
   * read observe would make anyway, with a marker key per ID beside each item's): give `seen` to observe.
   */
  async screen(projectId: string, ids: string[]): Promise<{ suppressed: Set<string>; seen: Map<string, IdentityItem> }> {
    const unique = [...new Set(ids)];
    const byMarker = new Map(unique.map((id) => [this.markerPk(projectId, id), id]));
    const byPk = new Map(unique.map((id) => [this.pk(projectId, id), id]));
    const found = await this.getKeys([...byPk.keys(), ...byMarker.keys()], true);
    const suppressed = new Set<string>();
    const seen = new Map<string, IdentityItem>();
    for (const item of found) {
      const marked = byMarker.get(item.pk);
      if (marked !== undefined) suppressed.add(marked);
      else if (byPk.has(item.pk)) seen.set(item.id, item);
    }
    return { suppressed, seen };
  }

  /** Writes the markers of these IDs (idempotent: a marker written again keeps its first time). */
  async suppress(projectId: string, ids: readonly string[], atMs: number): Promise<void> {
    await mapLimit([...new Set(ids)], 8, async (id) => {
      await this.ddb.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: this.markerPk(projectId, id) },
          UpdateExpression: 'SET suppressed_at = if_not_exists(suppressed_at, :t)',
          ExpressionAttributeValues: { ':t': new Date(atMs).toISOString() },
        }),
      );
    });
  }

  /**
   * Records first sight of each ID (ids in order of appearance) and returns each ID's canonical ID.
   */
  async observe(projectId: string, ids: string[], seenMs: number, options: ObserveOptions = {}): Promise<Map<string, string>> {
    const items = await this.ensure(projectId, ids, seenMs, options.links ?? [], options.journal ?? NO_JOURNAL, options.eventTimes, options.seen);
    if (options.eventTimes) await this.keepFirstEvents(projectId, items, options.eventTimes);
    const roots = await this.roots(projectId, [...items.values()], options.journal);
    return new Map(ids.map((id) => [id, roots.get(id)!.id]));
  }

  /**
   * The items of the IDs (in order of appearance), creating those seen for the first time. Creation
   * runs in waves: the later ID of a link waits until the earlier one is committed, then is stamped
   * after it and created already linked: pointing where its partner points (see create). Unlinked IDs
   * are created in parallel.
   */
  private async ensure(
    projectId: string,
    ids: string[],
    seenMs: number,
    links: Array<[string, string]>,
    journal: IdentityJournal,
    eventTimes?: ReadonlyMap<string, number>,
    seen?: ReadonlyMap<string, IdentityItem>,
  ): Promise<Map<string, IdentityItem>> {
    // Strongly consistent: an event sent right after a link must already resolve through it. Items
    // read by screen (the same read) are taken as they are.
    const items = seen ? new Map(ids.flatMap((id) => (seen.has(id) ? [[id, seen.get(id)!] as const] : []))) : await this.getMany(projectId, ids, true);
    const earlierPartners = new Map<string, string[]>();
    for (const [x, y] of links) {
      const [first, second] = creationOrder(ids, x, y);
      earlierPartners.set(second, [...(earlierPartners.get(second) ?? []), first]);
    }
    let missing = ids.filter((id) => !items.has(id));
    while (missing.length > 0) {
      // The first missing ID's partners come before it and are not missing, so every wave makes progress.
      const ready = missing.filter((id) => (earlierPartners.get(id) ?? []).every((p) => items.has(p)));
      await mapLimit(ready, 8, async (id) => {
        const partners = (earlierPartners.get(id) ?? []).map((p) => items.get(p)!);
        const stamp = { ...firstSightStamp(seenMs, requestPosition(ids, id), partners), first_event_ms: eventTimes?.get(id) };
        items.set(id, await this.create(projectId, id, stamp, partners[0], journal));
      });
      missing = missing.filter((id) => !items.has(id));
    }
    return items;
  }

  /**
   * Links two IDs (creating either if new); idempotent and safe under concurrency. The loser root's
   * change goes to the journal before it is applied, so the stream never misses a merge that happened.
   */
  async link(projectId: string, a: string, b: string, seenMs: number, journal: IdentityJournal = NO_JOURNAL): Promise<LinkResult> {
    let items = await this.ensure(projectId, [a, b], seenMs, [[a, b]], journal);
    for (let attempt = 0; attempt < LINK_ATTEMPTS; attempt++) {
      // A retry follows a lost race: re-read, the pointers have moved.
      if (attempt > 0) items = await this.getMany(projectId, [a, b], true);
      const roots = await this.roots(projectId, [...items.values()], journal);
      const ra = roots.get(a)!;
      const rb = roots.get(b)!;
      if (ra.id === rb.id) return { canonical: ra.id, moved: [] };
      const [winner, loser] = seenBefore(ra, rb) ? [ra, rb] : [rb, ra];
      // A root's version cannot change while it stays a root, so this is the version the update commits.
      const version = (loser.version ?? 0) + 1;
      await journal.beforeMerge({ id: loser.id, canonical_id: winner.id, version, reason: loser.id === a || loser.id === b ? 'link' : 'merge' });
      try {
        await this.ddb.send(
          new UpdateCommand({
            TableName: this.table,
            Key: { pk: loser.pk },
            UpdateExpression: 'SET canonical_id = :w, canonical_pk = :wpk, version = :v',
            ConditionExpression: 'canonical_id = :self',
            ExpressionAttributeValues: { ':w': winner.id, ':wpk': this.pk(projectId, winner.id), ':self': loser.id, ':v': version },
          }),
        );
      } catch (err) {
        if (!isConditionalCheckFailed(err)) throw err;
        // Someone merged the loser meanwhile: re-read roots. Unless the loser holds exactly this merge
        // (a retried call whose first attempt committed): then its members are re-pointed as below.
        const merged = (item: IdentityItem) => item.canonical_id === winner.id && item.version === version;
        if (!(await this.committedEarlier(err, projectId, loser.id, merged))) continue;
      }
      const members = (await this.children(projectId, loser.id)).filter((c) => c.id !== loser.id);
      const changes = await this.repoint(projectId, members, winner.id, 'merge', journal);
      return { canonical: winner.id, moved: [loser.id, ...changes.map((c) => c.id)] };
    }
    throw new TransientError('Identity link did not converge under contention; retry');
  }

  /** The group of an ID: its canonical item and every linked ID, or undefined for an unknown ID. */
  async group(projectId: string, id: string): Promise<UserGroup | undefined> {
    const items = await this.getMany(projectId, [id], true);
    if (!items.has(id)) return undefined;
    const root = (await this.roots(projectId, [...items.values()])).get(id)!;
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

  /**
   * Lowers each ID's `first_event_ms` to the batch's earliest event time for it, where that is older than
   * the one its item (just read or created) keeps: a backfill. Events sent in time order write nothing
   * here, so the cost is one conditional update per ID only for batches that carry an older event. The
   * condition keeps the minimum under concurrent requests; losing it means an older time is already kept.
   */
  private async keepFirstEvents(projectId: string, items: Map<string, IdentityItem>, eventTimes: ReadonlyMap<string, number>): Promise<void> {
    const older = [...eventTimes].filter(([id, ms]) => items.has(id) && lowersFirstEvent(items.get(id)!.first_event_ms, ms));
    await mapLimit(older, 8, async ([id, ms]) => {
      try {
        await this.ddb.send(
          new UpdateCommand({
            TableName: this.table,
            Key: { pk: this.pk(projectId, id) },
            UpdateExpression: 'SET first_event_ms = :t',
            ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(first_event_ms) OR first_event_ms > :t)',
            ExpressionAttributeValues: { ':t': ms },
          }),
        );
      } catch (err) {
        if (!isConditionalCheckFailed(err)) throw err;
      }
    });
  }

  /**
   * Sets profile fields on the item of the ID that sent them; a later value (by its time) wins, field
   * by field. Fields sent together are first written in one conditional update (one write, one index
   * write); only if one of them already holds a later value is each field tried on its own.
   */
  async updateProfile(projectId: string, id: string, fields: { email?: string; name?: string }, atMs: number): Promise<void> {
    const sent = (['email', 'name'] as const).filter((f) => fields[f] !== undefined);
    if (sent.length === 0) return;
    if (sent.length > 1 && (await this.setProfileFields(projectId, id, sent, fields, atMs))) return;
    for (const field of sent) await this.setProfileFields(projectId, id, [field], fields, atMs);
  }

  /** One conditional update of the given fields; false when one of them holds a later value (nothing written). */
  private async setProfileFields(
    projectId: string,
    id: string,
    sent: ReadonlyArray<'email' | 'name'>,
    fields: { email?: string; name?: string },
    atMs: number,
  ): Promise<boolean> {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = { ':t': atMs };
    const sets: string[] = [];
    const conditions = ['attribute_exists(pk)'];
    sent.forEach((field, i) => {
      Object.assign(names, { [`#f${i}`]: field, [`#at${i}`]: `${field}_at` });
      values[`:v${i}`] = fields[field];
      sets.push(`#f${i} = :v${i}`, `#at${i} = :t`);
      conditions.push(`(attribute_not_exists(#at${i}) OR #at${i} <= :t)`);
    });
    try {
      await this.ddb.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: this.pk(projectId, id) },
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
      return true;
    } catch (err) {
      if (!isConditionalCheckFailed(err)) throw err; // an older update arriving late changes nothing
      return false;
    }
  }

  /**
   * Records first sight of an ID. The later ID of a link is created pointing where its committed
   * partner points (version 1, journalled first like any merge): what linking it after creating it
   * as a root would do (it is stamped after the partner, so the partner's group wins), without the
   * second write and its two index writes. Nothing was ever resolved through the new ID, so no event
   * carries it; the link then finds both IDs in one group. Another partner, if any, is linked as usual.
   */
  private async create(
    projectId: string,
    id: string,
    stamp: Omit<SeenId, 'id'> & { first_event_ms?: number },
    partner: IdentityItem | undefined,
    journal: IdentityJournal,
  ): Promise<IdentityItem> {
    const canonical = partner?.canonical_id ?? id;
    const item: IdentityItem = {
      pk: this.pk(projectId, id),
      project_id: projectId,
      id,
      canonical_id: canonical,
      canonical_pk: this.pk(projectId, canonical),
      first_seen_ms: stamp.first_seen_ms,
      first_seen_order: stamp.first_seen_order,
    };
    if (stamp.first_event_ms !== undefined) item.first_event_ms = stamp.first_event_ms;
    if (partner) {
      item.version = 1;
      await journal.beforeMerge({ id, canonical_id: canonical, version: 1, reason: 'link' });
    }
    try {
      await this.ddb.send(new PutCommand({ TableName: this.table, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }));
      return item;
    } catch (err) {
      if (!isConditionalCheckFailed(err)) throw err;
      // This put's own earlier attempt (same stamp, pointer and version): committed, and journalled above.
      const same = (found: IdentityItem) =>
        found.canonical_id === item.canonical_id &&
        found.version === item.version &&
        found.first_seen_ms === item.first_seen_ms &&
        found.first_seen_order === item.first_seen_order;
      if (partner && (await this.committedEarlier(err, projectId, id, same))) return item;
      if (!partner) return (await this.getMany(projectId, [id], true)).get(id)!;
      return this.reassert(projectId, id, journal);
    }
  }

  /**
   * A linked create that lost the race to another request creating the same ID: the line journalled
   * above (version 1, pointing at the partner's group) was never committed, and the ID may be a root
   * or point elsewhere. Left alone, that line would win for the ID in the stream (the stored version
   * of a root created unlinked is absent, so 1 is the highest) and could even form a cycle with the
   * link that follows. So the item's version is raised past it, atomically, and its actual pointer
   * journalled with that version: the stream again says what the table says. The link then proceeds
   * as for any existing ID.
   */
  private async reassert(projectId: string, id: string, journal: IdentityJournal): Promise<IdentityItem> {
    const out = await this.ddb.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { pk: this.pk(projectId, id) },
        UpdateExpression: 'SET version = if_not_exists(version, :zero) + :two',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':zero': 0, ':two': 2 },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const item = out.Attributes as IdentityItem;
    await journal.moved([{ id, canonical_id: item.canonical_id, version: item.version!, reason: 'link' }]);
    return item;
  }

  /**
   * Follows canonical pointers to each item's root, however long the chain (one batched read per
   * hop). With a journal, every item walked that does not point at its root yet is re-pointed there.
   */
  private async roots(projectId: string, start: IdentityItem[], journal?: IdentityJournal): Promise<Map<string, IdentityItem>> {
    const known = new Map(start.map((i) => [i.id, i]));
    const paths = new Map(start.map((i) => [i.id, [i]]));
    const last = (origin: string) => paths.get(origin)!.at(-1)!;
    const isRoot = (item: IdentityItem) => item.canonical_id === item.id;
    let open = [...paths.keys()].filter((o) => !isRoot(last(o)));
    while (open.length > 0) {
      const wanted = [...new Set(open.map((o) => last(o).canonical_id).filter((id) => !known.has(id)))];
      for (const [id, item] of await this.getMany(projectId, wanted, true)) known.set(id, item);
      for (const origin of open) {
        const path = paths.get(origin)!;
        const parent = known.get(path.at(-1)!.canonical_id);
        // Neither can happen (items are never deleted; pointers lead to earlier-seen IDs), but a
        // loop would never end, so it fails loudly. No IDs in the message: they are client values.
        if (!parent) throw new Error('An identity item points at an item that does not exist');
        if (path.includes(parent)) throw new Error('Identity pointers form a cycle');
        path.push(parent);
      }
      open = open.filter((o) => !isRoot(last(o)));
    }
    const result = new Map([...paths.keys()].map((o) => [o, last(o)]));
    if (journal) {
      const behind = new Map<string, { item: IdentityItem; root: string }>();
      for (const path of paths.values()) {
        for (const item of path.slice(0, -2)) behind.set(item.id, { item, root: path.at(-1)!.id });
      }
      const byRoot = new Map<string, IdentityItem[]>();
      for (const { item, root } of behind.values()) byRoot.set(root, [...(byRoot.get(root) ?? []), item]);
      for (const [root, items] of byRoot) await this.repoint(projectId, items, root, 'compress', journal);
    }
    return result;
  }

  /**
   * Points each item straight at `to`, unless it moved since it was read (best effort: a missed
   * item still resolves by following pointers), and journals the changes that committed. Returns them.
   * A write that fails otherwise (DynamoDB unavailable) fails the call, but only once every other
   * item was tried and the changes that did commit are journalled.
   */
  private async repoint(
    projectId: string,
    items: IdentityItem[],
    to: string,
    reason: PointerChange['reason'],
    journal: IdentityJournal,
  ): Promise<PointerChange[]> {
    const changes: PointerChange[] = [];
    const failures: unknown[] = [];
    await mapLimit(items, 8, async (item) => {
      try {
        const out = await this.ddb.send(
          new UpdateCommand({
            TableName: this.table,
            Key: { pk: item.pk },
            UpdateExpression: 'SET canonical_id = :to, canonical_pk = :topk, version = if_not_exists(version, :zero) + :one',
            ConditionExpression: 'canonical_id = :from',
            ExpressionAttributeValues: { ':to': to, ':topk': this.pk(projectId, to), ':from': item.canonical_id, ':zero': 0, ':one': 1 },
            ReturnValues: 'UPDATED_NEW',
          }),
        );
        changes.push({ id: item.id, canonical_id: to, version: out.Attributes!.version as number, reason });
      } catch (err) {
        if (!isConditionalCheckFailed(err)) return void failures.push(err);
        // Moved since it was read: nothing to journal, unless it moved to `to` (this update's own earlier
        // attempt, or the same change by another request): then the table holds a change the stream
        // must have, with the version the table gave it.
        const moved = await this.committedEarlier(err, projectId, item.id, (i) => i.canonical_id === to);
        if (moved) changes.push({ id: item.id, canonical_id: to, version: moved.version!, reason });
      }
    });
    changes.sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
    await journal.moved(changes);
    if (failures.length > 0) throw failures[0];
    return changes;
  }

  /**
   * After a ConditionalCheckFailedException: whether the call was retried and the item (read
   * consistently) holds what this write writes, i.e. an earlier attempt committed and its answer was
   * lost: the item, else undefined. A read that fails counts as undefined, so each caller does what it
   * did before it checked: a merge re-reads the roots (and finds the merge if it committed), a linked
   * create re-asserts the item's actual pointer, a re-point journals nothing (the stream's pointers
   * then chain through the old root). None of them fails its request over this read.
   */
  private async committedEarlier(
    err: unknown,
    projectId: string,
    id: string,
    holdsThisWrite: (item: IdentityItem) => boolean,
  ): Promise<IdentityItem | undefined> {
    if (!isRetriedConditionalCheckFailed(err)) return undefined;
    const item = (await this.getMany(projectId, [id], true).catch(() => undefined))?.get(id);
    return item && holdsThisWrite(item) ? item : undefined;
  }

  async linksOf(projectId: string, ids: readonly string[]): Promise<Array<{ id: string; canonical_id: string }>> {
    const items = [...(await this.getMany(projectId, [...ids], true)).values()];
    for (const id of ids) items.push(...(await this.children(projectId, id)));
    return items.map((i) => ({ id: i.id, canonical_id: i.canonical_id }));
  }

  async forget(projectId: string, ids: readonly string[]): Promise<number> {
    let removed = 0;
    await mapLimit([...new Set(ids)], 8, async (id) => {
      const out = await this.ddb.send(new DeleteCommand({ TableName: this.table, Key: { pk: this.pk(projectId, id) }, ReturnValues: 'ALL_OLD' }));
      if (out.Attributes) removed++;
    });
    return removed;
  }

  async profilesOf(projectId: string, ids: readonly string[]): Promise<Array<{ id: string; email?: string; name?: string }>> {
    const items = [...(await this.getMany(projectId, [...ids], true)).values()];
    return items
      .filter((i) => i.email !== undefined || i.name !== undefined)
      .map((i) => ({ id: i.id, ...(i.email !== undefined ? { email: i.email } : {}), ...(i.name !== undefined ? { name: i.name } : {}) }))
      .sort((a, b) => a.id.localeCompare(b.id));
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
    for (const item of await this.getKeys(
      unique.map((id) => this.pk(projectId, id)),
      consistent,
    ))
      found.set(item.id, item);
    return found;
  }

  /** The items of these keys (BatchGet, 100 keys a call, unprocessed keys read again). */
  private async getKeys(pks: string[], consistent: boolean): Promise<IdentityItem[]> {
    const found: IdentityItem[] = [];
    for (let i = 0; i < pks.length; i += 100) {
      let keys: Array<Record<string, unknown>> = pks.slice(i, i + 100).map((pk) => ({ pk }));
      for (let attempt = 0; keys.length > 0; attempt++) {
        if (attempt > 5) throw new TransientError('Identity reads left unprocessed after retries');
        if (attempt > 0) await new Promise((r) => setTimeout(r, 25 * 2 ** attempt));
        const out = await this.ddb.send(new BatchGetCommand({ RequestItems: { [this.table]: { Keys: keys, ConsistentRead: consistent } } }));
        found.push(...((out.Responses?.[this.table] ?? []) as IdentityItem[]));
        keys = (out.UnprocessedKeys?.[this.table]?.Keys ?? []) as typeof keys;
      }
    }
    return found;
  }
}
