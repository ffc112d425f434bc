/** S3 buckets with the settings every Tally bucket shares: encrypted, private, TLS only, access-logged. */
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership, type LifecycleRule } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';

export interface SecureBucketProps {
  removalPolicy: RemovalPolicy;
  /** Where S3 server access logs go; none only for the access-log bucket itself. */
  accessLogs?: { bucket: Bucket; prefix: string };
  lifecycleRules?: LifecycleRule[];
  /** Empty the bucket when the stack deletes it (CDK's auto-delete custom resource); only with RemovalPolicy.DESTROY. */
  autoDeleteObjects?: boolean;
}

const ABORT_UPLOADS: LifecycleRule = { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(7) };

export function secureBucket(scope: Construct, id: string, props: SecureBucketProps): Bucket {
  return new Bucket(scope, id, {
    encryption: BucketEncryption.S3_MANAGED,
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
    enforceSSL: true,
    removalPolicy: props.removalPolicy,
    autoDeleteObjects: props.autoDeleteObjects ?? false,
    lifecycleRules: [ABORT_UPLOADS, ...(props.lifecycleRules ?? [])],
    ...(props.accessLogs ? { serverAccessLogsBucket: props.accessLogs.bucket, serverAccessLogsPrefix: props.accessLogs.prefix } : {}),
  });
}

/**
 * The bucket receiving the other buckets' S3 server access logs. Always kept (DeletionPolicy Retain),
 * even by the rollback of the create that made it: S3 delivers access logs on a best-effort basis,
 * most within a few hours, so a log of the create's own requests can land at any moment of a
 * rollback, and CloudFormation cannot delete a bucket that holds objects. Its name is generated, so a
 * retried deploy makes a new one (docs/decisions/first-deploy-rollback.md).
 */
export function accessLogBucket(scope: Construct, id: string): Bucket {
  const bucket = new Bucket(scope, id, {
    encryption: BucketEncryption.S3_MANAGED,
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    enforceSSL: true,
    removalPolicy: RemovalPolicy.RETAIN,
    // S3 log delivery writes with the bucket policy (feature flag serverAccessLogsUseBucketPolicy).
    objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
    lifecycleRules: [ABORT_UPLOADS, { id: 'expire-access-logs', expiration: Duration.days(365) }],
  });
  Validations.of(bucket).acknowledge({
    id: 'AwsSolutions-S1',
    reason: 'This is the access-log bucket: logging its own access would log the log deliveries into itself.',
  });
  return bucket;
}
