/**
 * Analysts' access to the raw events: the Glue database and table over the events bucket, with
 * partition projection so new projects and days are queryable at once (no crawler, no MSCK REPAIR),
 * and an Athena workgroup with its own results bucket and a per-query scan limit.
 */
import { Duration, RemovalPolicy, Size, Stack } from 'aws-cdk-lib';
import { CfnWorkGroup } from 'aws-cdk-lib/aws-athena';
import { Database, DataFormat, DateIntervalUnit, PartitionProjectionConfiguration, S3Table, S3TableStorage, Schema } from 'aws-cdk-lib/aws-glue';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { secureBucket } from './buckets';
import { dataColumns, PARTITION_COLUMNS } from './raw-columns';
import { RAW_STREAMS, type RawStreamSpec, type StreamName } from './raw-streams';
import { ARRIVAL_HOUR_FORMAT, ARRIVAL_PARTITION, EVENTS_BY_ARRIVAL_TABLE } from '../lambdas/contract/arrival-partition';
import { RESULTS_BASE, RESULTS_BASE_PARTITIONS, RESULTS_STATE, RESULTS_STATE_COLUMNS, RESULTS_STATE_PARTITIONS } from '../lambdas/contract/results-state';

/** First day partition projection knows; records timestamped earlier are stored but not projected. */
export const FIRST_EVENT_DAY = '2020-01-01';
/** Timestamps up to 48 hours ahead are accepted (clamped beyond), so days up to NOW+2DAYS exist. */
export const LAST_EVENT_DAY = 'NOW+2DAYS';

/**
 * The default Glue database name: the stack name in the form Athena accepts unquoted (lower-case letters,
 * digits and underscores), so two stacks in one account and region never collide ("Tally" -> "tally",
 * "Tally-Staging" -> "tally_staging").
 */
export function glueDatabaseNameFor(stackName: string): string {
  return stackName.toLowerCase().replace(/[^a-z0-9_]+/g, '_');
}

/** Where the workgroup writes query results in its bucket. */
export const RESULTS_PREFIX = 'results/';

export interface AnalyticsProps {
  /** The bucket of the raw streams (lib/raw-streams.ts). */
  rawBucket: Bucket;
  databaseName: string;
  bytesScannedCutoff: Size;
  accessLogs: Bucket;
  removalPolicy: RemovalPolicy;
  /** Athena query results are deleted after this long. */
  resultsExpiration: Duration;
}

export class Analytics extends Construct {
  readonly database: Database;
  readonly tables: Record<StreamName, S3Table>;
  /** tally.events_by_arrival: the events table with the arrival hour as a third partition (the results job's). */
  readonly eventsByArrival: S3Table;
  /** The incremental results job's state (issue 13): Parquet in the raw bucket under results-state/. */
  readonly resultsState: S3Table;
  /** The incremental results job's base (issue 21): Parquet in the raw bucket under results-base/. */
  readonly resultsBase: S3Table;
  readonly resultsBucket: Bucket;
  readonly workGroup: CfnWorkGroup;
  readonly workGroupName: string;

