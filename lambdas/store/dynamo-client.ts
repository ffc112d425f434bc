import { DocumentClient, QueryCommand, ScanCommand, type QueryInput, type ScanInput } from '../aws-client/dynamodb';
import type { AwsClientOptions } from '../aws-client/json-client';

/**
 * One document client per process (lambdas/aws-client: undefined values removed, AWS_ENDPOINT_URL_DYNAMODB
 * honoured for local endpoints). Without options: the region and credentials Lambda sets.
 */
export function documentClient(options: AwsClientOptions = {}): DocumentClient {
  return new DocumentClient(options);
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

export function queryAll<T>(ddb: DocumentClient, input: Omit<QueryInput, 'ExclusiveStartKey'>): Promise<T[]> {
  return allPages((start) => ddb.send(new QueryCommand({ ...input, ExclusiveStartKey: start })));
}

export function scanAll<T>(ddb: DocumentClient, input: Omit<ScanInput, 'ExclusiveStartKey'>): Promise<T[]> {
  return allPages((start) => ddb.send(new ScanCommand({ ...input, ExclusiveStartKey: start })));
}
