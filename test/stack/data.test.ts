/** Tables from TABLES, the raw streams to S3, and the Glue/Athena side analysts query. */
import { Duration, RemovalPolicy, Size, type CfnElement } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { AthenaClient, GetQueryExecutionCommand, GetQueryResultsCommand, StartQueryExecutionCommand } from '@aws-sdk/client-athena';
import { mockClient } from 'aws-sdk-client-mock';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { AthenaResultsQuery } from '../../lambdas/adapters/athena-results-query';
import { S3ResultsBase } from '../../lambdas/adapters/s3-results-base';
import { RESULTS_STATE_COLUMNS, RESULTS_STATE_PARTITIONS } from '../../lambdas/contract/results-state';
import { CURATED_ONLY_COLUMNS } from '../../lambdas/contract/landing';
import { DEFAULT_ARRIVAL_ALLOWANCE_MS } from '../../lambdas/domain/results-watermark';
import { parseBatch, toStoredEvent } from '../../lambdas/domain/event';
import type { IdentityRecord } from '../../lambdas/domain/identity';
import { TABLES, type TableLayout, type TableName } from '../../lambdas/store/schema';
import { EVENT_COLUMNS, IDENTITY_COLUMNS } from '../../lib/raw-columns';
import { RAW_STREAMS, type StreamName } from '../../lib/raw-streams';
import { inlinePolicies, synthStack, type Synth } from './synth';

/**
 * Every query the results job sends to Athena in one run (read the watermark, insert a slice, commit
 * it, roll the closed day up into a new base generation, count), captured from AthenaResultsQuery
 * with a stubbed Athena client and a stubbed S3 holding the base commit of the day before.
 */
async function jobQueries(): Promise<string[]> {
  const texts: string[] = [];
  const s3 = mockClient(S3Client);
  s3.on(GetObjectCommand).resolves({
    // The SDK's body stream, as far as the adapter reads it.
    Body: {
      transformToString: async () =>
        JSON.stringify({
          generation: '20260319T020000000Z-old',
          boundaryDt: '2026-03-19',
          watermark: '2026-03-19T01:35:00.000Z',
          committedAt: '2026-03-19T02:00:10.000Z',
        }),
    },
  } as never);
  s3.on(PutObjectCommand).resolves({});
  s3.on(ListObjectsV2Command).resolves({ CommonPrefixes: [] });
  const athena = mockClient(AthenaClient);
  athena.on(StartQueryExecutionCommand).callsFake((input) => ({ QueryExecutionId: `q-${texts.push(input.QueryString)}` }));
  athena.on(GetQueryExecutionCommand).resolves({ QueryExecution: { Status: { State: 'SUCCEEDED' } } });
  athena.on(GetQueryResultsCommand).callsFake((input) =>
    texts[Number(input.QueryExecutionId.slice(2)) - 1]!.startsWith('SELECT max(slice_hi)')
      ? {
          ResultSet: {
            ResultSetMetadata: { ColumnInfo: [{ Name: 'watermark' }] },
            Rows: [{ Data: [{}] }, { Data: [{ VarCharValue: '2026-03-20T10:00:00.000Z' }] }],
          },
        }
      : { ResultSet: { ResultSetMetadata: { ColumnInfo: [] }, Rows: [{ Data: [] }] } },
  );
  try {
    const client = new AthenaClient({ region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } });
    const base = new S3ResultsBase(new S3Client({ region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } }), 'raw');
    await new AthenaResultsQuery(client, { workGroup: 'w', pollMs: 1, base }).countIncremental({
      projectId: 'p',
      experimentId: 'e',
      experimentName: 'E',
      variants: ['a', 'b'],
      goalEvent: 'g',
      from: '2026-03-02T00:00:00.000Z',
      to: '2026-03-20T12:00:00.000Z',
      projectCreatedAt: '2026-02-01T00:00:00.000Z',
      series: 'day',
      now: '2026-03-20T12:00:00.000Z',
    });
  } finally {
    athena.restore();
    s3.restore();
  }
  return texts;
}

