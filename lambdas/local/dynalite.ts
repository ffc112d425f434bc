/**
 * DynamoDB for the local stack: dynalite in-process, persisting under the data directory
 * (LevelDB), or in memory when no directory is given (tests).
 *
 * It runs in a worker thread of its own (dynalite-thread.mjs), so on a machine with two cores or more
 * the database works while the main thread parses, validates and answers requests, as DynamoDB does
 * on AWS. On one thread, dynalite's work and the handlers' took turns: `npm run bench:ingest`
 * measured 839 events/s on one thread and 1,218 with the worker, same machine, same run of minutes.
 */
import { Worker } from 'node:worker_threads';
import { CreateTableCommand, DocumentClient, ListTablesCommand } from '../aws-client/dynamodb';
import { errorFields, log } from '../logging/log';
import { TABLES, type TableLayout } from '../store/schema';

export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
export const LOCAL_REGION = 'us-east-1';

export interface LocalDynamo {
  endpoint: string;
  close(): Promise<void>;
}

type ThreadMessage = { port: number } | { error: string } | 'closed';

export async function startDynalite(path: string | undefined): Promise<LocalDynamo> {
  const worker = new Worker(new URL('./dynalite-thread.mjs', import.meta.url), { workerData: { path } });
  let closing = false;
  const where = path ?? 'memory';
  const port = await new Promise<number>((resolve, reject) => {
    const fail = (why: string) => reject(new Error(`local DynamoDB (dynalite) could not start on ${where}: ${why}`));
    worker.once('message', (message: ThreadMessage) => {
      if (typeof message === 'object' && 'port' in message) resolve(message.port);
      else if (typeof message === 'object') fail(message.error);
    });
    worker.once('error', (err) => fail(err.message));
    worker.once('exit', (code) => fail(`its thread exited with code ${code}`));
  }).catch(async (err: unknown) => {
    await worker.terminate();
    throw err;
  });
  worker.on('error', (err) => log('error', 'local DynamoDB (dynalite) failed', errorFields(err)));
  worker.on('exit', (code) => {
    if (!closing) log('error', 'local DynamoDB (dynalite) stopped; restart the server', { code });
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: async () => {
      closing = true;
      // 'closed' once dynalite has closed its LevelDB; 'exit' if the thread had already stopped.
      const closed = new Promise<void>((resolve) => {
        worker.on('message', (m: ThreadMessage) => m === 'closed' && resolve());
        worker.once('exit', () => resolve());
      });
      worker.postMessage('close');
      await closed;
      await worker.terminate();
    },
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
