/**
 * The raw stream's AWS path (FirehoseRawStream over the AWS SDK's Firehose client) against the
 * local Firehose endpoint, which speaks PutRecordBatch and injects faults: records packed as NDJSON,
 * Firehose's limits kept, rejected records resent alone, failed calls reported as RawStreamError.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FirehoseClient } from '@aws-sdk/client-firehose';
import { ConfiguredRetryStrategy } from '@smithy/core/retry';
import type { StoredEvent } from '../../lambdas/domain/event';
import { LOCAL_AWS } from '../../lambdas/local/dynalite';
import { startLocalFirehose, type LocalFirehose } from '../../lambdas/local/firehose-endpoint';
import { RawStreamError } from '../../lambdas/ports';
import { FirehoseRawStream, packRecords } from '../../lambdas/store/firehose-raw-stream';
import { firehoseClient } from '../../lambdas/store/firehose-client';

let dir: string;
let local: LocalFirehose;
let client: FirehoseClient;
let stream: FirehoseRawStream<StoredEvent>;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tally-firehose-'));
  local = await startLocalFirehose({ stream: { dir: join(dir, 'landing', 'events'), errors: join(dir, 'errors', 'events') } }, () => ARRIVAL);
  client = firehoseClient({ ...LOCAL_AWS, endpoint: local.endpoint, retryStrategy: new ConfiguredRetryStrategy(3, 0) });
  stream = new FirehoseRawStream(client, 'stream');
});
afterEach(async () => {
  client.destroy();
  await local.close();
  rmSync(dir, { recursive: true, force: true });
});

const events = (n: number, size = 10): StoredEvent[] =>
  Array.from(
    { length: n },
    (_, i) => ({ project_id: 'p', name: `e${i}`, timestamp: '2026-11-22T10:00:00.000Z', properties: { pad: 'x'.repeat(size) } }) as unknown as StoredEvent,
  );

/** When the records arrive (the endpoint's clock): they land in that hour. */
const ARRIVAL = Date.parse('2026-11-22T10:05:00.000Z');

/** The names of the events the stream delivered, in file order: all in the landing hour of their arrival. */
function delivered(): string[] {
  const partition = join(dir, 'landing', 'events', 'arrival_hour=2026-11-22-10');
  let files: string[];
  try {
    files = readdirSync(partition);
  } catch {
    return [];
  }
  return files.flatMap((f) =>
    readFileSync(join(partition, f), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).name as string),
  );
}

describe('FirehoseRawStream (AWS path, against the local Firehose endpoint)', () => {
  it('packs a 20-event batch into one NDJSON record, in one call', async () => {
    await stream.put(events(20));
    expect(local.calls).toBe(1);
    expect(delivered()).toEqual(events(20).map((e) => e.name));
  });

  it('keeps every record under Firehose limits', () => {
    const records = packRecords(events(300, 30_000));
    expect(records.length).toBeGreaterThan(1);
    for (const r of records) expect(r.Data.length).toBeLessThanOrEqual(1000 * 1024);
    const total = records.reduce((n, r) => n + Buffer.from(r.Data).toString().split('\n').filter(Boolean).length, 0);
    expect(total).toBe(300);
  });

  it('puts at most 500 lines in a record, the most Firehose de-aggregates from one record', () => {
    const records = packRecords(events(1201));
    const lines = records.map((r) => Buffer.from(r.Data).toString().split('\n').filter(Boolean).length);
    expect(lines).toEqual([500, 500, 201]);
  });

  it('resends only the records Firehose rejected: every event delivered once', async () => {
    const many = events(100, 30_000); // several records, one PutRecordBatch (under 4 MiB)
    expect(packRecords(many).length).toBeGreaterThan(1);
    local.faults.push('reject-first-record');
    await stream.put(many);
    expect(local.calls).toBe(2);
    expect(delivered().sort()).toEqual(many.map((e) => e.name).sort());
  });

  it('fails with a RawStreamError when the call itself fails, after the client retried it (3 attempts)', async () => {
    local.down = true;
    const err = await stream.put(events(2)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RawStreamError);
    expect((err as Error).message).toMatch(/ServiceUnavailableException/);
    expect(local.calls).toBe(3);
    expect(delivered()).toEqual([]);
  });

  it('rides out one failed call: the client retries it', async () => {
    local.faults.push('unavailable');
    await stream.put(events(3));
    expect(local.calls).toBe(2);
    expect(delivered()).toEqual(['e0', 'e1', 'e2']);
  });

  it('gives up after four attempts when records keep being rejected', async () => {
    local.faults.push('reject-records', 'reject-records', 'reject-records', 'reject-records');
    await expect(stream.put(events(2))).rejects.toThrow(/rejected 1 records after 4 attempts/);
    expect(local.calls).toBe(4);
    expect(delivered()).toEqual([]);
  });
});
