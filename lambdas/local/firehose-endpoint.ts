/**
 * A local endpoint speaking Firehose's PutRecordBatch wire protocol (JSON 1.1), so the unchanged
 * Firehose client of the AWS path (the AWS SDK's, lambdas/store/firehose-client.ts) runs locally. It does what the delivery stream does
 * on AWS: splits each record into its NDJSON lines and appends every line under
 * <dir>/project_id=<id>/dt=<YYYY-MM-DD>/ (dt from the line's `timestamp`), and for a stream keyed by
 * arrival (the events) .../received=<YYYY-MM-DD-HH>/ (the hour of the line's `received_at`,
 * contract/arrival-partition.ts): the S3 bucket's key layout (lib/raw-streams.ts).
 *
 * What the real stream cannot deliver to a partition goes where Firehose puts it, the error prefix
 * errors/<stream dir>/<error type>/dt=<YYYY-MM-DD>/ beside the stream's directory (lib/raw-streams.ts
 * errorOutputPrefix), as Firehose's error records: one JSON document per record, the record base64 in
 * rawData next to errorCode and errorMessage (lambdas/domain/undelivered-record.ts). The call still
 * succeeds, as on AWS, so the client is told its events are stored; `npm run redrive` re-sends them.
 * - A line whose partition keys cannot be extracted: not JSON, or no project_id, timestamp or (keyed by
 *   arrival) received_at as a non-empty string. Firehose delivers such records "to the S3 error bucket
 *   prefix" (developer guide, "Dynamic partitioning error handling"), under the type partitioning-failed
 *   (aws-cdk's integration test of dynamic partitioning expects a record without its key there), with
 *   the code DynamicPartitioning.MetadataExtractionFailed.
 * - A record of more than 500 lines is what the real stream cannot de-aggregate ("capped at 500 per
 *   record", developer guide, dynamic partitioning of aggregated data); the real PutRecordBatch still
 *   succeeds ("the request succeeds but the record de-aggregation doesn't work as expected", PutRecord
 *   API reference). AWS documents no error type or code for it: the record goes whole, as one error
 *   record, under deaggregation-failed with this stand-in's own code, and a warning is printed.
 */
import { randomUUID } from 'node:crypto';
import { appendFile, mkdir } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { ARRIVAL_PARTITION, arrivalHour } from '../contract/arrival-partition';
import { DELIVERY_ERRORS_PREFIX } from '../contract/delivery-errors';
import { undeliveredRecord } from '../domain/undelivered-record';

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
  /**
   * Fault injection for tests: while true, every call succeeds but every line goes to errors/, as
   * records past the stream's active-partition limit do on AWS: "the rest of the records in the Firehose
   * stream are delivered to the specified S3 error bucket prefix (activePartitionExceeded)" (developer
   * guide, "Buffer data for dynamic partitioning"). The guide does not say whether that name is the
   * error type or the code: it is both here (ACTIVE_PARTITION_EXCEEDED).
   */
  undeliverable: boolean;
  /** PutRecordBatch calls received, failed ones included. */
  calls: number;
  /**
   * Tests: called with each call's stream name and records (the exact bytes the client put) before
   * they are stored, so a test can run Firehose's own processing (jq) over them.
   */
  onRecords?: (stream: string, records: Buffer[]) => void;
  /** Called with a stream's name after its lines were written into its partitions. */
  onDelivered?: (stream: string) => void;
  close(): Promise<void>;
}

/** The object name of this process's files in each partition, like Firehose's per-delivery objects. */
const fileName = () => `tally-${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}.ndjson`;

/** Firehose's error output type and code for a record whose partition keys cannot be extracted. */
export const PARTITIONING_FAILED = { type: 'partitioning-failed', code: 'DynamicPartitioning.MetadataExtractionFailed' } as const;
/** Records past the active-partition limit (the `undeliverable` fault): the name the developer guide gives them. */
export const ACTIVE_PARTITION_EXCEEDED = { type: 'activePartitionExceeded', code: 'activePartitionExceeded' } as const;
/** This stand-in's own type and code for a record of more than 500 lines (AWS documents none). */
const DEAGGREGATION_FAILED = { type: 'deaggregation-failed', code: 'Tally.Local.DeaggregationLimitExceeded' } as const;

/** The error prefix's directory of a stream's directory: <data dir>/errors/<stream dir>/<type>/dt=<today>. */
export const errorDir = (dir: string, type: string, nowMs: number) =>
  join(dirname(dir), DELIVERY_ERRORS_PREFIX, basename(dir), type, `dt=${new Date(nowMs).toISOString().slice(0, 10)}`);

