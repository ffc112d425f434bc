import { FirehoseClient, PutRecordBatchCommand } from '@aws-sdk/client-firehose';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../lambdas/domain/event';
import { FirehoseRawStream, packRecords } from '../../lambdas/store/firehose-raw-stream';
import { RawStreamError } from '../../lambdas/ports';

const firehose = mockClient(FirehoseClient);
beforeEach(() => firehose.reset());

const events = (n: number, size = 10): StoredEvent[] =>
  Array.from({ length: n }, (_, i) => ({ project_id: 'p', name: `e${i}`, properties: { pad: 'x'.repeat(size) } }) as unknown as StoredEvent);

describe('FirehoseRawStream (AWS path, mocked Firehose)', () => {
  it('packs a 20-event batch into one NDJSON record', async () => {
    firehose.on(PutRecordBatchCommand).resolves({ FailedPutCount: 0, RequestResponses: [{ RecordId: '1' }] });
    await new FirehoseRawStream(new FirehoseClient({ region: 'eu-west-1' }), 'stream').put(events(20));
    const calls = firehose.commandCalls(PutRecordBatchCommand);
    expect(calls).toHaveLength(1);
    const input = calls[0]!.args[0].input;
    expect(input.DeliveryStreamName).toBe('stream');
    expect(input.Records).toHaveLength(1);
    const lines = Buffer.from(input.Records![0]!.Data!).toString().split('\n').filter(Boolean);
    expect(lines.map((l) => JSON.parse(l).name)).toEqual(events(20).map((e) => e.name));
  });

  it('keeps every record under Firehose limits', () => {
    const records = packRecords(events(300, 30_000));
    expect(records.length).toBeGreaterThan(1);
    for (const r of records) expect(r.Data!.length).toBeLessThanOrEqual(1000 * 1024);
    const total = records.reduce((n, r) => n + Buffer.from(r.Data!).toString().split('\n').filter(Boolean).length, 0);
    expect(total).toBe(300);
  });

  it('puts at most 500 lines in a record, the most Firehose de-aggregates from one record', () => {
    const records = packRecords(events(1201));
    const lines = records.map((r) => Buffer.from(r.Data!).toString().split('\n').filter(Boolean).length);
    expect(lines).toEqual([500, 500, 201]);
  });

  it('resends only the records Firehose rejected', async () => {
    const many = events(100, 30_000); // several records, one PutRecordBatch (under 4 MiB)
    const recordCount = packRecords(many).length;
    expect(recordCount).toBeGreaterThan(1);
    firehose
      .on(PutRecordBatchCommand)
      .resolvesOnce({
        FailedPutCount: 1,
        RequestResponses: [{ ErrorCode: 'ServiceUnavailableException' }, ...Array.from({ length: recordCount - 1 }, () => ({ RecordId: 'x' }))],
      })
      .resolves({ FailedPutCount: 0, RequestResponses: [{ RecordId: 'y' }] });
    await new FirehoseRawStream(new FirehoseClient({ region: 'eu-west-1' }), 'stream').put(many);
    const calls = firehose.commandCalls(PutRecordBatchCommand);
    expect(calls).toHaveLength(2);
    expect(calls[1]!.args[0].input.Records).toHaveLength(1);
  });

  it('fails with a RawStreamError when the call itself fails (the SDK has retried it already)', async () => {
    firehose.on(PutRecordBatchCommand).rejects(Object.assign(new Error('down'), { name: 'ServiceUnavailableException' }));
    await expect(new FirehoseRawStream(new FirehoseClient({ region: 'eu-west-1' }), 'stream').put(events(2))).rejects.toBeInstanceOf(RawStreamError);
    expect(firehose.commandCalls(PutRecordBatchCommand)).toHaveLength(1);
  });

  it('gives up after four attempts when records keep being rejected', async () => {
    firehose.on(PutRecordBatchCommand).resolves({ FailedPutCount: 1, RequestResponses: [{ ErrorCode: 'ServiceUnavailableException' }] });
    await expect(new FirehoseRawStream(new FirehoseClient({ region: 'eu-west-1' }), 'stream').put(events(2))).rejects.toThrow(
      /rejected 1 records after 4 attempts/,
    );
    expect(firehose.commandCalls(PutRecordBatchCommand)).toHaveLength(4);
  });
});
