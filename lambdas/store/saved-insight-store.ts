/**
 * The saved insights (table saved_insights): keyed by project and insight ID, so a project lists its
 * own with one Query and another project's ID finds nothing. The definition is JSON text: client
 * text of any shape round-trips exactly.
 */
import { DeleteCommand, GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SavedInsight, SavedInsightStore } from '../ports';
import { queryAll } from './dynamo-client';

type Item = Omit<SavedInsight, 'definition'> & { definition: string };

const fromItem = (item: Item): SavedInsight => ({ ...item, definition: JSON.parse(item.definition) as unknown });
const toItem = (insight: SavedInsight): Item => ({ ...insight, definition: JSON.stringify(insight.definition) });

export class DynamoSavedInsightStore implements SavedInsightStore {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async create(insight: SavedInsight): Promise<void> {
    // A fresh UUID: a put never meets another insight's item, so a retried put is harmless.
    await this.ddb.send(new PutCommand({ TableName: this.table, Item: toItem(insight) }));
  }

  async get(projectId: string, id: string): Promise<SavedInsight | undefined> {
    const out = await this.ddb.send(new GetCommand({ TableName: this.table, Key: { project_id: projectId, id }, ConsistentRead: true }));
    return out.Item ? fromItem(out.Item as Item) : undefined;
  }

  async list(projectId: string): Promise<SavedInsight[]> {
    const items = await queryAll<Item>(this.ddb, {
      TableName: this.table,
      KeyConditionExpression: 'project_id = :p',
      ExpressionAttributeValues: { ':p': projectId },
      ConsistentRead: true,
    });
    return items.map(fromItem).sort((a, b) => b.updated_at.localeCompare(a.updated_at) || a.id.localeCompare(b.id));
  }

  async put(insight: SavedInsight): Promise<void> {
    await this.ddb.send(new PutCommand({ TableName: this.table, Item: toItem(insight) }));
  }

  async delete(projectId: string, id: string): Promise<boolean> {
    const out = await this.ddb.send(new DeleteCommand({ TableName: this.table, Key: { project_id: projectId, id }, ReturnValues: 'ALL_OLD' }));
    return out.Attributes !== undefined;
  }
}
