/** dynalite in memory with the project's tables, for store tests. */
import type { DocumentClient } from '../../lambdas/aws-client/dynamodb';
import type { AwsClientOptions } from '../../lambdas/aws-client/json-client';
import { documentClient } from '../../lambdas/store/dynamo-client';
import { ensureTables, localTableName, startDynalite, LOCAL_AWS } from '../../lambdas/local/dynalite';
import { TABLES, type TableName } from '../../lambdas/store/schema';

export interface TestDynamo {
  ddb: DocumentClient;
  /** dynalite's endpoint (to put a proxy in front of it). */
  endpoint: string;
  /** Another document client on the same credentials, e.g. through a proxy; closed with close(). */
  client(options: Pick<AwsClientOptions, 'endpoint' | 'maxAttempts' | 'backoffScale'>): DocumentClient;
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