/** The WHERE clause after each `FROM <table>` in sql: the WHERE line and the AND lines after it. */
function filtersOf(sql: string, table: string): string[] {
  const lines = sql.split('\n');
  const out: string[] = [];
  lines.forEach((line, i) => {
    if (!new RegExp(`\\bFROM ${table.replace('.', '\\.')}\\s*$`).test(line)) return;
    const clause: string[] = [];
    for (let j = i + 1; j < lines.length && /^\s*(WHERE|AND)\b/.test(lines[j]!); j++) clause.push(lines[j]!.trim());
    out.push(clause.join(' '));
  });
  return out;
}

let s: Synth;
beforeAll(() => {
  s = synthStack();
});

const id = (construct: { node: { defaultChild?: unknown } }) => s.stack.getLogicalId(construct.node.defaultChild as never);
const resource = (logicalId: string) => s.template.toJSON().Resources[logicalId];

describe('DynamoDB tables', () => {
  it('creates exactly the tables of TABLES', () => {
    expect(Object.keys(s.template.findResources('AWS::DynamoDB::Table'))).toHaveLength(Object.keys(TABLES).length);
  });

  for (const [name, layout] of Object.entries(TABLES) as Array<[TableName, TableLayout]>) {
    it(`${name}: keys, indexes, TTL, on-demand, PITR, removal`, () => {
      const table = resource(id(s.stack.tables[name]));
      const p = table.Properties;
      expect(p.KeySchema).toEqual([
        { AttributeName: layout.partitionKey, KeyType: 'HASH' },
        ...(layout.sortKey ? [{ AttributeName: layout.sortKey, KeyType: 'RANGE' }] : []),
      ]);
      expect(p.BillingMode).toBe('PAY_PER_REQUEST');
      expect(p.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
      expect(p.TimeToLiveSpecification).toEqual(layout.ttlAttribute ? { AttributeName: layout.ttlAttribute, Enabled: true } : undefined);
      expect(
        (p.GlobalSecondaryIndexes ?? []).map((g: Record<string, unknown>) => ({ name: g.IndexName, keys: g.KeySchema, projection: g.Projection })),
      ).toEqual(
        layout.indexes.map((index) => ({
          name: index.name,
          keys: [{ AttributeName: index.partitionKey, KeyType: 'HASH' }, ...(index.sortKey ? [{ AttributeName: index.sortKey, KeyType: 'RANGE' }] : [])],
          projection: { ProjectionType: 'ALL' },
        })),
      );
      const attributes = new Set([layout.partitionKey, layout.sortKey, ...layout.indexes.flatMap((i) => [i.partitionKey, i.sortKey])].filter(Boolean));
      expect(p.AttributeDefinitions).toEqual([...attributes].map((a) => ({ AttributeName: a, AttributeType: 'S' })));
      // User data is retained by default; the rest can go with the stack. Deletion protection waits
      // until the stack exists (deletionProtection, test/stack/retry-deploy.test.ts).
      expect(table.DeletionPolicy).toBe(layout.holdsUserData ? 'RetainExceptOnCreate' : 'Delete');
      expect(p.DeletionProtectionEnabled ?? false).toBe(false);
    });
  }

  it('makes removal policy and deletion protection configurable', () => {
    const existing = synthStack({ deletionProtection: true });
    for (const [id, table] of Object.entries(existing.template.findResources('AWS::DynamoDB::Table'))) {
      const name = (Object.keys(TABLES) as TableName[]).find((n) => id === existing.stack.getLogicalId(existing.stack.tables[n].node.defaultChild as never))!;
      expect(table.Properties.DeletionProtectionEnabled ?? false, id).toBe(TABLES[name].holdsUserData);
    }
    const dev = synthStack({ dataRemovalPolicy: RemovalPolicy.DESTROY, deletionProtection: false });
    for (const table of Object.values(dev.template.findResources('AWS::DynamoDB::Table'))) {
      expect(table.DeletionPolicy).toBe('Delete');
      expect(table.Properties.DeletionProtectionEnabled ?? false).toBe(false);
    }
  });
});

describe('raw streams (Firehose)', () => {
  for (const [name, spec] of Object.entries(RAW_STREAMS) as Array<[StreamName, (typeof RAW_STREAMS)[StreamName]]>) {
    it(`${name}: lands by arrival hour only (the timestamp namespace, no record-dependent key), no processors, GZIP`, () => {
      const stream = resource(id(s.stack.raw.streams[name])).Properties;
      expect(stream.DeliveryStreamType).toBe('DirectPut');
      expect(stream.DeliveryStreamEncryptionConfigurationInput).toEqual({ KeyType: 'AWS_OWNED_CMK' });
      const dest = stream.ExtendedS3DestinationConfiguration;
      expect(dest.BucketARN).toEqual({ 'Fn::GetAtt': [id(s.stack.raw.bucket), 'Arn'] });
      expect(dest.Prefix).toBe(`landing/${name}/arrival_hour=!{timestamp:yyyy-MM-dd-HH}/`);
      expect(spec.prefix).toBe(`landing/${name}/`);
      // errors/ keeps the layout npm run redrive reads.
      expect(dest.ErrorOutputPrefix).toBe(`errors/${name}/!{firehose:error-output-type}/dt=!{timestamp:yyyy-MM-dd}/`);
      expect(dest.CompressionFormat).toBe('GZIP');
      expect(dest.FileExtension).toBe('.json.gz');
      expect(dest.BufferingHints).toEqual({ IntervalInSeconds: 300, SizeInMBs: 128 });
      // Records are written as they are: no dynamic partitioning, no de-aggregation, no jq, no delimiter.
      expect(dest.DynamicPartitioningConfiguration).toBeUndefined();
      expect(dest.ProcessingConfiguration).toBeUndefined();
    });
  }

  it('puts the streams to the handler env vars the entries read', () => {
    expect(RAW_STREAMS.events.envVar).toBe('EVENTS_STREAM_NAME');
    expect(RAW_STREAMS.identities.envVar).toBe('IDENTITIES_STREAM_NAME');
  });

  it('takes buffering from props', () => {
    const fast = synthStack({ firehoseBufferingInterval: Duration.seconds(60), firehoseBufferingSize: Size.mebibytes(64) });
    fast.template.hasResourceProperties('AWS::KinesisFirehose::DeliveryStream', {
      ExtendedS3DestinationConfiguration: Match.objectLike({ BufferingHints: { IntervalInSeconds: 60, SizeInMBs: 64 } }),
    });
    // The incremental results job waits twice Firehose's documented worst delay (1.5 x the buffering
    // interval plus the 300 s S3 retry duration) before taking events in.
    const job = fast.template.toJSON().Resources[fast.stack.getLogicalId(fast.stack.jobs['results-job'].fn.node.defaultChild as CfnElement)].Properties;
    expect(job.Environment.Variables.RESULTS_ARRIVAL_ALLOWANCE_SECONDS).toBe('780');
    const byDefault = s.template.toJSON().Resources[s.stack.getLogicalId(s.stack.jobs['results-job'].fn.node.defaultChild as CfnElement)].Properties;
    expect(byDefault.Environment.Variables.RESULTS_ARRIVAL_ALLOWANCE_SECONDS).toBe('1500');
    expect(Number(byDefault.Environment.Variables.RESULTS_ARRIVAL_ALLOWANCE_SECONDS) * 1000).toBe(DEFAULT_ARRIVAL_ALLOWANCE_MS);
  });

  it('the results job\'s SQL prunes by documented partitions only: no "$file_modified_time", every state and arrival read bounded by dt, every base read by one generation', async () => {
    const texts = await jobQueries();
    expect(texts.map((t) => t.split('\n')[0])).toEqual([
      'SELECT max(slice_hi) AS watermark',
      'INSERT INTO tally.results_state',
      'INSERT INTO tally.results_state',
      'INSERT INTO tally.results_base',
      'WITH tail AS (',
    ]);
    let stateReads = 0;
    let arrivalReads = 0;
    let baseReads = 0;
    for (const sql of texts) {
      expect(sql).not.toContain('$file_modified_time');
      // The results job reads raw events through the arrival-partitioned table only.
      expect(sql).not.toMatch(/FROM tally\.events\s*$/m);
      for (const where of filtersOf(sql, 'tally.results_state')) {
        stateReads++;
        expect(where).toMatch(/AND dt BETWEEN '\d{4}-\d{2}-\d{2}' AND '\d{4}-\d{2}-\d{2}'/);
      }
      for (const where of filtersOf(sql, 'tally.events_by_arrival')) {
        arrivalReads++;
        expect(where).toMatch(/AND dt BETWEEN '\d{4}-\d{2}-\d{2}' AND '\d{4}-\d{2}-\d{2}'/);
        // events_by_arrival is a view over landing_events: the arrival hours bound the projected prefixes read.
        expect(where).toMatch(/AND arrival_hour BETWEEN '\d{4}-\d{2}-\d{2}-\d{2}' AND '\d{4}-\d{2}-\d{2}-\d{2}'/);
      }
      // The injected projection lists exactly one prefix: project, experiment and generation by =.
      for (const where of filtersOf(sql, 'tally.results_base')) {
        baseReads++;
        expect(where).toMatch(/^WHERE project_id = '[^']+' AND experiment_id = '[^']+' AND generation = '[0-9A-Za-z-]+'$/);
      }
    }
    // State: the watermark, the slice's roll-up and the count; the base: the previous one rolled up, the new one counted.
    expect({ stateReads, arrivalReads, baseReads }).toEqual({ stateReads: 3, arrivalReads: 2, baseReads: 2 });
    // The roll-up reads the closed day only; the count and the watermark the days from the boundary on.
    expect(texts[3]).toMatch(/AND dt BETWEEN '2026-03-19' AND '2026-03-19'/);
    expect(texts[3]).toContain("generation = '20260319T020000000Z-old'");
    expect(texts[0]).toMatch(/AND dt BETWEEN '2026-03-19' AND '2026-03-20'/);
    expect(texts[4]).toMatch(/AND dt BETWEEN '2026-03-20' AND '2026-03-20'/);
    expect(texts[4]).not.toContain('20260319T020000000Z-old');
  });

  it("declares the results base as a Parquet table of the state's columns, partitioned by project, experiment and generation, all injected", () => {
    const table = Object.values(s.template.findResources('AWS::Glue::Table')).find((t) => t.Properties.TableInput.Name === 'results_base')!;
    const input = table.Properties.TableInput;
    expect(input.StorageDescriptor.Columns.map((c: { Name: string; Type: string }) => `${c.Name}:${c.Type}`)).toEqual(
      Object.entries(RESULTS_STATE_COLUMNS).map(([name, type]) => `${name}:${type}`),
    );
    expect(input.PartitionKeys.map((c: { Name: string }) => c.Name)).toEqual(['project_id', 'experiment_id', 'generation']);
    for (const c of ['project_id', 'experiment_id', 'generation']) expect(input.Parameters[`projection.${c}.type`], c).toBe('injected');
    expect(JSON.stringify(input.Parameters['storage.location.template'])).toContain(
      'results-base/project_id=${project_id}/experiment_id=${experiment_id}/generation=${generation}/',
    );
  });

  it('declares the incremental results state as a Parquet table partitioned by project, experiment and day, in the raw bucket', () => {
    const table = Object.values(s.template.findResources('AWS::Glue::Table')).find((t) => t.Properties.TableInput.Name === 'results_state')!;
    const input = table.Properties.TableInput;
    expect(input.StorageDescriptor.Columns.map((c: { Name: string; Type: string }) => `${c.Name}:${c.Type}`)).toEqual(
      Object.entries(RESULTS_STATE_COLUMNS).map(([name, type]) => `${name}:${type}`),
    );
    expect(input.PartitionKeys.map((c: { Name: string }) => c.Name)).toEqual([...RESULTS_STATE_PARTITIONS]);
    expect(input.StorageDescriptor.SerdeInfo.SerializationLibrary).toContain('parquet');
    expect(input.Parameters['projection.experiment_id.type']).toBe('injected');
    expect(JSON.stringify(input.Parameters['storage.location.template'])).toContain(
      'results-state/project_id=${project_id}/experiment_id=${experiment_id}/dt=${dt}/',
    );
  });

  it('writes to an encrypted, private, TLS-only, access-logged bucket with lifecycle rules', () => {
    const bucket = resource(id(s.stack.raw.bucket));
    expect(bucket.DeletionPolicy).toBe('RetainExceptOnCreate');
    const p = bucket.Properties;
    expect(p.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm).toBe('AES256');
    expect(p.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(p.LoggingConfiguration).toMatchObject({ LogFilePrefix: 'raw/' });
    const rules = p.LifecycleConfiguration.Rules as Array<Record<string, unknown>>;
    expect(rules).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Id: 'abort-incomplete-uploads', AbortIncompleteMultipartUpload: { DaysAfterInitiation: 7 } }),
        // errors/ waits for `npm run redrive`; what it re-sent, kept under redriven/, expires.
        expect.objectContaining({ Id: 'expire-redriven-delivery-errors', Prefix: 'redriven/', ExpirationInDays: 90 }),
        // People's export files (personal data) go after 7 days (docs/privacy.md "Access requests").
        expect.objectContaining({ Id: 'expire-exports', Prefix: 'exports/', ExpirationInDays: 7, Status: 'Enabled' }),
      ]),
    );
    expect(rules.filter((r) => String(r.Prefix ?? '').startsWith('errors'))).toEqual([]);
    s.template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: id(s.stack.raw.bucket) },
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
      },
    });
  });
});

