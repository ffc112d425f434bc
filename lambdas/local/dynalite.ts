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
import { CreateTableCommand, DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { callLimits, sdkClientConfig, type AwsClientOptions } from '../store/aws-sdk-config';
import { errorFields, log } from '../logging/log';
import { TABLES, type TableLayout } from '../store/schema';

/**
 * How the AWS SDK's clients reach the local stand-ins (dynalite, the local Firehose endpoint): any
 * region and credentials (signed, not checked), and long timeouts. On AWS a connect fails after 2 s,
 * an attempt after 3 s (DynamoDB) or 5 s (Firehose) without a byte, against half-open sockets after a
 * Lambda freeze, and a call after 6 s or 8 s (lambdas/contract/aws-call-limits.ts). Loopback loses no
 * connects and has no such sockets, while a busy laptop can leave the event loop without a turn for
 * over a second (a 1 s connect timeout failed a test so) and dynalite can take seconds over a large scan.
 */
export const LOCAL_AWS = {
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  connectTimeoutMs: 10_000,
  idleTimeoutMs: 30_000,
  deadlineMs: 120_000,
} as const satisfies AwsClientOptions;

export interface LocalDynamo {
  endpoint: string;
  /** Closes dynalite (and its LevelDB) and ends its thread; resolves also when the thread had already stopped. */
  close(): Promise<void>;
  /** The thread dynalite runs in (tests stop it to see the server cope). */
  thread: Worker;
}

/** Messages from dynalite-thread.mjs. */
type ThreadMessage = { port: number } | { error: string } | { closed: true; error?: string };

/** How long close() waits for dynalite to close its LevelDB before ending the thread anyway. */
const CLOSE_TIMEOUT_MS = 10_000;

export async function startDynalite(path: string | undefined): Promise<LocalDynamo> {
  const worker = new Worker(new URL('./dynalite-thread.mjs', import.meta.url), { workerData: { path } });
  const where = path ?? 'memory';
  const port = await new Promise<number>((resolve, reject) => {
    const fail = (why: string) => reject(new Error(`local DynamoDB (dynalite) could not start on ${where}: ${why}`));
    worker.once('message', (message: ThreadMessage) => {
      if ('port' in message) resolve(message.port);
      else fail(message.error ?? 'it closed while starting');
    });
    worker.once('error', (err) => fail(err.message));
    worker.once('exit', (code) => fail(`its thread exited with code ${code}`));
  }).catch(async (err: unknown) => {
    await worker.terminate();
    throw err;
  });

  let closing = false;
  let exited = false;
  const closed = new Promise<void>((resolve) => {
    worker.on('message', (message: ThreadMessage) => {
      if ('closed' in message) {
        if (message.error) log('error', 'local DynamoDB (dynalite) did not close cleanly', { error_message: message.error });
        resolve();
      } else if ('error' in message) log('error', 'local DynamoDB (dynalite) failed', { error_message: message.error });
    });
    worker.on('exit', (code) => {
      exited = true;
      if (!closing) log('error', 'local DynamoDB (dynalite) stopped; restart the server', { code });
      resolve();
    });
  });
  worker.on('error', (err) => log('error', 'local DynamoDB (dynalite) failed', errorFields(err)));

  return {
    endpoint: `http://127.0.0.1:${port}`,
    thread: worker,
    close: async () => {
      if (closing || exited) return void (await closed);
      closing = true;
      worker.postMessage('close');
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_TIMEOUT_MS)));
      await Promise.race([closed, timedOut]);
      clearTimeout(timer);
      await worker.terminate();
    },
  };
}

/** Physical table name of a logical table, locally. */
export const localTableName = (layout: TableLayout) => `tally-${layout.name}`;

/** Creates the tables that do not exist yet, from the same layouts the CDK stack uses. */
export async function ensureTables(endpoint: string): Promise<void> {
  const options = { ...LOCAL_AWS, endpoint };
  const client = new DynamoDBClient(sdkClientConfig(callLimits('dynamodb', options), options));
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
