/** The local DynamoDB (dynalite in its worker thread): it starts, keeps what it acknowledged, and says why when it cannot. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureTables, localTableName, startDynalite, LOCAL_AWS } from '../../lambdas/local/dynalite';
import { documentClient } from '../../lambdas/store/dynamo-client';
import { TABLES } from '../../lambdas/store/schema';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'tally-local-dynamo-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const table = localTableName(TABLES.projects);

async function withDynamo<T>(path: string, use: (ddb: ReturnType<typeof documentClient>) => Promise<T>): Promise<T> {
  const dynamo = await startDynalite(path);
  const ddb = documentClient({ ...LOCAL_AWS, endpoint: dynamo.endpoint });
  try {
    await ensureTables(dynamo.endpoint);
    return await use(ddb);
  } finally {
    ddb.destroy();
    await dynamo.close();
  }
}

describe('local DynamoDB', () => {
  it('keeps what it acknowledged across a close and a new start on the same directory', async () => {
    const path = join(tempDir(), 'dynamodb');
    await withDynamo(path, (ddb) => ddb.send(new PutCommand({ TableName: table, Item: { id: 'p1', name: 'kept' } })));
    const item = await withDynamo(path, async (ddb) => (await ddb.send(new GetCommand({ TableName: table, Key: { id: 'p1' } }))).Item);
    expect(item).toMatchObject({ id: 'p1', name: 'kept' });
  });

  it('fails to start with the directory named when it cannot open it, instead of failing requests later', async () => {
    const path = join(tempDir(), 'not-a-directory');
    writeFileSync(path, 'a file where the database directory should be');
    await expect(startDynalite(path)).rejects.toThrow(`local DynamoDB (dynalite) could not start on ${path}`);
  });

  it('closes at once when its thread has already stopped, instead of waiting for an answer that cannot come', async () => {
    const dynamo = await startDynalite(undefined);
    await dynamo.thread.terminate();
    const outcome = await Promise.race([dynamo.close().then(() => 'closed'), new Promise((resolve) => setTimeout(() => resolve('still waiting'), 2000))]);
    expect(outcome).toBe('closed');
    // A second close is as quick.
    await expect(dynamo.close()).resolves.toBeUndefined();
  });
});
