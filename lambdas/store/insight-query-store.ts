/**
 * The insight queries started per project (docs/decisions/insights.md, "Cache"): DynamoDB table
 * insight_queries, keyed by project and query ID, so a query ID of another project finds nothing.
 * Items are small (the query text is the largest part, a few KB; the rows stay in the engine's result
 * files) and expire after INSIGHT_QUERY_TTL_DAYS, well inside the Athena result files' 30 days. DynamoDB
 * deletes an expired item only within days, and reads return it until then (dynalite never does), so
 * a read past `expires_at` finds nothing and a create may replace it: expiry is exact on AWS and locally.
 */
import { DeleteCommand, GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isConditionalCheckFailed, queryAll } from './dynamo-client';
import { insightQueryExpiresAt } from '../domain/insights/query-id';
import type { InsightQueryRecord, InsightQueryStore } from '../ports';

export class DynamoInsightQueryStore implements InsightQueryStore {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async get(projectId: string, queryId: string, nowMs: number): Promise<InsightQueryRecord | undefined> {
    const out = await this.ddb.send(new GetCommand({ TableName: this.table, Key: { project_id: projectId, query_id: queryId }, ConsistentRead: true }));
    if (!out.Item || (out.Item.expires_at as number) * 1000 <= nowMs) return undefined;
    const { expires_at: _expires, definition, ...rest } = out.Item;
    return { ...(rest as Omit<InsightQueryRecord, 'definition'>), definition: JSON.parse(definition as string) as unknown };
  }

  async create(record: InsightQueryRecord): Promise<boolean> {
    try {
      // An expired item not yet deleted by TTL is gone for get(), so a new query may take its place.
      await this.ddb.send(
        new PutCommand({
          TableName: this.table,
          Item: this.item(record),
          ConditionExpression: 'attribute_not_exists(query_id) OR expires_at <= :now',
          ExpressionAttributeValues: { ':now': Math.floor(Date.parse(record.created_at) / 1000) },
        }),
      );
      return true;
    } catch (err) {
      // A retried put that finds its own earlier attempt's item also lands here: the caller reads the item either way.
      if (isConditionalCheckFailed(err)) return false;
      throw err;
    }
  }

  async update(record: InsightQueryRecord): Promise<void> {
    await this.ddb.send(new PutCommand({ TableName: this.table, Item: this.item(record) }));
  }

  async forgetProject(projectId: string): Promise<string[]> {
    const items = await queryAll<{ query_id: string; execution_id: string }>(this.ddb, {
      TableName: this.table,
      KeyConditionExpression: 'project_id = :p',
      ExpressionAttributeValues: { ':p': projectId },
      ProjectionExpression: 'query_id, execution_id',
    });
    for (const item of items) await this.ddb.send(new DeleteCommand({ TableName: this.table, Key: { project_id: projectId, query_id: item.query_id } }));
    return items.map((i) => i.execution_id);
  }

  private item(record: InsightQueryRecord): Record<string, unknown> {
    // The definition as JSON text: client text of any shape round-trips exactly.
    return { ...record, definition: JSON.stringify(record.definition), expires_at: insightQueryExpiresAt(record.created_at) };
  }
}
