/**
 * Firehose's partition keys, computed by the engine Firehose runs: each stream's MetadataExtractionQuery
 * and S3 prefix are taken from the synthesized template, run with jq 1.6 over the exact records the
 * ingest handlers put to the stream (captured at the local Firehose endpoint), and the S3 key each record
 * would get must be the folder the local stand-in wrote the same record to.
 *
 * Firehose's processing, per the template's processors: RecordDeAggregation (JSON) splits a record into
 * its JSON objects, MetadataExtraction runs the jq query on each, and the prefix's
 * !{partitionKeyFromQuery:k} takes the query's k. A query jq cannot compile, or a key it cannot
 * extract, sends the record to the error prefix (Firehose developer guide, "Dynamic partitioning"): here
 * the test fails with jq's message.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeJq, runJq } from '../helpers/jq';
import { startTestProject, type TestStack } from '../helpers/local';
import { templateOf } from '../helpers/template-texts';
import { LOCAL_STREAMS } from '../../lambdas/local/server';

interface StreamProcessing {
  prefix: string;
  query: string;
  engine: string;
}

/** Each delivery stream of the template, by the first segment of its prefix ("events", "identities"). */
function streamsInTemplate(): Map<string, StreamProcessing> {
  const out = new Map<string, StreamProcessing>();
  for (const resource of Object.values(templateOf().Resources)) {
    if (resource.Type !== 'AWS::KinesisFirehose::DeliveryStream') continue;
    const dest = resource.Properties.ExtendedS3DestinationConfiguration;
    const processors = dest.ProcessingConfiguration.Processors as Array<{ Type: string; Parameters: Array<{ ParameterName: string; ParameterValue: string }> }>;
    expect(processors.map((p) => p.Type)).toEqual(['RecordDeAggregation', 'MetadataExtraction', 'AppendDelimiterToRecord']);
    const params = Object.fromEntries(processors[1]!.Parameters.map((p) => [p.ParameterName, p.ParameterValue]));
    const prefix = dest.Prefix as string;
    out.set(prefix.split('/')[0]!, { prefix, query: params.MetadataExtractionQuery!, engine: params.JsonParsingEngine! });
  }
  return out;
}

/** The S3 prefix Firehose gives a record whose query produced keys. */
function s3Prefix(prefix: string, keys: Record<string, unknown>): string {
  return prefix.replace(/!\{partitionKeyFromQuery:([^}]+)\}/g, (_, name: string) => {
    const value = keys[name];
    if (typeof value !== 'string' || value === '') throw new Error(`the query gave no string for partition key ${name}: ${JSON.stringify(keys)}`);
    return value;
  });
}

/** line (without its newline) -> the folder of the local file holding it, relative to the data directory. */
function localFolders(dataDir: string, dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else for (const line of readFileSync(path, 'utf8').split('\n')) if (line) out.set(line, relative(dataDir, d) + '/');
    }
  };
  walk(dir);
  return out;
}

let stack: TestStack;
let project: string;
let key: string;
let now = Date.parse('2026-03-31T23:59:59.999Z');
const captured: Array<{ stream: string; data: Buffer }> = [];

describeJq('Firehose partition keys, by jq 1.6 from the synthesized template', () => {
  beforeAll(async () => {
    ({ stack, project, key } = await startTestProject('jq', { clock: () => now }));
    stack.firehose.onRecords = (stream, records) => captured.push(...records.map((data) => ({ stream, data })));
  });
  afterAll(() => stack.stop());

  it('names jq 1.6 as the engine of every stream', () => {
    const streams = streamsInTemplate();
    expect([...streams.keys()].sort()).toEqual(['events', 'identities']);
    for (const s of streams.values()) expect(s.engine).toBe('JQ-1.6');
  });

  it('keys every record the handlers put as the local stand-in stored it: days, hours, offsets, unicode', async () => {
    const send = async (at: string, events: unknown[]) => {
      now = Date.parse(at);
      const res = await stack.post('/v1/events', key, { events });
      expect(res.status, res.text).toBe(204);
    };
    // Arrival at the last millisecond of a day and an hour, and at the first of the next.
    await send('2026-03-31T23:59:59.999Z', [
      { name: 'page_view', user_id: 'u-1', timestamp: '2026-03-31T23:59:59.999Z' },
      { name: 'page_view', user_id: 'u-1', timestamp: '2026-03-31T00:00:00.000Z' },
      // An offset moves the event's day: stored as 2026-03-30T20:00:00.000Z.
      { name: 'signup', user_id: 'u-2', timestamp: '2026-03-31T01:30:00+05:30' },
      { name: 'achat_réussi 購入 🛒', user_id: 'ユーザー-ü', timestamp: '2026-03-31T12:00:00Z', properties: { 'clé "q"': 'välue\\' } },
    ]);
    await send('2026-04-01T00:00:00.000Z', [
      { name: 'page_view', user_id: 'u-1', timestamp: 1775001599 }, // unix seconds: 2026-03-31T23:59:59Z
      { name: 'page_view', user_id: 'u-3', timestamp: '2026-04-01T00:00:00.000-01:00' },
    ]);
    await send('2026-04-01T10:59:59.999Z', [
      { name: '$identify', user_id: 'user-9', timestamp: '2026-04-01T10:59:59Z', properties: { $anonymous_id: 'ユーザー-ü', email: 'a@example.com' } },
    ]);
    await send('2026-04-01T11:00:00.000Z', [{ name: 'purchase', user_id: 'user-9', timestamp: '2026-04-01T11:00:00Z' }]);

    const streams = streamsInTemplate();
    const streamDir: Record<string, string> = { [LOCAL_STREAMS.events]: stack.eventsDir, [LOCAL_STREAMS.identities]: stack.identitiesDir };
    const seen: Record<string, Set<string>> = { events: new Set(), identities: new Set() };
    for (const { stream, data } of captured) {
      const dir = streamDir[stream];
      expect(dir, `captured a record of an unknown stream ${stream}`).toBeDefined();
      const name = relative(stack.dataDir, dir!).split('/')[0]!;
      const processing = streams.get(name)!;
      const folders = localFolders(stack.dataDir, dir!);
      // jq over the record reads its JSON objects one after the other: RecordDeAggregation's split.
      const keys = runJq(processing.query, data) as Array<Record<string, unknown>>;
      const lines = data.toString('utf8').split('\n').filter(Boolean);
      expect(keys).toHaveLength(lines.length);
      for (const [i, line] of lines.entries()) {
        const stored = folders.get(line);
        expect(stored, `the local stand-in stored ${line}`).toBeDefined();
        expect(s3Prefix(processing.prefix, keys[i]!)).toBe(stored);
        seen[name]!.add(stored!);
      }
    }
    expect([...seen.events!].sort()).toEqual([
      `events/project_id=${project}/dt=2026-03-30/received=2026-03-31-23/`,
      `events/project_id=${project}/dt=2026-03-31/received=2026-03-31-23/`,
      `events/project_id=${project}/dt=2026-03-31/received=2026-04-01-00/`,
      `events/project_id=${project}/dt=2026-04-01/received=2026-04-01-00/`,
      `events/project_id=${project}/dt=2026-04-01/received=2026-04-01-10/`,
      `events/project_id=${project}/dt=2026-04-01/received=2026-04-01-11/`,
    ]);
    expect([...seen.identities!]).toEqual([`identities/project_id=${project}/dt=2026-04-01/`]);
  });
});
