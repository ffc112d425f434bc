/**
 * A local endpoint speaking Firehose's PutRecordBatch wire protocol (JSON 1.1), so the unchanged
 * Firehose client of the AWS path (the AWS SDK's, lambdas/store/firehose-client.ts) runs locally. It does what the delivery stream does
 * on AWS: splits each record into its NDJSON lines and appends every line under
 * <dir>/project_id=<id>/dt=<YYYY-MM-DD>/ (dt from the line's `timestamp`), and for a stream keyed by
 * arrival (the events) .../received=<YYYY-MM-DD-HH>/ (the hour of the line's `received_at`,
 * contract/arrival-partition.ts): the S3 bucket's key layout (lib/raw-streams.ts).
 *
 * A record of more than 500 lines is what the real stream cannot de-aggregate ("capped at 500 per
 * record", Firehose developer guide, dynamic partitioning of aggregated data). The real PutRecordBatch
 * still succeeds ("the request succeeds but the record de-aggregation doesn't work as expected",
 * PutRecord API reference), and the data misses its partitions. So does this endpoint: the call
 * succeeds and the record goes whole to <dir>/../errors/<stream dir>/, never to a partition, so the
 * events are missing where queries look, as they would be on AWS.
 */
import { randomUUID } from 'node:crypto';
import { appendFile, mkdir } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { ARRIVAL_PARTITION, arrivalHour } from '../contract/arrival-partition';

/**
 * The real stream's de-aggregation limit. Deliberately not the raw stream's own cap (firehose-raw-stream.ts
 * MAX_RECORD_LINES): this endpoint stands for AWS and checks the raw stream, so it must not share the
 * number it checks.
 */
const DEAGGREGATION_MAX_LINES = 500;

export type FirehoseFault =
  /** The whole call fails with a 500 ServiceUnavailableException. */
  | 'unavailable'
  /** Every record of the call fails (FailedPutCount = records), as under throttling. */
  | 'reject-records'
  /** The call's first record fails, the others are stored (a partial failure). */
  | 'reject-first-record';

export interface LocalFirehose {
  endpoint: string;
  /** Fault injection for tests: each queued fault applies to one future call. */
  faults: FirehoseFault[];
  /** Fault injection for tests: while true, every call fails as 'unavailable'. */
  down: boolean;
  /** PutRecordBatch calls received, failed ones included. */
  calls: number;
  /**
   * Tests: called with each call's stream name and records (the exact bytes the client put) before
   * they are stored, so a test can run Firehose's own processing (jq) over them.
   */
  onRecords?: (stream: string, records: Buffer[]) => void;
  close(): Promise<void>;
}

/** The object name of this process's files in each partition, like Firehose's per-delivery objects. */
const fileName = () => `tally-${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}.ndjson`;

/** Where a stream writes: the directory standing in for its S3 prefix, and whether it is keyed by arrival hour too. */
export interface LocalStreamTarget {
  dir: string;
  byArrival: boolean;
}

/** dirs: delivery stream name -> its target (a bare directory: not keyed by arrival). */
export async function startLocalFirehose(dirs: Record<string, string | LocalStreamTarget>): Promise<LocalFirehose> {
  const faults: FirehoseFault[] = [];
  const local = { faults, down: false, calls: 0 } as LocalFirehose;
  const objectName = fileName();
  // Appends to one file are chained so concurrent requests never interleave partial lines.
  const tails = new Map<string, Promise<void>>();
  const append = (path: string, data: string) => {
    const next = (tails.get(path) ?? Promise.resolve()).then(() => appendFile(path, data));
    tails.set(
      path,
      next.catch(() => undefined),
    );
    return next;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const target = String(req.headers['x-amz-target'] ?? '');
    if (!target.endsWith('.PutRecordBatch')) {
      return reply(res, 400, { __type: 'UnknownOperationException', message: `${target} is not supported locally` });
    }
    local.calls++;
    const fault = local.down ? 'unavailable' : faults.shift();
    if (fault === 'unavailable') {
      return reply(res, 500, { __type: 'ServiceUnavailableException', message: 'injected fault' });
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { DeliveryStreamName: string; Records: Array<{ Data: string }> };
    const stream = dirs[body.DeliveryStreamName];
    const { dir, byArrival } = typeof stream === 'string' ? { dir: stream, byArrival: false } : (stream ?? { dir: undefined, byArrival: false });
    if (!dir) {
      return reply(res, 400, { __type: 'ResourceNotFoundException', message: `Delivery stream ${body.DeliveryStreamName} not found` });
    }
    if (fault === 'reject-records') {
      return reply(res, 200, {
        FailedPutCount: body.Records.length,
        Encrypted: false,
        RequestResponses: body.Records.map(() => ({ ErrorCode: 'ServiceUnavailableException', ErrorMessage: 'injected fault' })),
      });
    }
    local.onRecords?.(
      body.DeliveryStreamName,
      body.Records.map((r) => Buffer.from(r.Data, 'base64')),
    );
    const byPartition = new Map<string, string[]>();
    const rejected = (i: number) => fault === 'reject-first-record' && i === 0;
    for (const [i, record] of body.Records.entries()) {
      if (rejected(i)) continue;
      const data = Buffer.from(record.Data, 'base64').toString('utf8');
      const lines = data.split('\n').filter(Boolean);
      if (lines.length > DEAGGREGATION_MAX_LINES) {
        const errors = join(dirname(dir), 'errors', basename(dir), 'deaggregation-failed', `dt=${new Date().toISOString().slice(0, 10)}`);
        await mkdir(errors, { recursive: true });
        await append(join(errors, objectName), data);
        process.emitWarning(
          `local Firehose: a record of ${lines.length} lines (over ${DEAGGREGATION_MAX_LINES}) went to ${errors}, as on AWS it would not be de-aggregated`,
        );
        continue;
      }
      for (const line of lines) {
        const event = JSON.parse(line) as { project_id: string; timestamp: string; received_at: string };
        const partition = join(
          `project_id=${event.project_id}`,
          `dt=${event.timestamp.slice(0, 10)}`,
          byArrival ? `${ARRIVAL_PARTITION}=${arrivalHour(event.received_at)}` : '',
        );
        (byPartition.get(partition) ?? byPartition.set(partition, []).get(partition)!).push(line + '\n');
      }
    }
    for (const [partition, lines] of byPartition) {
      await mkdir(join(dir, partition), { recursive: true });
      await append(join(dir, partition, objectName), lines.join(''));
    }
    reply(res, 200, {
      FailedPutCount: body.Records.filter((_, i) => rejected(i)).length,
      Encrypted: false,
      RequestResponses: body.Records.map((_, i) =>
        rejected(i) ? { ErrorCode: 'ServiceUnavailableException', ErrorMessage: 'injected fault' } : { RecordId: randomUUID() },
      ),
    });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => reply(res, 500, { __type: 'InternalFailure', message: err.message }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  Object.assign(local, {
    endpoint: `http://127.0.0.1:${port}`,
    close: async () => {
      await Promise.all(tails.values());
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
  return local;
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/x-amz-json-1.1' });
  res.end(JSON.stringify(body));
}
