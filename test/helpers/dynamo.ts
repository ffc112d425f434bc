/** dynalite in memory with the project's tables, for store tests. */
import type { DocumentClient } from '../../lambdas/aws-client/dynamodb';
import { documentClient } from '../../lambdas/store/dynamo-client';
import { ensureTables, LOCAL_ATTEMPT_TIMEOUT_MS, LOCAL_CREDENTIALS, LOCAL_REGION, localTableName, startDynalite } from '../../lambdas/local/dynalite';
import { TABLES, type TableName } from '../../lambdas/store/schema';

export interface TestDynamo {
  ddb: DocumentClient;
  table(name: TableName): string;
  close(): Promise<void>;
}

export async function startTestDynamo(): Promise<TestDynamo> {
  const dynamo = await startDynalite(undefined);
  await ensureTables(dynamo.endpoint);
  const ddb = documentClient({ endpoint: dynamo.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, attemptTimeoutMs: LOCAL_ATTEMPT_TIMEOUT_MS });
  return {
    ddb,
    table: (name) => localTableName(TABLES[name]),
    close: async () => {
      ddb.destroy();
      await dynamo.close();
    },
  };
}