/**
 * The partition of a line (relative directory), or why Firehose could not extract its keys: what jq 1.6
 * gives for the stream's query (lib/raw-streams.ts), where a key that is not a non-empty string fails.
 * project_id and dt must be strings; the arrival hour is `(.received_at[0:10] + "-" + .received_at[11:13])`,
 * in which jq takes a missing received_at as null and null + "-" as "-", so such a line is keyed
 * received=- (test/engines/firehose-jq-errors.test.ts runs jq over the same lines).
 */
function partitionOf(line: string, byArrival: boolean): { partition: string } | { error: string } {
  let row: unknown;
  try {
    row = JSON.parse(line);
  } catch {
    return { error: 'Non JSON record provided' };
  }
  if (!row || typeof row !== 'object' || Array.isArray(row)) return { error: 'partitionKeys values must not be null or empty (not a JSON object)' };
  const r = row as Record<string, unknown>;
  const missing = ['project_id', 'timestamp'].filter((k) => typeof r[k] !== 'string' || r[k] === '');
  const received = r.received_at ?? null;
  if (byArrival && received !== null && typeof received !== 'string') missing.push('received_at');
  if (missing.length) return { error: `partitionKeys values must not be null or empty (${missing.join(', ')})` };
  const { project_id, timestamp } = r as { project_id: string; timestamp: string };
  const arrival = byArrival ? `${ARRIVAL_PARTITION}=${received === null ? '-' : arrivalHour(received as string)}` : '';
  return { partition: join(`project_id=${project_id}`, `dt=${timestamp.slice(0, 10)}`, arrival) };
}

/** Where a stream writes: the directory standing in for its S3 prefix, and whether it is keyed by arrival hour too. */
export interface LocalStreamTarget {
  dir: string;
  byArrival: boolean;
}

/** dirs: delivery stream name -> its target (a bare directory: not keyed by arrival). */
export async function startLocalFirehose(dirs: Record<string, string | LocalStreamTarget>): Promise<LocalFirehose> {
  const faults: FirehoseFault[] = [];
  const local = { faults, down: false, undeliverable: false, calls: 0 } as LocalFirehose;
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
    const toErrors = new Map<string, string[]>();
    const toErrorPrefix = (type: string, raw: string, code: string, message: string) => {
      const at = Date.now();
      const errors = errorDir(dir, type, at);
      (toErrors.get(errors) ?? toErrors.set(errors, []).get(errors)!).push(JSON.stringify(undeliveredRecord(raw, code, message, at)) + '\n');
      return errors;
    };
    const rejected = (i: number) => fault === 'reject-first-record' && i === 0;
    for (const [i, record] of body.Records.entries()) {
      if (rejected(i)) continue;
      const data = Buffer.from(record.Data, 'base64').toString('utf8');
      const lines = data.split('\n').filter(Boolean);
      if (lines.length > DEAGGREGATION_MAX_LINES) {
        const errors = toErrorPrefix(
          DEAGGREGATION_FAILED.type,
          data,
          DEAGGREGATION_FAILED.code,
          `${lines.length} JSON objects in one record (at most ${DEAGGREGATION_MAX_LINES})`,
        );
        process.emitWarning(
          `local Firehose: a record of ${lines.length} lines (over ${DEAGGREGATION_MAX_LINES}) went to ${errors}, as on AWS it would not be de-aggregated`,
        );
        continue;
      }
      for (const line of lines) {
        if (local.undeliverable) {
          toErrorPrefix(ACTIVE_PARTITION_EXCEEDED.type, line, ACTIVE_PARTITION_EXCEEDED.code, 'injected fault: past the active-partition limit');
          continue;
        }
        const keyed = partitionOf(line, byArrival);
        if ('error' in keyed) {
          toErrorPrefix(PARTITIONING_FAILED.type, line, PARTITIONING_FAILED.code, keyed.error);
          continue;
        }
        (byPartition.get(keyed.partition) ?? byPartition.set(keyed.partition, []).get(keyed.partition)!).push(line + '\n');
      }
    }
    for (const [errors, lines] of toErrors) {
      await mkdir(errors, { recursive: true });
      await append(join(errors, objectName), lines.join(''));
    }
    for (const [partition, lines] of byPartition) {
      await mkdir(join(dir, partition), { recursive: true });
      await append(join(dir, partition, objectName), lines.join(''));
    }
    if (byPartition.size > 0) local.onDelivered?.(body.DeliveryStreamName);
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
