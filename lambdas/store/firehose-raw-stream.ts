/**
 * The raw event stream through Amazon Data Firehose. Events are packed as NDJSON into as few records
 * as fit: Firehose bills each record rounded up to 5 KB, so one 20-event record costs what one event
 * alone would. The delivery stream de-aggregates the lines again and partitions them by project and day.
 */
import { PutRecordBatchCommand, type FirehoseClient } from '@aws-sdk/client-firehose';
import { RawStreamError, type RawStream } from '../ports';

/** Firehose limits: 1,000 KiB per record, 500 records and 4 MiB per PutRecordBatch. */
const MAX_RECORD_BYTES = 1000 * 1024;
/**
 * The stream's de-aggregation splits at most 500 JSON objects out of one record: "Record deaggregation
 * by JSON or by delimiter is capped at 500 per record" (Firehose developer guide, "Apply dynamic
 * partitioning to aggregated data"). Beyond that "the request succeeds but the record de-aggregation
 * doesn't work as expected" (PutRecord API reference), so the cap must hold here, before sending.
 */
export const MAX_RECORD_LINES = 500;
const MAX_BATCH_RECORDS = 500;
const MAX_BATCH_BYTES = 4 * 1024 * 1024;
const ATTEMPTS = 4;

/** One Firehose record: NDJSON lines. */
export interface FirehoseRecord {
  Data: Uint8Array;
}

export class FirehoseRawStream<T extends object> implements RawStream<T> {
  constructor(
    private readonly firehose: FirehoseClient,
    private readonly streamName: string,
  ) {}

  async put(rows: T[]): Promise<void> {
    for (const batch of toBatches(packRecords(rows))) await this.putBatch(batch);
  }

  /**
   * PutRecordBatch can fail per record: resend only the failed ones, with backoff (the SDK retries
   * whole calls, not records). A whole-call error has already been retried by the SDK, so it fails the write at once.
   */
  private async putBatch(records: FirehoseRecord[]): Promise<void> {
    let pending = records;
    for (let attempt = 1; ; attempt++) {
      let out;
      try {
        out = await this.firehose.send(new PutRecordBatchCommand({ DeliveryStreamName: this.streamName, Records: pending }));
      } catch (err) {
        throw new RawStreamError(`Firehose PutRecordBatch failed: ${(err as Error).name}`, { cause: err });
      }
      if ((out.FailedPutCount ?? 0) === 0) return;
      const failed = pending.filter((_, i) => out.RequestResponses?.[i]?.ErrorCode);
      // Per-record error codes are ServiceUnavailableException or InternalFailure: busy, not wrong.
      if (attempt >= ATTEMPTS) throw new RawStreamError(`Firehose rejected ${failed.length} records after ${ATTEMPTS} attempts`, { transient: true });
      pending = failed;
      await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
    }
  }
}

export function packRecords(events: object[]): FirehoseRecord[] {
  const records: FirehoseRecord[] = [];
  let lines: Buffer[] = [];
  let size = 0;
  const flush = () => {
    if (lines.length) records.push({ Data: Buffer.concat(lines) });
    lines = [];
    size = 0;
  };
  for (const event of events) {
    const line = Buffer.from(JSON.stringify(event) + '\n');
    if (size + line.length > MAX_RECORD_BYTES || lines.length === MAX_RECORD_LINES) flush();
    lines.push(line);
    size += line.length;
  }
  flush();
  return records;
}

function toBatches(records: FirehoseRecord[]): FirehoseRecord[][] {
  const batches: FirehoseRecord[][] = [];
  let current: FirehoseRecord[] = [];
  let bytes = 0;
  for (const r of records) {
    const n = r.Data.length;
    if (current.length === MAX_BATCH_RECORDS || bytes + n > MAX_BATCH_BYTES) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(r);
    bytes += n;
  }
  if (current.length) batches.push(current);
  return batches;
}