describe('Glue and Athena', () => {
  /** A real raw record, built by the same code the ingest handlers run. */
  function storedEvent() {
    const batch = parseBatch({ events: [{ name: 'signup', user_id: 'u1', properties: { plan: 'pro' } }] });
    if (!batch.ok) throw new Error('fixture batch invalid');
    return toStoredEvent(batch.events[0]!, {
      projectId: 'p1',
      receivedMs: Date.parse('2025-03-01T10:00:00Z'),
      source: 'v1',
      sdk: null,
      sdkVersion: null,
      geo: { country: null, region: null, city: null },
    });
  }

  function glueTable(name: string) {
    const t = Object.values(s.template.findResources('AWS::Glue::Table')).find((r) => r.Properties.TableInput.Name === name);
    expect(t, name).toBeDefined();
    return t!.Properties;
  }

  it('creates the database "tally"', () => {
    s.template.hasResourceProperties('AWS::Glue::Database', { DatabaseInput: { Name: 'tally' } });
  });

  it('landing and curated tables: the columns are exactly the StoredEvent and IdentityRecord fields (project_id a data column in landing, a partition in curated)', () => {
    expect(Object.keys(storedEvent()).sort()).toEqual(Object.keys(EVENT_COLUMNS).sort());
    const sample: IdentityRecord = { project_id: 'p', id: 'a', canonical_id: 'b', version: 1, timestamp: '2025-01-01T00:00:00.000Z', reason: 'link' };
    expect(Object.keys(sample).sort()).toEqual(Object.keys(IDENTITY_COLUMNS).sort());
    for (const [stream, fields] of [
      ['events', EVENT_COLUMNS],
      ['identities', IDENTITY_COLUMNS],
    ] as const) {
      const names = (t: string) => (glueTable(t).TableInput.StorageDescriptor.Columns as Array<{ Name: string }>).map((c) => c.Name);
      const keys = (t: string) => (glueTable(t).TableInput.PartitionKeys as Array<{ Name: string }>).map((c) => c.Name);
      expect(names(`landing_${stream}`).sort()).toEqual(Object.keys(fields).sort());
      expect(keys(`landing_${stream}`)).toEqual(['arrival_hour']);
      // The curated tables: the record's fields in record order (project_id a partition), then the
      // columns only they hold, as compaction's UNLOAD writes them (test/unit/sql-include.test.ts).
      expect(names(`curated_${stream}`)).toEqual([...Object.keys(fields).filter((f) => f !== 'project_id'), ...CURATED_ONLY_COLUMNS[stream]]);
      expect(keys(`curated_${stream}`)).toEqual(['project_id', 'dt']);
    }
  });

  it('has no Glue table named like a reader view (events, identities, unique_events, events_by_arrival are Athena views)', () => {
    const names = Object.values(s.template.findResources('AWS::Glue::Table')).map((r) => r.Properties.TableInput.Name);
    for (const view of ['events', 'identities', 'unique_events', 'events_by_arrival']) expect(names).not.toContain(view);
  });

  for (const spec of Object.values(RAW_STREAMS)) {
    it(`${spec.table}: GZIP NDJSON projected by arrival hour, from 14 days back to now`, () => {
      const input = glueTable(spec.table).TableInput;
      const sd = input.StorageDescriptor;
      expect(sd.SerdeInfo.SerializationLibrary).toBe('org.openx.data.jsonserde.JsonSerDe');
      expect(sd.Compressed).toBe(true);
      expect(JSON.stringify(sd.Location)).toContain(`/${spec.prefix}`);
      expect(input.Parameters).toMatchObject({
        'projection.enabled': 'true',
        'projection.arrival_hour.type': 'date',
        'projection.arrival_hour.format': 'yyyy-MM-dd-HH',
        'projection.arrival_hour.range': 'NOW-14DAYS,NOW',
        'projection.arrival_hour.interval': '1',
        'projection.arrival_hour.interval.unit': 'HOURS',
      });
      const template = JSON.stringify(input.Parameters['storage.location.template']);
      expect(template).toContain(`/${spec.prefix}arrival_hour=\${arrival_hour}/`);
    });
  }

  for (const stream of ['events', 'identities']) {
    it(`curated_${stream}: Parquet (ZSTD) with traditional partitions (no projection), and no write table (the job writes with UNLOAD)`, () => {
      const curated = glueTable(`curated_${stream}`).TableInput;
      expect(curated.StorageDescriptor.SerdeInfo.SerializationLibrary).toBe('org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe');
      expect(curated.Parameters['projection.enabled']).toBeUndefined();
      expect(curated.Parameters['parquet.compression']).toBe('ZSTD');
      const names = Object.values(s.template.findResources('AWS::Glue::Table')).map((r) => r.Properties.TableInput.Name);
      expect(names).not.toContain(`curated_${stream}_write`);
    });
  }

  it("creates the readers' views at deploy: a custom resource run by the analytics-views function, after the landing and curated tables and the workgroup", () => {
    const views = Object.entries(s.template.findResources('Custom::AnalyticsViews'));
    expect(views).toHaveLength(1);
    const [, view] = views[0]!;
    const fn = s.stack.jobs['analytics-views'].fn;
    const fnLogicalId = id(fn);
    expect(view.Properties.ServiceToken).toEqual({ 'Fn::GetAtt': [fnLogicalId, 'Arn'] });
    expect(view.Properties.ServiceTimeout).toBe('600');
    expect(view.Properties.Database).toEqual({ Ref: id(s.stack.analytics.database) });
    // Updated (the view replaced) whenever the function's code, which holds the view's SQL, changes.
    expect(view.Properties.CodeKey).toBe(resource(fnLogicalId).Properties.Code.S3Key);
    expect(view.DependsOn).toEqual(
      expect.arrayContaining([
        id(s.stack.analytics.landing.events),
        id(s.stack.analytics.curated.events),
        s.stack.resolve(s.stack.analytics.workGroup.logicalId),
        fnLogicalId,
      ]),
    );
    // The function may write only the view's Glue table, besides running queries like the other Athena users.
    const policy = inlinePolicies(s.template).find(
      (p) => JSON.stringify(p).includes('ManageAnalystViews') && JSON.stringify(p).includes('RemoveOwnQueryResults'),
    )!;
    const statement = policy.document.Statement.find((st: { Sid?: string }) => st.Sid === 'ManageAnalystViews');
    expect([...statement.Action].sort()).toEqual(['glue:CreateTable', 'glue:DeleteTable', 'glue:GetTable', 'glue:UpdateTable']);
    for (const view of ['events', 'identities', 'unique_events', 'events_by_arrival'])
      expect(JSON.stringify(statement.Resource)).toContain(`":table/",{"Ref":"${id(s.stack.analytics.database)}"},"/${view}"`);
    expect(JSON.stringify(statement.Resource)).not.toContain('*');
    const writers = inlinePolicies(s.template).filter((p) => /glue:(CreateTable|UpdateTable|DeleteTable)/.test(JSON.stringify(p)));
    // The deploy's views and the compaction job, which re-creates them as its hour moves.
    expect(writers).toHaveLength(2);
    // It deletes its own statements' result files (a first create's rollback then finds the results
    // bucket empty), under the results prefix only; no other function deletes anything there.
    const remove = policy.document.Statement.find((st: { Sid?: string }) => st.Sid === 'RemoveOwnQueryResults');
    expect(remove.Action).toBe('s3:DeleteObject');
    expect(JSON.stringify(remove.Resource)).toContain(id(s.stack.analytics.resultsBucket));
    expect(JSON.stringify(remove.Resource)).toContain('/results/*');
    // Statement by statement: the results job deletes in the raw bucket (superseded base generations), not here.
    // The compaction job does too, for a person's deletion: the result files of the project's cached
    // insight queries and of its own links query (docs/decisions/erasure.md).
    const deleters = inlinePolicies(s.template).filter((p) =>
      (p.document.Statement as Array<{ Action: unknown; Resource: unknown }>).some(
        (st) => JSON.stringify(st.Action).includes('s3:DeleteObject') && JSON.stringify(st.Resource).includes(id(s.stack.analytics.resultsBucket)),
      ),
    );
    // And the listings, whose answers name people (user IDs, emails): each deletes its queries' files once read.
    const compactionRole = id(s.stack.jobs['compact-landing'].fn.role!);
    expect(deleters.filter((p) => p.roles.includes(compactionRole))).toHaveLength(1);
    const listings = ['admin-events-list', 'admin-event-names-list', 'admin-property-names-list', 'admin-users-list'] as const;
    for (const name of listings)
      expect(
        deleters.filter((p) => p.roles.includes(id(s.stack.functions[name].fn.role!))),
        name,
      ).toHaveLength(1);
    expect(deleters).toHaveLength(2 + listings.length);
  });

  it('has an Athena workgroup with its own results bucket, enforced settings and a scan limit', () => {
    const wg = resource(s.stack.resolve(s.stack.analytics.workGroup.logicalId)).Properties;
    expect(wg.RecursiveDeleteOption).toBe(true);
    expect(wg.WorkGroupConfiguration).toMatchObject({
      EnforceWorkGroupConfiguration: true,
      BytesScannedCutoffPerQuery: 10 * 1024 ** 3,
      ResultConfiguration: { EncryptionConfiguration: { EncryptionOption: 'SSE_S3' } },
    });
    expect(JSON.stringify(wg.WorkGroupConfiguration.ResultConfiguration.OutputLocation)).toContain(id(s.stack.analytics.resultsBucket));
    const results = resource(id(s.stack.analytics.resultsBucket)).Properties;
    expect(results.LifecycleConfiguration.Rules).toEqual(
      expect.arrayContaining([expect.objectContaining({ Id: 'expire-query-results', ExpirationInDays: 30 })]),
    );
  });
});
