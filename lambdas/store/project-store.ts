import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isConditionalCheckFailed, mayHaveLanded, scanAll } from './dynamo-client';
import type { Project, ProjectStore } from '../ports';

export class DynamoProjectStore implements ProjectStore {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async create(project: Project): Promise<void> {
    try {
      await this.ddb.send(new PutCommand({ TableName: this.table, Item: project, ConditionExpression: 'attribute_not_exists(id)' }));
    } catch (err) {
      // A retried put that finds its own earlier attempt (its answer lost): the project is stored. Its ID
      // is a fresh UUID, so an item under it with this create's created_at is this create's.
      if (!mayHaveLanded(err)) throw err;
      const out = await this.ddb.send(new GetCommand({ TableName: this.table, Key: { id: project.id }, ConsistentRead: true })).catch(() => undefined);
      if (out?.Item?.created_at !== project.created_at) throw err;
    }
  }

  async get(id: string): Promise<Project | undefined> {
    const out = await this.ddb.send(new GetCommand({ TableName: this.table, Key: { id } }));
    return out.Item as Project | undefined;
  }

  /** Sets only the fields given (a PATCH): conditional on the project existing, so a deleted ID is not recreated. */
  async update(id: string, changes: { name?: string; time_zone?: string }): Promise<Project | undefined> {
    const fields = Object.entries(changes).filter(([, v]) => v !== undefined);
    if (fields.length === 0) return this.get(id);
    try {
      const out = await this.ddb.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { id },
          UpdateExpression: `SET ${fields.map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
          ExpressionAttributeNames: Object.fromEntries(fields.map(([k], i) => [`#f${i}`, k])),
          ExpressionAttributeValues: Object.fromEntries(fields.map(([, v], i) => [`:v${i}`, v])),
          ConditionExpression: 'attribute_exists(id)',
          ReturnValues: 'ALL_NEW',
        }),
      );
      return out.Attributes as Project | undefined;
    } catch (err) {
      if (isConditionalCheckFailed(err)) return undefined;
      throw err;
    }
  }

  /** A scan: projects are few (one per app or environment), and only the dashboard lists them. */
  async list(): Promise<Project[]> {
    const items = await scanAll<Project>(this.ddb, { TableName: this.table });
    return items.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  }
}
