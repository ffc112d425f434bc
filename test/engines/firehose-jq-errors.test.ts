/**
 * The local Firehose stand-in sends a line to errors/ exactly when Firehose would: when jq 1.6, running
 * the stream's MetadataExtractionQuery from the synthesized template, cannot give every partition key
 * as a non-empty string (it fails on the line, or gives null or ""). Firehose delivers such records to
 * the error prefix ("Dynamic partitioning error handling", Firehose developer guide).
 */
import { FirehoseClient, PutRecordBatchCommand } from '@aws-sdk/client-firehose';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startLocalFirehose, type LocalFirehose } from '../../lambdas/local/firehose-endpoint';
import { describeJq, runJq } from '../helpers/jq';
import { synthStack } from '../stack/synth';

/** Each stream's jq query in the template, by its prefix's first segment. */
function queries(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of Object.values(synthStack().template.findResources('AWS::KinesisFirehose::DeliveryStream'))) {
    const dest = r.Properties.ExtendedS3DestinationConfiguration;
    const extraction = dest.ProcessingConfiguration.Processors.find((p: { Type: string }) => p.Type === 'MetadataExtraction');
    out[(dest.Prefix as string).split('/')[0]!] = extraction.Parameters.find(
      (p: { ParameterName: string }) => p.ParameterName === 'MetadataExtractionQuery',
    ).ParameterValue;
  }
  return out;
}

/** Whether jq 1.6 gives every key of the query as a non-empty string for the line. */
function jqKeys(query: string, line: string): boolean {
  try {
    const [keys] = runJq(query, line) as Array<Record<string, unknown>>;
    return !!keys && Object.values(keys).every((v) => typeof v === 'string' && v !== '');
  } catch {
    return false;
  }
}

const T = '2026-11-28T10:00:00.000Z';
const LINES = [
  { project_id: 'p', timestamp: T, received_at: T, id: 'a', canonical_id: 'b' },
  { timestamp: T, received_at: T },
  { project_id: null, timestamp: T, received_at: T },
  { project_id: '', timestamp: T, received_at: T },
  { project_id: 'p', received_at: T },
  { project_id: 'p', timestamp: 1764324000, received_at: T },
  { project_id: 'p', timestamp: T },
  { project_id: 'p', timestamp: T, received_at: 5 },
  { project_id: 'p', timestamp: '', received_at: T },
].map((l) => JSON.stringify(l));

let dir: string;
let local: LocalFirehose;
let client: FirehoseClient;

describeJq('the local stand-in’s errors/ against jq 1.6 with the template’s queries', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tally-jq-errors-'));
    local = await startLocalFirehose({ events: { dir: join(dir, 'events'), byArrival: true }, identities: { dir: join(dir, 'identities'), byArrival: false } });
    client = new FirehoseClient({ region: 'us-east-1', endpoint: local.endpoint, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  });
  afterAll(async () => {
    client.destroy();
    await local.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(['events', 'identities'])('%s: a line goes to errors/ exactly when jq cannot give its keys', async (stream) => {
    const query = queries()[stream]!;
    await client.send(new PutRecordBatchCommand({ DeliveryStreamName: stream, Records: LINES.map((l) => ({ Data: Buffer.from(l + '\n') })) }));
    const errorsDir = join(dir, 'errors', stream, 'partitioning-failed');
    const inErrors = new Set(
      existsSync(errorsDir)
        ? readdirSync(errorsDir, { recursive: true, withFileTypes: true })
            .filter((e) => e.isFile())
            .flatMap((e) => readFileSync(join(e.parentPath, e.name), 'utf8').split('\n').filter(Boolean))
            .map((l) => Buffer.from((JSON.parse(l) as { rawData: string }).rawData, 'base64').toString('utf8'))
        : [],
    );
    const verdicts = LINES.map((line) => ({ line, jq: jqKeys(query, line) ? 'keyed' : 'error', local: inErrors.has(line) ? 'error' : 'keyed' }));
    expect(verdicts.filter((v) => v.jq !== v.local)).toEqual([]);
    // Both outcomes are exercised.
    expect(new Set(verdicts.map((v) => v.jq))).toEqual(new Set(['keyed', 'error']));
  });
});
