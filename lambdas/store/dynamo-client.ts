import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand, ScanCommand, type QueryCommandInput, type ScanCommandInput } from '@aws-sdk/lib-dynamodb';

/** One document client per process; the SDK honours AWS_ENDPOINT_URL_DYNAMODB for local endpoints. */
export function documentClient(config: DynamoDBClientConfig = {}): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(new DynamoDBClient(config), {
    marshallOptions: { removeUndefinedValues: true },
  });
}

export function isConditionalCheckFailed(err: unknown): boolean {
  return (err as { name?: string })?.name === 'ConditionalCheckFailedException';
}

type Page = { Items?: Record<string, unknown>[]; LastEvaluatedKey?: Record<string, unknown> };

/** Every item of a paginated read, following LastEvaluatedKey across pages. */
async function allPages<T>(read: (start: Record<string, unknown> | undefined) => Promise<Page>): Promise<T[]> {
  const items: T[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await read(start);
    items.push(...((out.Items ?? []) as T[]));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

export function queryAll<T>(ddb: DynamoDBDocumentClient, input: Omit<QueryCommandInput, 'ExclusiveStartKey'>): Promise<T[]> {
  return allPages((start) => ddb.send(new QueryCommand({ ...input, ExclusiveStartKey: start })));
}

export function scanAll<T>(ddb: DynamoDBDocumentClient, input: Omit<ScanCommandInput, 'ExclusiveStartKey'>): Promise<T[]> {
  return allPages((start) => ddb.send(new ScanCommand({ ...input, ExclusiveStartKey: start })));
}
