/**
 * The local Firehose endpoint behaves like the real delivery stream where the AWS path relies on it. It is
 * driven here with the AWS SDK's own Firehose client, unconfigured, so the endpoint stays true to the
 * protocol the Lambdas' client speaks to the real service.
 */
import { FirehoseClient, PutRecordBatchCommand } from '@aws-sdk/client-firehose';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalFirehose, type LocalFirehose } from '../../lambdas/local/firehose-endpoint';
import { readRawEvents } from '../helpers/local';

let dir: string;
let local: LocalFirehose;
let client: FirehoseClient;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tally-firehose-'));
  local = await startLocalFirehose({ events: { dir: join(dir, 'events'), byArrival: true } });
  client = new FirehoseClient({ region: 'us-east-1', endpoint: local.endpoint, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
});
afterAll(async () => {
  await local.close();
  rmSync(dir, { recursive: true, force: true });
});

const record = (project: string, lines: number) => ({
  Data: Buffer.from(
    Array.from(
      { length: lines },
      (_, i) =>
        JSON.stringify({ project_id: project, timestamp: '2026-01-01T00:00:00.000Z', received_at: `2026-01-0${1 + (i % 2)}T0${i % 3}:30:00.000Z`, i }) + '\n',
    ).join(''),
  ),
});

describe('local Firehose endpoint', () => {
  it('de-aggregates a record of 500 lines into its partition', async () => {
    const out = await client.send(new PutRecordBatchCommand({ DeliveryStreamName: 'events', Records: [record('ok', 500)] }));
    expect(out.FailedPutCount).toBe(0);
    expect(readRawEvents(join(dir, 'events'), 'ok')).toHaveLength(500);
  });

  it('writes the S3 key layout: each line under its event day, then the hour of its arrival (received_at)', async () => {
    await client.send(new PutRecordBatchCommand({ DeliveryStreamName: 'events', Records: [record('layout', 6)] }));
    const day = join(dir, 'events', 'project_id=layout', 'dt=2026-01-01');
    expect(readdirSync(day).sort()).toEqual([
      'received=2026-01-01-00',
      'received=2026-01-01-01',
      'received=2026-01-01-02',
      'received=2026-01-02-00',
      'received=2026-01-02-01',
      'received=2026-01-02-02',
    ]);
    expect(readRawEvents(join(dir, 'events'), 'layout')).toHaveLength(6);
  });

  it('accepts a record of 501 lines, as the real call does, but never delivers it to a partition', async () => {
    const out = await client.send(new PutRecordBatchCommand({ DeliveryStreamName: 'events', Records: [record('over', 501), record('beside', 1)] }));
    expect(out.FailedPutCount).toBe(0);
    expect(readRawEvents(join(dir, 'events'), 'over')).toHaveLength(0);
    expect(readRawEvents(join(dir, 'events'), 'beside')).toHaveLength(1);
    expect(readdirSync(join(dir, 'errors', 'events', 'deaggregation-failed'))).toHaveLength(1);
  });
});
