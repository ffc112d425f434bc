/**
 * A local endpoint speaking Firehose's PutRecordBatch wire protocol (JSON 1.1), so the unchanged
 * Firehose client of the AWS path (the AWS SDK's, lambdas/store/firehose-client.ts) runs locally. It does
 * what the delivery stream does on AWS (lib/raw-streams.ts): appends each record's bytes, as they are,
 * to an object under <dir>/arrival_hour=<yyyy-MM-dd-HH>/, the UTC hour the records arrived
 * (contract/landing.ts): the S3 bucket's landing layout. The handlers' records are NDJSON lines each
 * ending in a newline, so the concatenation is NDJSON, as the stream's objects are on AWS. Nothing is
 * keyed by what a record holds: there is no partition to fail, whatever the projects and days.
 *
 * What the real stream cannot deliver goes to the error prefix errors/<stream>/<error type>/dt=<day>/
 * (lib/raw-streams.ts errorOutputPrefix), as Firehose's error records: one JSON document per record,
 * the record base64 in rawData next to errorCode and errorMessage (lambdas/domain/undelivered-record.ts).
 * Locally that happens only under the `undeliverable` fault, for the tests of `npm run redrive`.
 */
import { randomUUID } from 'node:crypto';
import { appendFile, mkdir } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ARRIVAL_HOUR, landingHour } from '../contract/landing';
import { undeliveredRecord } from '../domain/undelivered-record';

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
   * Fault injection for tests: while true, every call succeeds but every record goes to errors/, as a
   * record Firehose could not deliver does (UNDELIVERED), so `npm run redrive` has something to re-send.
   */
  undeliverable: boolean;
  /** PutRecordBatch calls received, failed ones included. */
  calls: number;
  /** Runs `work` while no record is appended to any landing file (a person's deletion rewrites them). */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
  /** Called with a stream's name after its records were written to a landing hour. */
  onDelivered?: (stream: string) => void;
  close(): Promise<void>;
}

/** The object name of this process's files in each partition, like Firehose's per-delivery objects. */
const fileName = () => `tally-${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}.ndjson`;

/** The error type and code of the `undeliverable` fault's records (this stand-in's own: no AWS failure is simulated exactly). */
export const UNDELIVERED = { type: 'delivery-failed', code: 'Tally.Local.Undeliverable' } as const;

/** The error prefix's directory of a stream: <errors dir>/<type>/dt=<today>. */
export const errorDir = (errors: string, type: string, nowMs: number) => join(errors, type, `dt=${new Date(nowMs).toISOString().slice(0, 10)}`);

/** Where a stream writes: its landing directory (its S3 prefix) and its directory under errors/. */
export interface LocalStreamTarget {
  dir: string;
  errors: string;
}

/**
 * dirs: delivery stream name -> its target. clock: when records arrive (the server's clock, so a test
 * with a controlled clock lands its events in the hours of their received_at, as on AWS).
 */
export async function startLocalFirehose(dirs: Record<string, LocalStreamTarget>, clock: () => number = Date.now): Promise<LocalFirehose> {
  const faults: FirehoseFault[] = [];
  const local = { faults, down: false, undeliverable: false, calls: 0 } as LocalFirehose;
  const objectName = fileName();
  // Appends to one file are chained so concurrent requests never interleave partial lines.
  const tails = new Map<string, Promise<void>>();
  // While an exclusive work runs, appends wait for it (they were accepted: they are written after it).
  let gate: Promise<void> = Promise.resolve();
  const append = (path: string, data: string) => {
    const next = Promise.all([gate, tails.get(path)]).then(() => appendFile(path, data));
    tails.set(
      path,
      next.catch(() => undefined),
    );
    return next;
  };

  local.exclusive = async <T>(work: () => Promise<T>): Promise<T> => {
    const before = gate;
    let release!: () => void;
    gate = before.then(() => new Promise<void>((resolve) => (release = resolve)));
    // The appends begun before the gate closed (later ones wait for the gate, so never for them here).
    const begun = [...tails.values()];
    await before;
    await Promise.all(begun);
    try {
      return await work();
    } finally {
      release();
    }
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
    if (!stream) {
      return reply(res, 400, { __type: 'ResourceNotFoundException', message: `Delivery stream ${body.DeliveryStreamName} not found` });
    }
    if (fault === 'reject-records') {
      return reply(res, 200, {
        FailedPutCount: body.Records.length,
        Encrypted: false,
        RequestResponses: body.Records.map(() => ({ ErrorCode: 'ServiceUnavailableException', ErrorMessage: 'injected fault' })),
      });
    }
    const rejected = (i: number) => fault === 'reject-first-record' && i === 0;
    const at = clock();
    const kept = body.Records.filter((_, i) => !rejected(i)).map((r) => Buffer.from(r.Data, 'base64').toString('utf8'));
    if (local.undeliverable) {
      const errors = errorDir(stream.errors, UNDELIVERED.type, at);
      await mkdir(errors, { recursive: true });
      await append(
        join(errors, objectName),
        kept.map((raw) => JSON.stringify(undeliveredRecord(raw, UNDELIVERED.code, 'injected fault: not delivered', at)) + '\n').join(''),
      );
    } else if (kept.length > 0) {
      const hourDir = join(stream.dir, `${ARRIVAL_HOUR}=${landingHour(at)}`);
      await mkdir(hourDir, { recursive: true });
      await append(join(hourDir, objectName), kept.join(''));
      local.onDelivered?.(body.DeliveryStreamName);
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
