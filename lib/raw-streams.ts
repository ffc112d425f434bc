/**
 * The raw streams: Amazon Data Firehose to S3, partitioned by project and day. Two streams share one
 * bucket: events (StoredEvent) under events/ and identity links (IdentityRecord) under identities/.
 *
 * The handlers pack several records per Firehose record as NDJSON (lambdas/store/firehose-raw-stream.ts):
 * Firehose bills each record rounded up to 5 KB, so one 20-event record costs what one event would.
 * Each stream undoes the packing (record de-aggregation), reads project_id and the day of the record's
 * timestamp with jq (dynamic partitioning), puts the newline back after each record and writes GZIP
 * NDJSON under <stream>/project_id=<id>/dt=<YYYY-MM-DD>/ (events: .../received=<YYYY-MM-DD-HH>/, the
 * hour of received_at, contract/arrival-partition.ts), the layout the local Firehose stand-in writes
 * (lambdas/local/firehose-endpoint.ts) and the Glue tables project (lib/analytics.ts).
 *
 * What Firehose cannot deliver to a partition it writes under errors/ (errorOutputPrefix): the bucket
 * sends its object events to EventBridge, a rule matches every object created under errors/ and keeps
 * it in a queue for 14 days (its key, to inspect), and lib/alarms.ts alarms on the rule's triggers.
 * errors/ never expires: `npm run redrive` re-sends its records and moves each object it emptied to
 * redriven/, which expires (docs/decisions/undelivered-records.md).
 */
import { Duration, RemovalPolicy, Size, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import { Rule } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import {
  AppendDelimiterToRecordProcessor,
  Compression,
  DeliveryStream,
  MetadataExtractionProcessor,
  RecordDeAggregationProcessor,
  S3Bucket,
  StreamEncryption,
} from 'aws-cdk-lib/aws-kinesisfirehose';
import type { Bucket, CfnBucket } from 'aws-cdk-lib/aws-s3';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ARRIVAL_HOUR_JQ, ARRIVAL_PARTITION } from '../lambdas/contract/arrival-partition';
import { DELIVERY_ERRORS_PREFIX, REDRIVEN_EXPIRATION_DAYS, REDRIVEN_PREFIX } from '../lambdas/contract/delivery-errors';
import { DEPENDENCIES } from '../lambdas/routes';
import { secureBucket } from './buckets';
import { EVENT_COLUMNS, IDENTITY_COLUMNS, type HiveType } from './raw-columns';

export interface RawStreamSpec {
  /** The environment variable of the functions that put records (the manifest's DEPENDENCIES, lambdas/routes.ts). */
  envVar: string;
  /** S3 prefix and Glue table name. */
  prefix: string;
  table: string;
  columns: Record<string, HiveType>;
  description: string;
  /** Keyed by arrival hour too (received=, contract/arrival-partition.ts). */
  byArrival: boolean;
}

export const RAW_STREAMS = {
  events: {
    envVar: DEPENDENCIES.sink.env[0],
    prefix: 'events/',
    table: 'events',
    byArrival: true,
    columns: EVENT_COLUMNS,
    description: 'Raw events (one JSON line per event)',
  },
  identities: {
    envVar: DEPENDENCIES.identitySink.env[0],
    prefix: 'identities/',
    table: 'identities',
    byArrival: false,
    columns: IDENTITY_COLUMNS,
    description: 'Identity links: from timestamp on, id belongs to the group of canonical_id (latest row per id wins)',
  },
} as const satisfies Record<string, RawStreamSpec>;

export type StreamName = keyof typeof RAW_STREAMS;

/**
 * The stream's S3 key prefix: project and day, and for events the arrival hour after them
 * (contract/arrival-partition.ts), which the results job's table prunes by.
 */
export const dataOutputPrefix = (prefix: string, byArrival = false) =>
  `${prefix}project_id=!{partitionKeyFromQuery:project_id}/dt=!{partitionKeyFromQuery:dt}/` +
  (byArrival ? `${ARRIVAL_PARTITION}=!{partitionKeyFromQuery:${ARRIVAL_PARTITION}}/` : '');
export const errorOutputPrefix = (prefix: string) => `${DELIVERY_ERRORS_PREFIX}${prefix}!{firehose:error-output-type}/dt=!{timestamp:yyyy-MM-dd}/`;
/** jq expressions for the partition keys: dt is the first 10 characters of the ISO 8601 timestamp. */
export const PARTITION_QUERY = { project_id: '.project_id', dt: '.timestamp[0:10]' };
/** The events stream's jq expressions: PARTITION_QUERY plus the arrival hour of received_at. */
export const EVENTS_PARTITION_QUERY = { ...PARTITION_QUERY, [ARRIVAL_PARTITION]: ARRIVAL_HOUR_JQ };
export const FILE_EXTENSION = '.json.gz';

/**
 * How long Firehose retries a failed delivery to S3 with dynamic partitioning (RetryOptions; CDK's
 * default, 300 s); after that the records go to errors/. The results job's arrival allowance counts it
 * (lib/grants.ts arrivalAllowanceSeconds).
 */
