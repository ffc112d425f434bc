import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand, ScanCommand, type QueryCommandInput, type ScanCommandInput } from '@aws-sdk/lib-dynamodb';
import { isTransient } from '../domain/transient-error';
import { callLimits, sdkClientConfig, withDeadline, type AwsClientOptions } from './aws-sdk-config';

/**
 * One document client per process: the SDK's DynamoDBDocumentClient (undefined values removed),
 * configured with Tally's call limits (aws-sdk-config.ts). Without options: the region, credentials
 * and endpoint the SDK resolves (on Lambda, the function's own).
 */
export function documentClient(options: AwsClientOptions = {}): DynamoDBDocumentClient {
  const limits = callLimits('dynamodb', options);
  const client = new DynamoDBClient(sdkClientConfig(limits, options));
  return withDeadline(DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } }), limits.deadlineMs);
}

export function isConditionalCheckFailed(err: unknown): boolean {
  return (err as { name?: string })?.name === 'ConditionalCheckFailedException';
}

/**
 * A ConditionalCheckFailedException of a call that was sent more than once: an earlier attempt may
 * have been applied and its answer lost (a reset connection, a 500 after the write landed), so the
 * failed condition may be this very write's own effect. The caller reads the item (consistently) and
 * decides whether it holds the state this write produces. The SDK counts the attempts in the error's
 * $metadata.attempts.
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

export function queryAll<T>(ddb: DynamoDBDocumentClient, input: Omit<QueryCommandInput, 'ExclusiveStartKey'>): Promise<T[]> {
  return allPages((start) => ddb.send(new QueryCommand({ ...input, ExclusiveStartKey: start })));
}

export function scanAll<T>(ddb: DynamoDBDocumentClient, input: Omit<ScanCommandInput, 'ExclusiveStartKey'>): Promise<T[]> {
  return allPages((start) => ddb.send(new ScanCommand({ ...input, ExclusiveStartKey: start })));
}
