/**
 * Analysts' access to the raw streams (docs/decisions/columnar-events.md): the Glue database with, per
 * stream, the landing table (what Firehose writes, JSON by arrival hour, projected), the curated table
 * (Parquet by project and day, partitions registered by the compaction job, each pointing at one
 * generation, which the job writes with UNLOAD); an Athena
 * workgroup with its own results bucket and a per-query scan limit. Readers query the views over them
 * (events, identities, unique_events, events_by_arrival), which Athena DDL creates at deploy and the
 * compaction job re-creates (lambdas/adapters/athena-compaction.ts viewStatements).
 */
import { Duration, RemovalPolicy, Size, Stack } from 'aws-cdk-lib';
import { CfnWorkGroup } from 'aws-cdk-lib/aws-athena';
import { Database, DataFormat, DateIntervalUnit, PartitionProjectionConfiguration, S3Table, S3TableStorage, Schema } from 'aws-cdk-lib/aws-glue';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { secureBucket } from './buckets';
import { dataColumns, PARTITION_COLUMNS } from './raw-columns';
import { RAW_STREAMS, type RawStreamSpec, type StreamName } from './raw-streams';
import { ARRIVAL_HOUR, ARRIVAL_HOUR_FORMAT, CURATED_ONLY_COLUMNS, curatedPrefix, curatedTable } from '../lambdas/contract/landing';
import { RESULTS_BASE, RESULTS_BASE_PARTITIONS, RESULTS_STATE, RESULTS_STATE_COLUMNS, RESULTS_STATE_PARTITIONS } from '../lambdas/contract/results-state';

/** First day partition projection knows; records timestamped earlier are stored but not projected. */
export const FIRST_EVENT_DAY = '2020-01-01';
/** Timestamps up to 48 hours ahead are accepted (clamped beyond), so days up to NOW+2DAYS exist. */
export const LAST_EVENT_DAY = 'NOW+2DAYS';
/**
 * The oldest landing hour the landing tables project: a query bounded only from below (the views'
 * tail, arrival_hour > the compacted hour) enumerates the hours from its bound to NOW, never more than
 * these 14 days of hours (336 prefixes). Landing hours are compacted after a day
 * (compactionCloseAfterSeconds) and deleted 3 days later; an hour older than this that was never
 * compacted (the job failing for two weeks, alarmed from its first failure) leaves the views until it is.
 */
export const LANDING_PROJECTION_MIN = 'NOW-14DAYS';

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
  /** landing_<stream>: what Firehose writes, JSON, partitioned by arrival_hour (projected). */
  readonly landing: Record<StreamName, S3Table>;
  /** curated_<stream>: Parquet, partitions (project_id, dt) registered by the compaction job. */
  readonly curated: Record<StreamName, S3Table>;
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

    const streams = Object.entries(RAW_STREAMS) as Array<[StreamName, RawStreamSpec]>;
    const bucket = props.rawBucket.bucketName;
    const strings = (names: string[]) => names.map((c) => ({ name: c, type: Schema.STRING, comment: hiveComment(c) }));

    // Landing: every record's fields, project_id a data column (it is in no key). Projected by hour
    // from LANDING_PROJECTION_MIN to NOW: every query bounds arrival_hour (the views' tail, the results
    // job's slices), so a query lists the landing hours of its range, never a catalog of partitions.
    this.landing = Object.fromEntries(
      streams.map(([name, spec]) => [
        name,
        new S3Table(this, `${name}LandingTable`, {
          database: this.database,
          tableName: spec.table,
          description: `${spec.description}, as Firehose landed them: partitioned by ${ARRIVAL_HOUR} = the UTC hour the object arrived (not compacted yet, and kept for the results job)`,
          storage: S3TableStorage.fromBucket(props.rawBucket),
          s3Prefix: spec.prefix,
          dataFormat: DataFormat.JSON,
          compressed: true,
          columns: strings(Object.keys(spec.columns).filter((c) => c !== 'dt')),
          partitionKeys: [{ name: ARRIVAL_HOUR, type: Schema.STRING }],
          partitionProjection: {
            [ARRIVAL_HOUR]: PartitionProjectionConfiguration.date({
              min: LANDING_PROJECTION_MIN,
              max: 'NOW',
              format: ARRIVAL_HOUR_FORMAT,
              step: { interval: 1, intervalUnit: DateIntervalUnit.HOURS },
            }),
          },
          parameters: { 'storage.location.template': `s3://${bucket}/${spec.prefix}${ARRIVAL_HOUR}=\${${ARRIVAL_HOUR}}/` },
        }),
      ]),
    ) as Record<StreamName, S3Table>;

    // Curated: traditional partitions, no projection. The compaction job registers each (project, day)
    // with Glue, its location one generation=<g>/ folder, and moves it to the next generation by
    // updating the partition (BatchUpdatePartition); Athena reads the locations when it plans a query.
    this.curated = Object.fromEntries(
      streams.map(([name, spec]) => [
        name,
        new S3Table(this, `${name}CuratedTable`, {
          database: this.database,
          tableName: curatedTable(name),
          description: `${spec.description}, compacted: Parquet (ZSTD), each event once, partitioned by project_id and dt = day of the timestamp (UTC)`,
          storage: S3TableStorage.fromBucket(props.rawBucket),
          s3Prefix: curatedPrefix(name),
          dataFormat: DataFormat.PARQUET,
          columns: strings([...dataColumns(spec.columns), ...CURATED_ONLY_COLUMNS[name]]),
          partitionKeys: PARTITION_COLUMNS.map((c) => ({ name: c, type: Schema.STRING })),
          parameters: { 'parquet.compression': 'ZSTD' },
        }),
      ]),
    ) as Record<StreamName, S3Table>;

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

function hiveComment(name: string): string | undefined {
  if (name === 'timestamp' || name === 'received_at') return 'ISO 8601 UTC; from_iso8601_timestamp() to compare as time';
  if (name === 'properties') return "JSON object as text; json_extract_scalar(properties, '$.key')";
  if (name === 'timestamp_minute') return "The timestamp's UTC minute (YYYY-MM-DDTHH:MM): read it instead of timestamp when a minute is precise enough";
  return undefined;
}
