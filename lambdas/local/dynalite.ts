/**
 * DynamoDB for the local stack: dynalite in-process, persisting under the data directory
 * (LevelDB), or in memory when no directory is given (tests).
 */
import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';
import { CreateTableCommand, DocumentClient, ListTablesCommand } from '../aws-client/dynamodb';
import { TABLES, type TableLayout } from '../store/schema';

export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
export const LOCAL_REGION = 'us-east-1';

export interface LocalDynamo {
  endpoint: string;
  close(): Promise<void>;
}

export async function startDynalite(path: string | undefined): Promise<LocalDynamo> {
  const server = dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Physical table name of a logical table, locally. */
export const localTableName = (layout: TableLayout) => `tally-${layout.name}`;

/** Creates the tables that do not exist yet, from the same layouts the CDK stack uses. */
export async function ensureTables(endpoint: string): Promise<void> {
  const client = new DocumentClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  try {
    const existing = new Set<string>((await client.send(new ListTablesCommand({}))).TableNames ?? []);
    for (const layout of Object.values(TABLES)) {
      const name = localTableName(layout);
      if (existing.has(name)) continue;
      const keys = new Set([layout.partitionKey, layout.sortKey, ...layout.indexes.flatMap((i) => [i.partitionKey, i.sortKey])]);
      await client.send(
        new CreateTableCommand({
          TableName: name,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: [...keys].filter((k): k is string => !!k).map((k) => ({ AttributeName: k, AttributeType: 'S' })),
          KeySchema: keySchema(layout.partitionKey, layout.sortKey),
          GlobalSecondaryIndexes: layout.indexes.length
            ? layout.indexes.map((i) => ({
                IndexName: i.name,
                KeySchema: keySchema(i.partitionKey, i.sortKey),
                Projection: { ProjectionType: 'ALL' },
              }))
            : undefined,
        }),
      );
    }
  } finally {
    client.destroy();
  }
}

function keySchema(partitionKey: string, sortKey: string | undefined) {
  return [{ AttributeName: partitionKey, KeyType: 'HASH' as const }, ...(sortKey ? [{ AttributeName: sortKey, KeyType: 'RANGE' as const }] : [])];
}
