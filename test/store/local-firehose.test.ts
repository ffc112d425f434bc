/**
 * The local Firehose endpoint behaves like the real delivery stream where the AWS path relies on it. It is
 * driven here with the AWS SDK's own Firehose client, unconfigured, so the endpoint stays true to the
 * protocol the Lambdas' client speaks to the real service.
 */
import { FirehoseClient, PutRecordBatchCommand } from '@aws-sdk/client-firehose';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InProcessDuckDb } from '../../lambdas/adapters/duckdb-local';
import { streamViews } from '../../lambdas/adapters/duckdb-stream-views';
import { startLocalFirehose, type LocalFirehose } from '../../lambdas/local/firehose-endpoint';
import { compactClosedHours } from '../helpers/landing';
import { readRawEvents } from '../helpers/local';

let dir: string;
let local: LocalFirehose;
let client: FirehoseClient;
/** The endpoint's clock: records land in the hour it says. */
let clockMs = Date.parse('2026-01-05T10:20:00.000Z');

const landing = () => join(dir, 'landing', 'events');
const errors = () => join(dir, 'errors', 'events');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tally-firehose-'));
  local = await startLocalFirehose({ events: { dir: landing(), errors: errors() } }, () => clockMs);
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
        JSON.stringify({
          project_id: project,
          dedupe_key: `${project}-${i}`,
          timestamp: `2026-01-0${1 + (i % 3)}T00:00:00.000Z`,
          received_at: `2026-01-0${1 + (i % 2)}T0${i % 3}:30:00.000Z`,
          i,
        }) + '\n',
    ).join(''),
  ),
});

/** The lines of a landing hour's files. */
const hourLines = (hour: string) =>
  readdirSync(join(landing(), `arrival_hour=${hour}`)).flatMap((f) =>
    readFileSync(join(landing(), `arrival_hour=${hour}`, f), 'utf8')
      .split('\n')
      .filter(Boolean),
  );

describe('local Firehose endpoint', () => {
  it('stores a record of any number of lines whole, as the landing stream does (no de-aggregation, no 500-line limit)', async () => {
    const out = await client.send(
      new PutRecordBatchCommand({ DeliveryStreamName: 'events', Records: [record('ok', 500), record('over', 501), record('big', 2000)] }),
    );
    expect(out.FailedPutCount).toBe(0);
    expect(readRawEvents(landing(), 'ok')).toHaveLength(500);
    expect(readRawEvents(landing(), 'over')).toHaveLength(501);
    expect(readRawEvents(landing(), 'big')).toHaveLength(2000);
    expect(existsSync(errors())).toBe(false);
  });

  it('writes the landing layout: every record under the UTC hour it arrived, whatever the projects, event days and received_at of its lines, all projects in one object', async () => {
    clockMs = Date.parse('2026-01-06T23:59:59.000Z');
    await client.send(new PutRecordBatchCommand({ DeliveryStreamName: 'events', Records: [record('layout', 6), record('layout-2', 2)] }));
    clockMs = Date.parse('2026-01-07T00:00:00.000Z');
    await client.send(new PutRecordBatchCommand({ DeliveryStreamName: 'events', Records: [record('layout', 1)] }));
    expect(readdirSync(landing()).sort()).toEqual(['arrival_hour=2026-01-05-10', 'arrival_hour=2026-01-06-23', 'arrival_hour=2026-01-07-00']);
    // One object per hour, holding both projects' lines, three event days and four received_at hours.
    expect(readdirSync(join(landing(), 'arrival_hour=2026-01-06-23'))).toHaveLength(1);
    expect(hourLines('2026-01-06-23').map((l) => JSON.parse(l).project_id)).toEqual([...Array(6).fill('layout'), 'layout-2', 'layout-2']);
    expect(hourLines('2026-01-07-00')).toHaveLength(1);
    expect(readRawEvents(landing(), 'layout')).toHaveLength(7);
  });

  it('stores a line that is not JSON or names no project as it is, in landing (nothing in errors/); readers and compaction pass over it', async () => {
    clockMs = Date.parse('2026-01-08T10:00:00.000Z');
    const good = (i: number) =>
      JSON.stringify({ project_id: 'keyed', dedupe_key: `k${i}`, name: 'ok', timestamp: '2026-01-08T09:00:00.000Z', received_at: '2026-01-08T10:00:00.000Z' });
    const lines = [
      good(1),
      JSON.stringify({ dedupe_key: 'k-none', timestamp: '2026-01-08T09:00:00.000Z', received_at: '2026-01-08T10:00:00.000Z', name: 'no project' }),
      '{"project_id":"keyed", not json',
      good(2),
    ];
    const out = await client.send(
      new PutRecordBatchCommand({ DeliveryStreamName: 'events', Records: [{ Data: Buffer.from(lines.map((l) => l + '\n').join('')) }] }),
    );
    expect(out.FailedPutCount).toBe(0);
    expect(hourLines('2026-01-08-10')).toEqual(lines);
    expect(existsSync(errors())).toBe(false);

    const duckdb = new InProcessDuckDb();
    try {
      const keyed = async () =>
        duckdb.use(await streamViews(dir, 'events', { projectId: 'keyed' }), (session) =>
          session.rows("SELECT dedupe_key FROM events WHERE project_id = 'keyed' ORDER BY dedupe_key"),
        );
      expect(await keyed()).toEqual([{ dedupe_key: 'k1' }, { dedupe_key: 'k2' }]);
      const [events] = await compactClosedHours(dir, duckdb, Date.parse('2026-01-08T12:00:00.000Z'));
      expect(events).toMatchObject({ stream: 'events', compactedThrough: '2026-01-08-10' });
      expect(await keyed()).toEqual([{ dedupe_key: 'k1' }, { dedupe_key: 'k2' }]);
      // The odd lines are still in their landing hour.
      expect(hourLines('2026-01-08-10')).toEqual(lines);
    } finally {
      await duckdb.close();
    }
  });
});
