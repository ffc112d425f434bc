import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ApiKeyRecord } from '../domain/api-key';
import { OutcomeUnknownError } from '../domain/transient-error';
import { isConditionalCheckFailed, mayHaveLanded, queryAll } from './dynamo-client';
import { TABLES } from './schema';
import type { ApiKeyStore } from '../ports';

const BY_PROJECT = TABLES.api_keys.indexes[0]!.name;

export class DynamoApiKeyStore implements ApiKeyStore {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async create(key: ApiKeyRecord): Promise<void> {
    try {
      await this.ddb.send(new PutCommand({ TableName: this.table, Item: key, ConditionExpression: 'attribute_not_exists(key_hash)' }));
    } catch (err) {
      // A retried put that finds its own earlier attempt (its answer lost): the key is stored. The hash
      // is of a fresh random key, so an item under it with this key's ID is this put's.
      if (!mayHaveLanded(err)) throw err;
      // If that read fails too, whether the key is stored is unknown (OutcomeUnknownError: 503).
      const out = await this.ddb
        .send(new GetCommand({ TableName: this.table, Key: { key_hash: key.key_hash }, ConsistentRead: true }))
        .catch((readErr: unknown) => {
          throw new OutcomeUnknownError('The key may or may not have been stored: its answer was lost and reading it back failed; retry', { cause: readErr });
        });
      if (out.Item?.id !== key.id) throw err;
    }
  }

  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const out = await this.ddb.send(new GetCommand({ TableName: this.table, Key: { key_hash: keyHash } }));
    return out.Item as ApiKeyRecord | undefined;
  }

  async listByProject(projectId: string): Promise<ApiKeyRecord[]> {
    const items = await queryAll<ApiKeyRecord>(this.ddb, {
      TableName: this.table,
      IndexName: BY_PROJECT,
      KeyConditionExpression: 'project_id = :p',
      ExpressionAttributeValues: { ':p': projectId },
    });
    return items.sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  async relabel(projectId: string, keyId: string, label: string | undefined): Promise<ApiKeyRecord | undefined> {
    const key = await this.findInProject(projectId, keyId);
    if (!key) return undefined;
    try {
      const out = await this.ddb.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { key_hash: key.key_hash },
          UpdateExpression: label === undefined ? 'REMOVE label' : 'SET label = :l',
          // Only while the key exists: a key revoked meanwhile is not brought back as a label alone.
          ConditionExpression: 'attribute_exists(key_hash)',
          ...(label !== undefined && { ExpressionAttributeValues: { ':l': label } }),
          ReturnValues: 'ALL_NEW',
        }),
      );
      return out.Attributes as ApiKeyRecord;
    } catch (err) {
      if (isConditionalCheckFailed(err)) return undefined;
      throw err;
    }
  }

  async revoke(projectId: string, keyId: string): Promise<ApiKeyRecord | undefined> {
    const key = await this.findInProject(projectId, keyId);
    if (!key) return undefined;
    await this.ddb.send(new DeleteCommand({ TableName: this.table, Key: { key_hash: key.key_hash } }));
    return key;
  }

  /** A project's key by its ID, through the by_project index. */
  private async findInProject(projectId: string, keyId: string): Promise<ApiKeyRecord | undefined> {
    const out = await this.ddb.send(
      new QueryCommand({
        TableName: this.table,
        IndexName: BY_PROJECT,
        KeyConditionExpression: 'project_id = :p AND id = :id',
        ExpressionAttributeValues: { ':p': projectId, ':id': keyId },
      }),
    );
    return out.Items?.[0] as ApiKeyRecord | undefined;
  }
}
