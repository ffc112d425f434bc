/**
 * Records kept per project under a count limit (saved insights, dashboards): keyed by project and
 * record ID, so a project lists its own with one Query and another project's ID finds nothing.
 *
 * The per-project limit is held by one more item of the project, SLOTS_ID: the set of the IDs of its
 * records (docs/decisions/atomic-limits.md). A create first adds its new ID to the set with a
 * condition that the set is below the limit (one conditional UpdateItem, so parallel creates cannot
 * pass the limit together), then puts the record; a delete removes the record, then its ID. Adding
 * or removing an ID is idempotent, so an SDK retry of a write whose answer was lost changes nothing.
 */
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isConditionalCheckFailed, queryAll } from './dynamo-client';

/** The sort key of the project's slots item: never a record's ID (those are UUIDs). */
export const SLOTS_ID = '#slots';

interface SlotsItem {
  project_id: string;
  id: typeof SLOTS_ID;
  /** The IDs holding a slot; absent when none (DynamoDB has no empty sets). */
  ids?: Set<string>;
}

/** A record kept per project under a limit: keyed by project and ID, listed by updated_at. */
export interface ProjectRecord {
  id: string;
  project_id: string;
  updated_at: string;
}

/** How a record is stored: as is but for its fields of any shape, kept as JSON text (round-trip exactly). */
export interface RecordCodec<T extends ProjectRecord> {
  toItem(record: T): Record<string, unknown>;
  fromItem(item: Record<string, unknown>): T;
}

/** A codec storing the named fields as JSON text and the others as they are. */
export function jsonFieldsCodec<T extends ProjectRecord>(fields: ReadonlyArray<keyof T & string>): RecordCodec<T> {
  return {
    toItem: (record) => ({ ...record, ...Object.fromEntries(fields.map((f) => [f, JSON.stringify(record[f])])) }),
    fromItem: (item) =>
      ({
        ...item,
        ...Object.fromEntries(fields.filter((f) => typeof item[f] === 'string').map((f) => [f, JSON.parse(item[f] as string) as unknown])),
      }) as unknown as T,
  };
}

export class DynamoSlottedRecords<T extends ProjectRecord> {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly codec: RecordCodec<T>,
    /** The records' name in an error message, e.g. "saved insights". */
    private readonly what: string,
  ) {}

  async create(record: T, limit: number): Promise<boolean> {
    if (!(await this.takeSlot(record.project_id, record.id, limit))) return false;
    try {
      // A fresh UUID: the condition only guards against ever overwriting another record.
      await this.ddb.send(new PutCommand({ TableName: this.table, Item: this.codec.toItem(record), ConditionExpression: 'attribute_not_exists(id)' }));
    } catch (err) {
      await this.giveSlotBack(record.project_id, record.id).catch(() => undefined);
      throw err;
    }
    return true;
  }

  async get(projectId: string, id: string): Promise<T | undefined> {
    if (id === SLOTS_ID) return undefined;
    const out = await this.ddb.send(new GetCommand({ TableName: this.table, Key: { project_id: projectId, id }, ConsistentRead: true }));
    return out.Item ? this.codec.fromItem(out.Item) : undefined;
  }

  async list(projectId: string): Promise<T[]> {
    const items = await queryAll<Record<string, unknown>>(this.ddb, {
      TableName: this.table,
      KeyConditionExpression: 'project_id = :p',
      ExpressionAttributeValues: { ':p': projectId },
      ConsistentRead: true,
    });
    return items
      .filter((item) => item.id !== SLOTS_ID)
      .map((item) => this.codec.fromItem(item))
      .sort((a, b) => b.updated_at.localeCompare(a.updated_at) || a.id.localeCompare(b.id));
  }

  async put(record: T): Promise<boolean> {
    // Only over the record itself: a change racing a delete must not bring back a record whose slot was given back.
    try {
      await this.ddb.send(new PutCommand({ TableName: this.table, Item: this.codec.toItem(record), ConditionExpression: 'attribute_exists(id)' }));
      return true;
    } catch (err) {
      if (isConditionalCheckFailed(err)) return false;
      throw err;
    }
  }

  async delete(projectId: string, id: string): Promise<boolean> {
    if (id === SLOTS_ID) return false;
    const out = await this.ddb.send(new DeleteCommand({ TableName: this.table, Key: { project_id: projectId, id }, ReturnValues: 'ALL_OLD' }));
    // Also when there was none: a delete whose first answer was lost gives the slot back on its retry.
    await this.giveSlotBack(projectId, id);
    return out.Attributes !== undefined;
  }

  /**
   * Adds the ID to the project's slots when they are below the limit: true when it holds a slot now
   * (also when an earlier attempt of this very call added it), false when the project is full.
   */
  private async takeSlot(projectId: string, id: string, limit: number): Promise<boolean> {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        await this.ddb.send(
          new UpdateCommand({
            TableName: this.table,
            Key: { project_id: projectId, id: SLOTS_ID },
            UpdateExpression: 'ADD ids :id',
            // The slots item must exist (seeded below), so a project's first slot never skips the seeding.
            ConditionExpression: 'attribute_exists(project_id) AND (attribute_not_exists(ids) OR size(ids) < :limit OR contains(ids, :one))',
            ExpressionAttributeValues: { ':id': new Set([id]), ':limit': limit, ':one': id },
          }),
        );
        return true;
      } catch (err) {
        if (!isConditionalCheckFailed(err)) throw err;
      }
      // Why the condition failed: full (or this very ID already in, from an attempt whose answer was
      // lost), or no slots item yet (then seed it), or one that appeared or freed a slot since (retry).
      const slots = await this.slots(projectId);
      if (!slots) await this.seed(projectId);
      else if (slots.ids?.has(id)) return true;
      else if ((slots.ids?.size ?? 0) >= limit) return false;
    }
    throw new Error(`The ${this.what}' slots of project ${projectId} could not be set up`);
  }

  private async giveSlotBack(projectId: string, id: string): Promise<void> {
    try {
      await this.ddb.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { project_id: projectId, id: SLOTS_ID },
          UpdateExpression: 'DELETE ids :id',
          ConditionExpression: 'attribute_exists(project_id)',
          ExpressionAttributeValues: { ':id': new Set([id]) },
        }),
      );
    } catch (err) {
      // No slots item yet: the seeding will list the records that remain.
      if (!isConditionalCheckFailed(err)) throw err;
    }
  }

  private async slots(projectId: string): Promise<SlotsItem | undefined> {
    const out = await this.ddb.send(new GetCommand({ TableName: this.table, Key: { project_id: projectId, id: SLOTS_ID }, ConsistentRead: true }));
    return out.Item as SlotsItem | undefined;
  }

  /**
   * The slots item of a project that has none (its first create, or records saved before slots
   * existed): the IDs of its records as they are. Written only if still absent, so of two seedings
   * one wins; no record can be created meanwhile, since creating needs the item.
   */
  private async seed(projectId: string): Promise<void> {
    const ids = (await this.list(projectId)).map((i) => i.id);
    const item: SlotsItem = { project_id: projectId, id: SLOTS_ID, ...(ids.length ? { ids: new Set(ids) } : {}) };
    try {
      await this.ddb.send(new PutCommand({ TableName: this.table, Item: item, ConditionExpression: 'attribute_not_exists(project_id)' }));
    } catch (err) {
      if (!isConditionalCheckFailed(err)) throw err;
    }
  }
}
