/**
 * The raw streams: Amazon Data Firehose to S3, landed by arrival only (docs/decisions/columnar-events.md,
 * "Landing"). Two streams share one bucket: events (StoredEvent) and identity links (IdentityRecord),
 * each under landing/<stream>/arrival_hour=<yyyy-MM-dd-HH>/ (contract/landing.ts), the hour Firehose's
 * timestamp namespace gives: "the approximate arrival timestamp of the oldest record that's contained
 * in the Amazon S3 object being written". No record-dependent key, no dynamic partitioning, no jq, no
 * processors: every project and event day of an hour lands in the same objects, so the active
 * partition limit of dynamic partitioning does not apply, whatever the number of projects or days.
 *
 * The handlers pack several records per Firehose record as NDJSON, each line ending in "\n"
 * (lambdas/store/firehose-raw-stream.ts): Firehose bills each record rounded up to 5 KB, so one
 * 20-event record costs what one event would. Without processors Firehose writes each record's bytes
 * as they are, one after the other, so the objects are the lines themselves: GZIP NDJSON (.json.gz),
 * the layout the local Firehose stand-in writes (lambdas/local/firehose-endpoint.ts) and the landing
 * tables project (lib/analytics.ts). The compaction job (lambdas/entry/compact-landing.ts) takes
 * closed hours into curated Parquet and deletes them after the landing retention.
 *
 * What Firehose cannot deliver it writes under errors/ (errorOutputPrefix): the bucket sends its
 * object events to EventBridge, a rule matches every object created under errors/ and keeps it in a
 * queue for 14 days (its key, to inspect), and lib/alarms.ts alarms on the rule's triggers. errors/
 * never expires: `npm run redrive` re-sends its records and moves each object it emptied to
 * redriven/, which expires (docs/decisions/undelivered-records.md).
 */
import { Duration, RemovalPolicy, Size, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import { Rule } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { Compression, DeliveryStream, S3Bucket, StreamEncryption } from 'aws-cdk-lib/aws-kinesisfirehose';
import type { Bucket, CfnBucket } from 'aws-cdk-lib/aws-s3';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DELIVERY_ERRORS_PREFIX, REDRIVEN_EXPIRATION_DAYS, REDRIVEN_PREFIX } from '../lambdas/contract/delivery-errors';
import { ARRIVAL_HOUR, ARRIVAL_HOUR_FORMAT, curatedPrefix, EXPORTS_PREFIX, landingPrefix, landingTable } from '../lambdas/contract/landing';
import { EXPORT_FILE_DAYS } from '../lambdas/domain/person-export';
import { DEPENDENCIES } from '../lambdas/routes';
import { secureBucket } from './buckets';
import { EVENT_COLUMNS, IDENTITY_COLUMNS, type HiveType } from './raw-columns';

export interface RawStreamSpec {
  /** The environment variable of the functions that put records (the manifest's DEPENDENCIES, lambdas/routes.ts). */
  envVar: string;
  /** The landing prefix (contract/landing.ts landingPrefix) and landing table (landingTable). */
  prefix: string;
  table: string;
  columns: Record<string, HiveType>;
  description: string;
}

export const RAW_STREAMS = {
  events: {
    envVar: DEPENDENCIES.sink.env[0],
    prefix: landingPrefix('events'),
    table: landingTable('events'),
    columns: EVENT_COLUMNS,
    description: 'Raw events (one JSON line per event)',
  },
  identities: {
    envVar: DEPENDENCIES.identitySink.env[0],
    prefix: landingPrefix('identities'),
    table: landingTable('identities'),
    columns: IDENTITY_COLUMNS,
    description: 'Identity links: from timestamp on, id belongs to the group of canonical_id (latest row per id wins)',
  },
} as const satisfies Record<string, RawStreamSpec>;

export type StreamName = keyof typeof RAW_STREAMS;

/** The stream's S3 key prefix: its landing prefix and the arrival hour, Firehose's timestamp namespace only. */
export const dataOutputPrefix = (prefix: string) => `${prefix}${ARRIVAL_HOUR}=!{timestamp:${ARRIVAL_HOUR_FORMAT}}/`;
/** errors/<stream>/<error type>/dt=<day>/: the layout npm run redrive reads (unchanged by the landing layout). */
export const errorOutputPrefix = (stream: StreamName) => `${DELIVERY_ERRORS_PREFIX}${stream}/!{firehose:error-output-type}/dt=!{timestamp:yyyy-MM-dd}/`;
export const FILE_EXTENSION = '.json.gz';

/**
 * Firehose's documented S3 delivery retries (docs/decisions/columnar-events.md, "Late objects"): "If
 * the destination is Amazon S3 and delivery fails ..., Firehose keeps retrying until the retention
 * period ends", and "For DirectPut Firehose streams, Firehose retains the records for 24 hours"
 * (Troubleshoot errors in Amazon Data Firehose). An object can land in an hour up to this long after it.
 */
export const S3_DELIVERY_RETRY_SECONDS = 24 * 3600;

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
        // People's export files (docs/privacy.md "Access requests"): personal data, kept only long enough to download.
        { id: 'expire-exports', prefix: EXPORTS_PREFIX, expiration: Duration.days(EXPORT_FILE_DAYS) },
        ...(props.expiration
          ? (Object.keys(RAW_STREAMS) as StreamName[]).flatMap((stream) => [
              { id: `expire-landing-${stream}`, prefix: landingPrefix(stream), expiration: props.expiration },
              { id: `expire-curated-${stream}`, prefix: curatedPrefix(stream), expiration: props.expiration },
            ])
          : []),
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
          dataOutputPrefix: dataOutputPrefix(spec.prefix),
          errorOutputPrefix: errorOutputPrefix(name),
          compression: Compression.GZIP,
          fileExtension: FILE_EXTENSION,
          bufferingInterval: props.bufferingInterval,
          bufferingSize: props.bufferingSize,
        }),
      });
      const bucketArn = `<${Stack.of(this).resolve(Stack.of(this).getLogicalId(this.bucket.node.defaultChild as CfnElement))}.Arn>`;
      const reason =
        "The delivery role CDK's Firehose S3 destination creates: read/write (bucket.grantReadWrite) on the raw bucket only, which Firehose needs to write objects and multipart uploads under any arrival-hour prefix.";
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
