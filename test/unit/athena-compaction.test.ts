/**
 * The compaction job on AWS (lambdas/adapters/athena-compaction.ts driven by services/compact-landing.ts):
 * Athena, Glue and S3 have no local runtime, so aws-sdk-client-mock answers for them, with the bucket
 * kept as a map of keys, the Glue partitions of the curated tables as a map of locations, and Athena
 * answering the partitions query and writing the INSERT INTO's files under the generation it names.
 */
import { AthenaClient, GetQueryExecutionCommand, GetQueryResultsCommand, StartQueryExecutionCommand } from '@aws-sdk/client-athena';
import { BatchCreatePartitionCommand, BatchGetPartitionCommand, BatchUpdatePartitionCommand, GetTableCommand, GlueClient } from '@aws-sdk/client-glue';
import { CopyObjectCommand, DeleteObjectsCommand, GetObjectCommand, ListObjectsV2Command, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { AthenaCompactionStore, generationOf, viewStatements } from '../../lambdas/adapters/athena-compaction';
import { AthenaResultsQuery } from '../../lambdas/adapters/athena-results-query';
import { compactLanding } from '../../lambdas/services/compact-landing';

const athenaMock = mockClient(AthenaClient);
const glueMock = mockClient(GlueClient);
const s3Mock = mockClient(S3Client);
afterEach(() => {
  athenaMock.reset();
  glueMock.reset();
  s3Mock.reset();
});

const BUCKET = 'raw';
const HOUR_MS = 3_600_000;
const NOW = Date.parse('2026-03-20T12:30:00.000Z');

/** The account: objects, curated partitions (key "<table>/<project>/<dt>" -> location) and every SQL text. */
function world(
  options: {
    unprocessedOnce?: boolean;
    strayFolder?: string;
    retriedAttempt?: boolean;
    noManifest?: boolean;
    manifestExtra?: (destination: string) => string;
  } = {},
) {
  const objects = new Map<string, string>([
    ['landing/events/arrival_hour=2026-03-20-09/a.json.gz', 'x'.repeat(100)],
    ['landing/events/arrival_hour=2026-03-20-10/b.json.gz', 'x'.repeat(100)],
    // Still open (it ends at 12:00, after the close allowance of 60 minutes: 13:00).
    ['landing/events/arrival_hour=2026-03-20-11/c.json.gz', 'x'.repeat(100)],
  ]);
  const partitions = new Map<string, string>();
  const sql: string[] = [];
  let unprocessed = options.unprocessedOnce ?? false;
  athenaMock.on(StartQueryExecutionCommand).callsFake((input: { QueryString: string }) => {
    sql.push(input.QueryString);
    const unload = /^UNLOAD \(\n[\s\S]*\n\)\nTO 's3:\/\/raw\/([^']+)'\nWITH \(/.exec(input.QueryString);
    if (unload) {
      // What Athena writes: one Parquet file per partition under the destination's partitioned_by folders,
      // and the data manifest listing them in the query result location (one S3 URI a line).
      if ([...objects.keys()].some((k) => k.startsWith(unload[1]!))) throw new Error(`UNLOAD destination ${unload[1]} is not empty`);
      const written = new Set<string>();
      for (const [, dt, project] of input.QueryString.matchAll(/'(\d{4}-\d{2}-\d{2})(proj-[a-z]+)'/g)) {
        written.add(`${unload[1]}project_id=${project}/dt=${dt}/20260320_abc_0`);
        // An attempt Athena retried left its file: the same rows, in no manifest.
        if (options.retriedAttempt) objects.set(`${unload[1]}project_id=${project}/dt=${dt}/20260320_first_attempt_0`, 'p'.repeat(50));
      }
      if (options.strayFolder) written.add(`${unload[1]}${options.strayFolder}/20260320_abc_0`);
      for (const key of written) objects.set(key, 'p'.repeat(50));
      if (!options.noManifest)
        manifests.set(
          `q${sql.length}`,
          [...written].map((k) => `s3://${BUCKET}/${k}\n`).join('') +
            (options.manifestExtra ? `${options.manifestExtra(`s3://${BUCKET}/${unload[1]}`)}\n` : ''),
        );
    }
    return { QueryExecutionId: `q${sql.length}` };
  });
  const manifests = new Map<string, string>();
  athenaMock.on(GetQueryExecutionCommand).callsFake((input: { QueryExecutionId: string }) => {
    const manifest = manifests.get(input.QueryExecutionId);
    if (manifest !== undefined) objects.set(`athena-results/${input.QueryExecutionId}-manifest.csv`, manifest);
    return {
      QueryExecution: {
        QueryExecutionId: input.QueryExecutionId,
        Status: { State: 'SUCCEEDED' },
        ...(manifest !== undefined ? { Statistics: { DataManifestLocation: `s3://results/athena-results/${input.QueryExecutionId}-manifest.csv` } } : {}),
      },
    };
  });
  athenaMock.on(GetQueryResultsCommand).callsFake((input: { QueryExecutionId: string }) => {
    const text = sql[Number(input.QueryExecutionId.slice(1)) - 1]!;
    const rows = (names: string[], data: string[][]) => ({
      ResultSet: {
        ResultSetMetadata: { ColumnInfo: names.map((Name) => ({ Name })) },
        Rows: [names, ...data].map((r) => ({ Data: r.map((v) => ({ VarCharValue: v })) })),
      },
    });
    if (text.startsWith('SELECT DISTINCT\n  project_id,')) {
      return text.includes('landing_events')
        ? rows(
            ['project_id', 'dt'],
            [
              ['proj-a', '2026-03-19'],
              ['proj-a', '2026-03-20'],
              ['proj-b', '2026-03-20'],
            ],
          )
        : rows(['project_id', 'dt'], []);
    }
    if (text.startsWith('UNLOAD')) return rows([], []);
    return rows([], []);
  });
  s3Mock.on(ListObjectsV2Command).callsFake((input: { Prefix: string; Delimiter?: string }) => {
    const keys = [...objects.keys()].filter((k) => k.startsWith(input.Prefix)).sort();
    if (input.Delimiter) {
      const folders = [
        ...new Set(keys.flatMap((k) => (k.indexOf('/', input.Prefix.length) >= 0 ? [k.slice(0, k.indexOf('/', input.Prefix.length) + 1)] : []))),
      ];
      return { CommonPrefixes: folders.map((Prefix) => ({ Prefix })), IsTruncated: false };
    }
    return { Contents: keys.map((Key) => ({ Key, Size: objects.get(Key)!.length })), IsTruncated: false };
  });
  s3Mock.on(GetObjectCommand).callsFake((input: { Key: string }) => {
    const body = objects.get(input.Key);
    if (body === undefined) throw new NoSuchKey({ message: 'no such key', $metadata: {} });
    return { Body: { transformToString: async () => body } };
  });
  s3Mock.on(PutObjectCommand).callsFake((input: { Key: string; Body: string }) => void objects.set(input.Key, input.Body));
  s3Mock.on(CopyObjectCommand).callsFake((input: { CopySource: string; Key: string }) => {
    const source = decodeURIComponent(input.CopySource.slice(`${BUCKET}/`.length));
    objects.set(input.Key, objects.get(source)!);
    return {};
  });
  s3Mock.on(DeleteObjectsCommand).callsFake((input: { Delete: { Objects: Array<{ Key: string }> } }) => {
    for (const o of input.Delete.Objects) objects.delete(o.Key);
    return {};
  });
  glueMock.on(GetTableCommand).callsFake((input: { Name: string }) => ({
    Table: {
      Name: input.Name,
      StorageDescriptor: { Columns: [{ Name: 'event_id', Type: 'string' }], Location: `s3://raw/curated/x/`, InputFormat: 'parquet-in' },
    },
  }));
  glueMock.on(BatchGetPartitionCommand).callsFake((input: { TableName: string; PartitionsToGet: Array<{ Values: string[] }> }) => {
    if (unprocessed) {
      unprocessed = false;
      return { Partitions: [], UnprocessedKeys: input.PartitionsToGet };
    }
    return {
      Partitions: input.PartitionsToGet.flatMap(({ Values }) => {
        const location = partitions.get(`${input.TableName}/${Values.join('/')}`);
        return location ? [{ Values, StorageDescriptor: { Location: location } }] : [];
      }),
    };
  });
  glueMock
    .on(BatchCreatePartitionCommand)
    .callsFake((input: { TableName: string; PartitionInputList: Array<{ Values: string[]; StorageDescriptor: { Location: string } }> }) => {
      for (const p of input.PartitionInputList) partitions.set(`${input.TableName}/${p.Values.join('/')}`, p.StorageDescriptor.Location);
      return {};
    });
  glueMock
    .on(BatchUpdatePartitionCommand)
    .callsFake(
      (input: { TableName: string; Entries: Array<{ PartitionValueList: string[]; PartitionInput: { StorageDescriptor: { Location: string } } }> }) => {
        for (const e of input.Entries) partitions.set(`${input.TableName}/${e.PartitionValueList.join('/')}`, e.PartitionInput.StorageDescriptor.Location);
        return {};
      },
    );
  const athena = new AthenaResultsQuery(new AthenaClient({ region: 'eu-west-1' }), { workGroup: 'tally', database: 'tally', pollMs: 1 });
  const store = new AthenaCompactionStore(athena, new S3Client({ region: 'eu-west-1' }), new GlueClient({ region: 'eu-west-1' }), {
    database: 'tally',
    bucket: BUCKET,
  });
  return { objects, partitions, sql, store };
}

