/**
 * Sticky assignments. Reading all of a user's assignments is one BatchGetItem; a new assignment is a
 * conditional put, so two concurrent first requests agree (the loser reads the winner's variant).
 */
import { BatchGetCommand, DeleteCommand, GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isConditionalCheckFailed } from './dynamo-client';
import { TransientError } from '../domain/transient-error';
import type { Assignment, AssignmentStore } from '../ports/assignment-store';

const MAX_BATCH_GET = 100;

export class DynamoAssignmentStore implements AssignmentStore {
  /** DynamoDB requests made, for the cost check in tests and benchmarks. */
  readonly calls = { batchGet: 0, put: 0, get: 0 };

  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  private pk(projectId: string, experimentId: string, userId: string) {
    return `${projectId}#${experimentId}#${userId}`;
  }

  /** The stored variant of each experiment for one user. One request for up to 100 experiments. */
  async getMany(projectId: string, experimentIds: string[], userId: string): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (let i = 0; i < experimentIds.length; i += MAX_BATCH_GET) {
      let keys: Array<Record<string, unknown>> = experimentIds.slice(i, i + MAX_BATCH_GET).map((e) => ({ pk: this.pk(projectId, e, userId) }));
      for (let attempt = 0; keys.length > 0; attempt++) {
        if (attempt > 5) throw new TransientError('Assignment reads left unprocessed after retries');
        if (attempt > 0) await new Promise((r) => setTimeout(r, 25 * 2 ** attempt));
        this.calls.batchGet++;
        const out = await this.ddb.send(new BatchGetCommand({ RequestItems: { [this.table]: { Keys: keys } } }));
        for (const item of out.Responses?.[this.table] ?? []) found.set(item.experiment_id as string, item.variant as string);
        keys = (out.UnprocessedKeys?.[this.table]?.Keys ?? []) as typeof keys;
      }
    }
    return found;
  }

  async of(
    projectId: string,
    experimentIds: readonly string[],
    userIds: readonly string[],
  ): Promise<Array<{ user_id: string; experiment_id: string; variant: string }>> {
    const found: Array<{ user_id: string; experiment_id: string; variant: string }> = [];
    for (const user_id of userIds) {
      for (const [experiment_id, variant] of await this.getMany(projectId, [...experimentIds], user_id)) found.push({ user_id, experiment_id, variant });
    }
    return found;
  }

  async forget(projectId: string, experimentIds: readonly string[], userIds: readonly string[]): Promise<number> {
    let removed = 0;
    for (const e of experimentIds) {
      for (const u of userIds) {
        const out = await this.ddb.send(new DeleteCommand({ TableName: this.table, Key: { pk: this.pk(projectId, e, u) }, ReturnValues: 'ALL_OLD' }));
        if (out.Attributes) removed++;
      }
    }
    return removed;
  }

  /** Stores an assignment unless one exists; returns the variant that is stored either way. */
  async assign(projectId: string, a: Assignment, atIso: string): Promise<string> {
    const pk = this.pk(projectId, a.experiment_id, a.user_id);
    try {
      this.calls.put++;
      await this.ddb.send(
        new PutCommand({
          TableName: this.table,
          Item: { pk, project_id: projectId, ...a, assigned_at: atIso },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return a.variant;
    } catch (err) {
      if (!isConditionalCheckFailed(err)) throw err;
      this.calls.get++;
      const out = await this.ddb.send(new GetCommand({ TableName: this.table, Key: { pk }, ConsistentRead: true }));
      return out.Item!.variant as string;
    }
  }
}