  constructor(scope: Construct, id: string, props: AnalyticsProps) {
    super(scope, id);
    this.database = new Database(this, 'Database', { databaseName: props.databaseName });
    // Like the data it describes: kept on delete (analysts may have added their own tables and views),
    // but removed when the create that made it rolls back, so a failed first deploy can be retried.
    this.database.applyRemovalPolicy(props.removalPolicy);

    const entries = (Object.entries(RAW_STREAMS) as Array<[StreamName, RawStreamSpec]>).map(([name, spec]) => {
      const location = `s3://${props.rawBucket.bucketName}/${spec.prefix}`;
      const table = new S3Table(this, `${name}Table`, {
        database: this.database,
        tableName: spec.table,
        description: `${spec.description}; partitioned by project_id and dt = day of the timestamp (UTC)`,
        storage: S3TableStorage.fromBucket(props.rawBucket),
        s3Prefix: spec.prefix,
        dataFormat: DataFormat.JSON,
        compressed: true,
        columns: dataColumns(spec.columns).map((c) => ({ name: c, type: Schema.STRING, comment: hiveComment(c) })),
        partitionKeys: PARTITION_COLUMNS.map((c) => ({ name: c, type: Schema.STRING })),
        partitionProjection: projectAndDayProjection(),
        parameters: { 'storage.location.template': `${location}project_id=\${project_id}/dt=\${dt}/` },
      });
      return [name, table] as const;
    });
    this.tables = Object.fromEntries(entries) as Record<StreamName, S3Table>;

    // The results job's view of the same event files (contract/arrival-partition.ts): one more
    // partition level, the hour of received_at, so a run reads only the hours since its watermark.
    // Its queries bound all three columns (project_id =, dt and received BETWEEN), so projection
    // expands days x hours of one slice, not the table's whole range. Analysts use tally.events.
    const events = RAW_STREAMS.events;
    this.eventsByArrival = new S3Table(this, 'eventsByArrivalTable', {
      database: this.database,
      tableName: EVENTS_BY_ARRIVAL_TABLE,
      description: `${events.description}; for the results job: partitioned by project_id, dt = day of the timestamp and received = hour of received_at (UTC)`,
      storage: S3TableStorage.fromBucket(props.rawBucket),
      s3Prefix: events.prefix,
      dataFormat: DataFormat.JSON,
      compressed: true,
      columns: dataColumns(events.columns).map((c) => ({ name: c, type: Schema.STRING, comment: hiveComment(c) })),
      partitionKeys: [...PARTITION_COLUMNS, ARRIVAL_PARTITION].map((c) => ({ name: c, type: Schema.STRING })),
      partitionProjection: {
        ...projectAndDayProjection(),
        [ARRIVAL_PARTITION]: PartitionProjectionConfiguration.date({
          min: `${FIRST_EVENT_DAY}-00`,
          max: 'NOW',
          format: ARRIVAL_HOUR_FORMAT,
          step: { interval: 1, intervalUnit: DateIntervalUnit.HOURS },
        }),
      },
      parameters: {
        'storage.location.template': `s3://${props.rawBucket.bucketName}/${events.prefix}project_id=\${project_id}/dt=\${dt}/${ARRIVAL_PARTITION}=\${${ARRIVAL_PARTITION}}/`,
      },
    });

    // Written by the results job (INSERT INTO, lambdas/adapters/sql/results-summary.sql), read back by
    // its incremental count. Projection: any project and experiment without a deploy; queries filter
    // both with =. dt is the UTC day a slice starts (slices cover arrival times since the job began).
    const stateLocation = `s3://${props.rawBucket.bucketName}/${RESULTS_STATE.prefix}`;
    // The state's columns in Glue types: the state table's and the base's (results-base.sql writes the same).
    const stateColumns = Object.entries(RESULTS_STATE_COLUMNS).map(([name, type]) => ({
      name,
      type: type === 'boolean' ? Schema.BOOLEAN : type === 'double' ? Schema.DOUBLE : Schema.STRING,
    }));
    this.resultsState = new S3Table(this, 'ResultsStateTable', {
      database: this.database,
      tableName: RESULTS_STATE.table,
      description: 'Incremental results state: per experiment and slice of arrival time, summaries of enrollment and goal events per ID as sent',
      storage: S3TableStorage.fromBucket(props.rawBucket),
      s3Prefix: RESULTS_STATE.prefix,
      dataFormat: DataFormat.PARQUET,
      columns: stateColumns,
      partitionKeys: RESULTS_STATE_PARTITIONS.map((c) => ({ name: c, type: Schema.STRING })),
      partitionProjection: {
        project_id: PartitionProjectionConfiguration.injected(),
        experiment_id: PartitionProjectionConfiguration.injected(),
        dt: PartitionProjectionConfiguration.date({
          min: FIRST_EVENT_DAY,
          max: LAST_EVENT_DAY,
          format: 'yyyy-MM-dd',
          step: { interval: 1, intervalUnit: DateIntervalUnit.DAYS },
        }),
      },
      parameters: {
        'storage.location.template': `${stateLocation}project_id=\${project_id}/experiment_id=\${experiment_id}/dt=\${dt}/`,
        // What INSERT INTO writes with, as DuckDB's COPY does locally.
        'parquet.compression': 'ZSTD',
      },
    });

    // The state's closed days rolled up per experiment (issue 21; lambdas/adapters/sql/results-base.sql),
    // written by the results job with INSERT INTO into a fresh generation, then committed by an S3
    // object beside the generations (lambdas/adapters/s3-results-base.ts). Every column is injected:
    // each query names its project, experiment and generation with =, so a read lists exactly one
    // prefix (docs/decisions/incremental-results.md, "Compaction on AWS").
    this.resultsBase = new S3Table(this, 'ResultsBaseTable', {
      database: this.database,
      tableName: RESULTS_BASE.table,
      description: 'Incremental results base: per experiment and generation, the closed days of results_state rolled up',
      storage: S3TableStorage.fromBucket(props.rawBucket),
      s3Prefix: RESULTS_BASE.prefix,
      dataFormat: DataFormat.PARQUET,
      // The state's columns, the metric columns of issue 22 included (metric_value a double).
      columns: stateColumns,
      partitionKeys: RESULTS_BASE_PARTITIONS.map((c) => ({ name: c, type: Schema.STRING })),
      partitionProjection: Object.fromEntries(RESULTS_BASE_PARTITIONS.map((c) => [c, PartitionProjectionConfiguration.injected()])),
      parameters: {
        'storage.location.template': `s3://${props.rawBucket.bucketName}/${RESULTS_BASE.prefix}project_id=\${project_id}/experiment_id=\${experiment_id}/generation=\${generation}/`,
        'parquet.compression': 'ZSTD',
      },
    });

    this.resultsBucket = secureBucket(this, 'ResultsBucket', {
      removalPolicy: props.removalPolicy,
      accessLogs: { bucket: props.accessLogs, prefix: 'athena-results/' },
      lifecycleRules: [{ id: 'expire-query-results', expiration: props.resultsExpiration }],
    });

    this.workGroupName = `${Stack.of(this).stackName}-analysts`;
    this.workGroup = new CfnWorkGroup(this, 'WorkGroup', {
      name: this.workGroupName,
      description: 'Tally analysts: results in the stack bucket, encrypted, with a per-query scan limit',
      state: 'ENABLED',
      // Deleting the stack deletes the workgroup together with its saved queries and history.
      recursiveDeleteOption: true,
      workGroupConfiguration: {
        enforceWorkGroupConfiguration: true,
        publishCloudWatchMetricsEnabled: true,
        bytesScannedCutoffPerQuery: props.bytesScannedCutoff.toBytes(),
        engineVersion: { selectedEngineVersion: 'AUTO' },
        resultConfiguration: {
          outputLocation: `s3://${this.resultsBucket.bucketName}/${RESULTS_PREFIX}`,
          encryptionConfiguration: { encryptionOption: 'SSE_S3' },
        },
      },
    });
  }
}

/** The raw tables' first two partition levels: the project (injected: any project ID works without redeploying, but queries must filter on project_id) and the event's day. */
function projectAndDayProjection() {
  return {
    project_id: PartitionProjectionConfiguration.injected(),
    dt: PartitionProjectionConfiguration.date({
      min: FIRST_EVENT_DAY,
      max: LAST_EVENT_DAY,
      format: 'yyyy-MM-dd',
      step: { interval: 1, intervalUnit: DateIntervalUnit.DAYS },
    }),
  };
}

function hiveComment(name: string): string | undefined {
  if (name === 'timestamp' || name === 'received_at') return 'ISO 8601 UTC; from_iso8601_timestamp() to compare as time';
  if (name === 'properties') return "JSON object as text; json_extract_scalar(properties, '$.key')";
  return undefined;
}