const OPTIONS = { closeAfterMs: HOUR_MS, maxHours: 48, graceMs: HOUR_MS, landingRetentionMs: 3 * 24 * HOUR_MS };

describe('compaction on AWS', () => {
  it('compacts the closed landing hours into a generation of each partition they touch, points the Glue partitions at it, moves the state and re-creates the views with its hour', async () => {
    const { objects, partitions, sql, store } = world();
    const [events, identities] = await compactLanding(store, { ...OPTIONS, nowMs: NOW });

    // UNLOAD reports no row count; files and bytes are those copied into the generation.
    expect(events).toMatchObject({ stream: 'events', hours: 2, partitions: 3, rows: null, files: 3, bytes: 150, compactedThrough: '2026-03-20-10' });
    // No identity links landed: nothing to compact, the state unmoved.
    expect(identities).toMatchObject({ stream: 'identities', hours: 0, partitions: 0, compactedThrough: undefined });

    const unload = sql.find((s) => s.startsWith('UNLOAD'))!;
    // The sorted text, into the staging folder of the run's generation, partitioned as the local COPY is.
    expect(unload).toMatch(
      /^UNLOAD \(\n[\s\S]*ORDER BY project_id, dt, name, "timestamp", sent_user_id, dedupe_key\n\)\nTO 's3:\/\/raw\/curated\/events\/_staging\/[0-9A-Za-z-]+\/'\nWITH \(format = 'PARQUET', compression = 'ZSTD', compression_level = 19, partitioned_by = ARRAY\['project_id', 'dt'\]\)$/,
    );
    expect(unload).toContain("arrival_hour IN ('2026-03-20-09', '2026-03-20-10')");
    expect(unload).not.toContain('2026-03-20-11');
    const generation = /_staging\/([0-9A-Za-z-]+)\//.exec(unload)![1]!;
    // Each file copied into its partition's generation; nothing left in staging.
    expect([...objects.keys()].filter((k) => k.startsWith('curated/events/project_id=')).sort()).toEqual([
      `curated/events/project_id=proj-a/dt=2026-03-19/generation=${generation}/20260320_abc_0`,
      `curated/events/project_id=proj-a/dt=2026-03-20/generation=${generation}/20260320_abc_0`,
      `curated/events/project_id=proj-b/dt=2026-03-20/generation=${generation}/20260320_abc_0`,
    ]);
    expect([...objects.keys()].filter((k) => k.includes('_staging/'))).toEqual([]);
    expect([...partitions]).toEqual([
      ['curated_events/proj-a/2026-03-19', `s3://raw/curated/events/project_id=proj-a/dt=2026-03-19/generation=${generation}/`],
      ['curated_events/proj-a/2026-03-20', `s3://raw/curated/events/project_id=proj-a/dt=2026-03-20/generation=${generation}/`],
      ['curated_events/proj-b/2026-03-20', `s3://raw/curated/events/project_id=proj-b/dt=2026-03-20/generation=${generation}/`],
    ]);
    expect(JSON.parse(objects.get('curated/_compaction/events.json')!)).toMatchObject({ compacted_through: '2026-03-20-10' });

    const views = sql.filter((s) => s.startsWith('CREATE OR REPLACE VIEW')).map((s) => s.split('\n')[0]);
    expect(views).toEqual([
      'CREATE OR REPLACE VIEW tally.events AS',
      'CREATE OR REPLACE VIEW tally.identities AS',
      'CREATE OR REPLACE VIEW tally.events_tail AS',
      'CREATE OR REPLACE VIEW tally.unique_events AS',
      'CREATE OR REPLACE VIEW tally.events_by_arrival AS',
    ]);
    expect(sql.find((s) => s.startsWith('CREATE OR REPLACE VIEW tally.events AS'))).toContain("'2026-03-20-10'");
    expect(sql.find((s) => s.startsWith('CREATE OR REPLACE VIEW tally.events_tail AS'))).toContain("'2026-03-20-10'");
    // Landing data is kept for the results job (3 days).
    expect([...objects.keys()].filter((k) => k.startsWith('landing/'))).toHaveLength(3);
  });

  it('a second run rewrites a partition into a new generation, updates its Glue location, and deletes the old generation and old landing hours once due', async () => {
    const { objects, partitions, store } = world();
    await compactLanding(store, { ...OPTIONS, nowMs: NOW });
    const first = generationOf(partitions.get('curated_events/proj-a/2026-03-20'))!;
    objects.set('landing/events/arrival_hour=2026-03-20-12/d.json.gz', 'y');
    const later = NOW + 2 * HOUR_MS;
    await compactLanding(store, { ...OPTIONS, nowMs: later });
    const second = generationOf(partitions.get('curated_events/proj-a/2026-03-20'))!;
    expect(second).not.toBe(first);
    expect(JSON.parse(objects.get('curated/_compaction/events.json')!).compacted_through).toBe('2026-03-20-12');
    // The first generation is superseded but within its grace: still readable.
    expect(objects.has(`curated/events/project_id=proj-a/dt=2026-03-20/generation=${first}/20260320_abc_0`)).toBe(true);

    const [events] = await compactLanding(store, { ...OPTIONS, nowMs: later + 4 * 24 * HOUR_MS });
    expect(objects.has(`curated/events/project_id=proj-a/dt=2026-03-20/generation=${first}/20260320_abc_0`)).toBe(false);
    expect(objects.has(`curated/events/project_id=proj-a/dt=2026-03-20/generation=${second}/20260320_abc_0`)).toBe(true);
    expect(events!.landingHoursDeleted).toBe(4);
    expect([...objects.keys()].filter((k) => k.startsWith('landing/'))).toEqual([]);
  });

  it('clears what a killed run left in staging before writing (UNLOAD needs an empty destination), and never commits it', async () => {
    const { objects, partitions, store } = world();
    objects.set('curated/events/_staging/20260320T000000000Z-killed/project_id=proj-z/dt=2026-03-01/20260320_old_0', 'old');
    const [events] = await compactLanding(store, { ...OPTIONS, nowMs: NOW });
    expect(events!.partitions).toBe(3);
    expect([...objects.keys()].filter((k) => k.includes('_staging/') || k.includes('proj-z'))).toEqual([]);
    expect([...partitions.keys()].filter((k) => k.includes('proj-z'))).toEqual([]);
    // A run with nothing to write clears it too: a person's rows never wait there for traffic.
    objects.set('curated/identities/_staging/20260320T000000000Z-killed/project_id=proj-z/dt=2026-03-01/20260320_old_0', 'old');
    const [, identities] = await compactLanding(store, { ...OPTIONS, nowMs: NOW });
    expect(identities!.hours).toBe(0);
    expect([...objects.keys()].filter((k) => k.includes('_staging/'))).toEqual([]);
  });

  it('fails the run, committing nothing, when UNLOAD writes a file outside the folders of the batch', async () => {
    for (const strayFolder of ['project_id=proj-other/dt=2026-03-20', 'not-a-partition']) {
      const { objects, partitions, store } = world({ strayFolder });
      await expect(compactLanding(store, { ...OPTIONS, nowMs: NOW })).rejects.toThrow(
        /UNLOAD wrote curated\/events\/_staging\/.*not under project_id=<a project of the batch>\/dt=<day>\//,
      );
      expect(partitions.size).toBe(0);
      expect(objects.has('curated/_compaction/events.json') && JSON.parse(objects.get('curated/_compaction/events.json')!).compacted_through).toBeFalsy();
    }
  });

  it('copies only the files the data manifest lists: what an attempt Athena retried left in the destination is never committed', async () => {
    const { objects, partitions, store } = world({ retriedAttempt: true });
    const [events] = await compactLanding(store, { ...OPTIONS, nowMs: NOW });
    expect(events!).toMatchObject({ partitions: 3, files: 3 });
    expect(partitions.size).toBeGreaterThan(0);
    const curated = [...objects.keys()].filter((k) => k.startsWith('curated/events/project_id='));
    expect(curated).toHaveLength(3);
    expect(curated.every((k) => k.endsWith('/20260320_abc_0'))).toBe(true);
    expect([...objects.keys()].filter((k) => k.includes('_staging/'))).toEqual([]);
  });

  it('fails the run, committing nothing, when UNLOAD reports no data manifest', async () => {
    const { partitions, objects, store } = world({ noManifest: true });
    await expect(compactLanding(store, { ...OPTIONS, nowMs: NOW })).rejects.toThrow(/reported no data manifest .*nothing was committed/);
    expect(partitions.size).toBe(0);
    expect([...objects.keys()].filter((k) => /^curated\/events\/project_id=/.test(k))).toEqual([]);
  });

  it('fails the run, committing nothing, when the manifest names a file outside the destination or one the destination lacks, before copying any', async () => {
    for (const [manifestExtra, message] of [
      [() => 's3://other-bucket/curated/events/project_id=proj-a/dt=2026-03-20/x_0', /manifest lists s3:\/\/other-bucket\/.*outside its destination/],
      [(to: string) => `${to}project_id=proj-a/dt=2026-03-20/never_written_0`, /manifest lists .*never_written_0, which is not in its destination/],
    ] as const) {
      const { partitions, objects, store } = world({ manifestExtra });
      await expect(compactLanding(store, { ...OPTIONS, nowMs: NOW })).rejects.toThrow(message);
      expect(partitions.size).toBe(0);
      expect([...objects.keys()].filter((k) => /^curated\/events\/project_id=/.test(k))).toEqual([]);
    }
  });

  it("writes a person's deletion's generation the same way: UNLOAD of the partitions without them, copied into place, staging emptied", async () => {
    const { objects, sql, store } = world();
    const batch = [
      { projectId: 'proj-a', dt: '2026-03-19' },
      { projectId: 'proj-a', dt: '2026-03-20' },
    ];
    await store.writeGenerationWithout('events', batch, ['ann'], '2026-03-20T12:00:00.000Z', '20260320T120000000Z-erase');
    const unload = sql.find((s) => s.startsWith('UNLOAD'))!;
    expect(unload).toMatch(/\)\nTO 's3:\/\/raw\/curated\/events\/_staging\/20260320T120000000Z-erase\/'\nWITH \(format = 'PARQUET', compression = 'ZSTD'/);
    expect(unload).toContain("'ann'");
    expect([...objects.keys()].filter((k) => k.startsWith('curated/events/')).sort()).toEqual([
      'curated/events/project_id=proj-a/dt=2026-03-19/generation=20260320T120000000Z-erase/20260320_abc_0',
      'curated/events/project_id=proj-a/dt=2026-03-20/generation=20260320T120000000Z-erase/20260320_abc_0',
    ]);
  });

  it('asks Glue again for partitions it left unprocessed', async () => {
    const { partitions, store } = world({ unprocessedOnce: true });
    partitions.set('curated_events/proj-a/2026-03-20', 's3://raw/curated/events/project_id=proj-a/dt=2026-03-20/generation=g1/');
    const current = await store.currentGenerations('events', [{ projectId: 'proj-a', dt: '2026-03-20' }]);
    expect([...current]).toEqual([['2026-03-20proj-a', 'g1']]);
  });

  it("names the views over the curated and landing tables of the database, the tail bounded by each stream's compacted hour", () => {
    const [events, identities] = viewStatements('tally', { events: '2026-03-20-10', identities: undefined });
    expect(events).toContain('tally.curated_events');
    expect(events).toContain('tally.landing_events');
    expect(events).toContain("'2026-03-20-10'");
    expect(identities).toContain('tally.curated_identities');
    expect(identities).toContain("'0000-00-00-00'");
  });
});