export const DYNAMIC_PARTITIONING_RETRY_SECONDS = 300;

export interface RawStreamsProps {
  removalPolicy: RemovalPolicy;
  accessLogs: Bucket;
  bufferingInterval: Duration;
  bufferingSize: Size;
  /** Delete raw records this long after delivery; undefined keeps them. */
  expiration?: Duration;
}

export class RawStreams extends Construct {
  readonly bucket: Bucket;
  readonly streams: Record<StreamName, DeliveryStream>;
  /** Matches every object created under errors/ (S3 "Object Created" events on EventBridge); alarmed by lib/alarms.ts. */
  readonly deliveryErrorsRule: Rule;
  /** The rule's target: each such event for 14 days, so the keys can be inspected. */
  readonly deliveryErrorsQueue: Queue;

  constructor(scope: Construct, id: string, props: RawStreamsProps) {
    super(scope, id);
    this.bucket = secureBucket(this, 'Bucket', {
      removalPolicy: props.removalPolicy,
      accessLogs: { bucket: props.accessLogs, prefix: 'raw/' },
      lifecycleRules: [
        // errors/ is kept until `npm run redrive` re-sends it; what it re-sent moves to redriven/, dropped later.
        { id: 'expire-redriven-delivery-errors', prefix: REDRIVEN_PREFIX, expiration: Duration.days(REDRIVEN_EXPIRATION_DAYS) },
        ...(props.expiration ? Object.values(RAW_STREAMS).map((s) => ({ id: `expire-${s.table}`, prefix: s.prefix, expiration: props.expiration })) : []),
      ],
    });

    // S3 sends every object event of the bucket to EventBridge (NotificationConfiguration's
    // EventBridgeConfiguration, set here on the bucket itself rather than by CDK's notifications custom resource).
    (this.bucket.node.defaultChild as CfnBucket).notificationConfiguration = { eventBridgeConfiguration: { eventBridgeEnabled: true } };
    this.deliveryErrorsQueue = new Queue(this, 'DeliveryErrors', {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    Validations.of(this.deliveryErrorsQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'A record of errors/ object keys for operators to inspect, read by no consumer: no message can fail processing, so a dead-letter queue would never receive one.',
    });
    this.deliveryErrorsRule = new Rule(this, 'DeliveryErrorsRule', {
      description: 'An object created under errors/ of the raw bucket: Firehose could not deliver records to their partition (npm run redrive re-sends them)',
      eventPattern: {
        source: ['aws.s3'],
        detailType: ['Object Created'],
        detail: { bucket: { name: [this.bucket.bucketName] }, object: { key: [{ prefix: DELIVERY_ERRORS_PREFIX }] } },
      },
      targets: [new SqsQueue(this.deliveryErrorsQueue)],
    });

    const entries = (Object.entries(RAW_STREAMS) as Array<[StreamName, RawStreamSpec]>).map(([name, spec]) => {
      const stream = new DeliveryStream(this, name, {
        encryption: StreamEncryption.awsOwnedKey(),
        destination: new S3Bucket(this.bucket, {
          dataOutputPrefix: dataOutputPrefix(spec.prefix, spec.byArrival),
          errorOutputPrefix: errorOutputPrefix(spec.prefix),
          compression: Compression.GZIP,
          fileExtension: FILE_EXTENSION,
          bufferingInterval: props.bufferingInterval,
          bufferingSize: props.bufferingSize,
          dynamicPartitioning: { enabled: true, retryDuration: Duration.seconds(DYNAMIC_PARTITIONING_RETRY_SECONDS) },
          processors: [
            RecordDeAggregationProcessor.json(),
            MetadataExtractionProcessor.jq16(spec.byArrival ? EVENTS_PARTITION_QUERY : PARTITION_QUERY),
            new AppendDelimiterToRecordProcessor(),
          ],
        }),
      });
      const bucketArn = `<${Stack.of(this).resolve(Stack.of(this).getLogicalId(this.bucket.node.defaultChild as CfnElement))}.Arn>`;
      const reason =
        "The delivery role CDK's Firehose S3 destination creates: read/write (bucket.grantReadWrite) on the raw bucket only, which Firehose needs to write objects and multipart uploads under any partition prefix.";
      Validations.of(stream).acknowledge(
        ...[
          'Action::s3:Abort*',
          'Action::s3:DeleteObject*',
          'Action::s3:GetBucket*',
          'Action::s3:GetObject*',
          'Action::s3:List*',
          `Resource::${bucketArn}/*`,
        ].map((finding) => ({ id: `AwsSolutions-IAM5[${finding}]`, reason })),
      );
      return [name, stream] as const;
    });
    this.streams = Object.fromEntries(entries) as Record<StreamName, DeliveryStream>;
    Validations.of(Stack.of(this)).acknowledge({
      id: 'CloudFormation-Validate::W7001',
      reason: 'The Firehose L2 adds a CIDR-block mapping for Redshift/HTTP destinations; S3 destinations leave it unused.',
    });
  }
}
