import { DocumentClient, QueryCommand, ScanCommand, type QueryInput, type ScanInput } from '../aws-client/dynamodb';
import type { AwsClientOptions } from '../aws-client/json-client';
import { isTransient } from '../domain/transient-error';

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

/**
 * A ConditionalCheckFailedException of a call that was sent more than once: an earlier attempt may
 * have been applied and its answer lost (a reset connection, a 500 after the write landed), so the
 * failed condition may be this very write's own effect. The caller reads the item (consistently) and
 * decides whether it holds the state this write produces; lambdas/aws-client retries as the SDK did.
 */
export function isRetriedConditionalCheckFailed(err: unknown): boolean {
  const attempts = (err as { $metadata?: { attempts?: unknown } })?.$metadata?.attempts;
  return isConditionalCheckFailed(err) && typeof attempts === 'number' && attempts > 1;
}

/**
 * Whether a failed write may nevertheless have been applied: its condition failed on a retry (perhaps
 * on its own earlier attempt), or its last attempt failed in transit (a transient failure: a reset
 * connection, a 5xx), when an earlier one may have landed.
 */
export function mayHaveLanded(err: unknown): boolean {
  return isConditionalCheckFailed(err) ? isRetriedConditionalCheckFailed(err) : isTransient(err);
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
