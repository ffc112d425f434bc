/** dynalite in memory with the project's tables, for store tests. */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConfiguredRetryStrategy } from '@smithy/core/retry';
import { AWS_CALL_LIMITS } from '../../lambdas/contract/aws-call-limits';
import { ensureTables, localTableName, startDynalite, LOCAL_AWS } from '../../lambdas/local/dynalite';
import type { AwsClientOptions } from '../../lambdas/store/aws-sdk-config';
import { documentClient } from '../../lambdas/store/dynamo-client';
import { TABLES, type TableName } from '../../lambdas/store/schema';

/** The SDK's standard retries (which failures, the retry quota) without the waits between attempts. */
export const noBackoff = (maxAttempts: number = AWS_CALL_LIMITS.dynamodb.maxAttempts) => new ConfiguredRetryStrategy(maxAttempts, 0);

export interface TestDynamo {
  ddb: DynamoDBDocumentClient;
  /** dynalite's endpoint (to put a proxy in front of it). */
  endpoint: string;
  /** Another document client on the same credentials, e.g. through a proxy; closed with close(). */
  client(options: Pick<AwsClientOptions, 'endpoint' | 'maxAttempts' | 'retryStrategy'>): DynamoDBDocumentClient;
  table(name: TableName): string;
  close(): Promise<void>;
}

export async function startTestDynamo(): Promise<TestDynamo> {
  const dynamo = await startDynalite(undefined);
  await ensureTables(dynamo.endpoint);
  const ddb = documentClient({ ...LOCAL_AWS, endpoint: dynamo.endpoint });
  const clients = [ddb];
  return {
    ddb,
    endpoint: dynamo.endpoint,
    client: (options) => {
      const client = documentClient({ ...LOCAL_AWS, endpoint: dynamo.endpoint, ...options });
      clients.push(client);
      return client;
    },
    table: (name) => localTableName(TABLES[name]),
    close: async () => {
      for (const client of clients) client.destroy();
      await dynamo.close();
    },
  };
}
