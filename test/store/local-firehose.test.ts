/**
 * The local Firehose endpoint behaves like the real delivery stream where the AWS path relies on it. It is
 * driven here with the AWS SDK's own Firehose client, unconfigured, so the endpoint stays true to the
 * protocol the Lambdas' client speaks to the real service.
 */
import { FirehoseClient, PutRecordBatchCommand } from '@aws-sdk/client-firehose';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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

/** Every error record in the files of a folder. */
function errorRecords(folder: string): Array<{ rawData: string; errorCode: string; errorMessage: string; attemptsMade: number; arrivalTimestamp: number }> {
  return readdirSync(folder).flatMap((f) =>
    readFileSync(join(folder, f), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l)),
  );
}

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

  it('accepts a record of 501 lines, as the real call does, but never delivers it to a partition: it goes whole to errors/ as one error record', async () => {
    const over = record('over', 501);
    const out = await client.send(new PutRecordBatchCommand({ DeliveryStreamName: 'events', Records: [over, record('beside', 1)] }));
    expect(out.FailedPutCount).toBe(0);
    expect(readRawEvents(join(dir, 'events'), 'over')).toHaveLength(0);
    expect(readRawEvents(join(dir, 'events'), 'beside')).toHaveLength(1);
    const [day] = readdirSync(join(dir, 'errors', 'events', 'deaggregation-failed'));
    const records = errorRecords(join(dir, 'errors', 'events', 'deaggregation-failed', day!));
    expect(records).toHaveLength(1);
    expect(Buffer.from(records[0]!.rawData, 'base64')).toEqual(Buffer.from(over.Data));
  });

  it('writes a line whose partition keys cannot be extracted under errors/<stream>/partitioning-failed/dt=<today>/ as Firehose does: an error record with the line in rawData; the call succeeds and the other lines are delivered', async () => {
    const lines = [
      JSON.stringify({ project_id: 'keyed', timestamp: '2026-01-01T00:00:00.000Z', received_at: '2026-01-01T00:00:00.000Z' }),
      JSON.stringify({ timestamp: '2026-01-01T00:00:00.000Z', received_at: '2026-01-01T00:00:00.000Z', name: 'no project' }),
      JSON.stringify({ project_id: 'keyed', timestamp: '2026-01-01T00:00:00.000Z', received_at: 1767225600, name: 'received_at a number' }),
      '{"project_id":"keyed", not json',
    ];
    const out = await client.send(
      new PutRecordBatchCommand({ DeliveryStreamName: 'events', Records: [{ Data: Buffer.from(lines.map((l) => l + '\n').join('')) }] }),
    );
    expect(out.FailedPutCount).toBe(0);
    expect(readRawEvents(join(dir, 'events'), 'keyed')).toHaveLength(1);
    const records = errorRecords(join(dir, 'errors', 'events', 'partitioning-failed', `dt=${new Date().toISOString().slice(0, 10)}`));
    expect(records.map((r) => Buffer.from(r.rawData, 'base64').toString('utf8'))).toEqual(lines.slice(1));
    for (const r of records) {
      expect(r).toMatchObject({ errorCode: 'DynamicPartitioning.MetadataExtractionFailed', attemptsMade: 1 });
      expect(typeof r.errorMessage).toBe('string');
      expect(typeof r.arrivalTimestamp).toBe('number');
    }
  });
});
