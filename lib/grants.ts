/**
 * Turns a function's line of the route manifest (lambdas/routes.ts) into IAM grants and environment
 * variables: the only way functions get either, so what a function can do is exactly what its line
 * says. Each dependency the line lists implies one grant (DEPENDENCIES) and sets the variables it
 * reads, with the values below.
 */
import { Names, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IDeliveryStream } from 'aws-cdk-lib/aws-kinesisfirehose';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { LambdaEnvName } from '../lambdas/lambda-env';
import { DEPENDENCIES, type DependencyAccess, type DependencyName, type Uses } from '../lambdas/routes';
import { TABLES, tableEnvVar, type TableName } from '../lambdas/store/schema';
import { RATE_LIMIT_ENV, type ApiGatewayRateLimitsConfig } from '../lambdas/contract/usage-plans';
import { CURATED_PREFIX, curatedTable, EXPORTS_PREFIX, LANDING_PREFIX } from '../lambdas/contract/landing';
import { RAW_STREAMS, S3_DELIVERY_RETRY_SECONDS, type StreamName } from './raw-streams';

export interface AthenaTargets {
  workGroupName: string;
  databaseName: string;
  /** Glue table and view names the queries read (the views and the landing and curated tables under them). */
  tableNames: string[];
  /** The views the deploy's custom resource and the compaction job create and replace (athena-compaction.ts VIEW_NAMES). */
  viewNames: string[];
  /** The curated tables (partitions the compaction job registers). */
  curatedTableNames: string[];
  rawBucket: IBucket;
  /** S3 prefixes of the raw objects the tables cover (events/, identities/). */
  rawPrefixes: string[];
  /** The incremental results state (Glue table and prefix in the raw bucket), which the results job writes. */
  stateTableName: string;
  statePrefix: string;
  /** The results job's base (Glue table and prefix in the raw bucket): generations it writes, a commit beside them, superseded ones it deletes. */
  baseTableName: string;
  basePrefix: string;
  resultsBucket: IBucket;
  resultsPrefix: string;
}

export interface AccessTargets {
  tables: Record<TableName, ITable>;
  streams: Record<StreamName, IDeliveryStream>;
  adminToken: ISecret;
  dedupeWindowDays: number;
  rateLimits: ApiGatewayRateLimitsConfig;
  /** The raw streams' Firehose buffering interval, in seconds (RESULTS_ARRIVAL_ALLOWANCE_SECONDS: arrivalAllowanceSeconds). */
  firehoseBufferingSeconds: number;
  /** EXPERIMENTS_CACHE_SECONDS. */
  experimentsCacheSeconds: number;
  /** DASHBOARD_ORIGIN: https://<the dashboard distribution's domain>; undefined without the dashboard (admin routes then answer no CORS). */
  dashboardOrigin?: string;
  /** AUDIT_RETENTION_DAYS. */
  auditRetentionDays: number;
  /** KEEP_EVENTS_DAYS (TallyStackProps.keepEventsDays); undefined keeps events forever (the variable is then unset). */
  keepEventsDays?: number;
  /** OIDC_*: the issuer and client people sign in with (lib/sign-in.ts), its groups claim and group=role pairs. */
  signIn: { issuer: string; audience: string; groupsClaim: string; groupRoles: string };
  athena: AthenaTargets;
}

/**
 * The incremental results job's arrival allowance (docs/decisions/incremental-results.md;
 * docs/decisions/columnar-events.md, "Late objects"): twice 1.5 x the buffering interval plus a
 * 300 s margin, 1,500 s with the defaults, as before. It no longer counts a dynamic-partitioning retry
 * duration (there is none). Firehose's S3 delivery retries last up to 24 hours
 * (S3_DELIVERY_RETRY_SECONDS) but only while S3 refuses delivery, which the DataFreshness alarm shows
 * (lib/alarms.ts); an allowance of a day would delay every result by a day, so an outage longer than
 * this allowance is repaired by a results refresh (docs/deploy.md), not waited for.
 */
export const DELIVERY_MARGIN_SECONDS = 300;
export const arrivalAllowanceSeconds = (bufferingSeconds: number, marginSeconds = DELIVERY_MARGIN_SECONDS) =>
  2 * (Math.ceil(1.5 * bufferingSeconds) + marginSeconds);

/** Firehose's largest S3 buffering interval, 900 s (BufferingHints IntervalInSeconds: 0 to 900). */
export const FIREHOSE_MAX_BUFFERING_SECONDS = 900;
/**
 * How long after a landing hour ends the compaction job waits before taking it: an object lands in the
 * hour its oldest record arrived, up to a buffering interval later, and later still while Firehose
 * retries S3 (up to 24 hours): 87,300 s. The views read the hours after the compacted one from
 * landing, so this delays only compaction, never what readers see.
 */
export const compactionCloseAfterSeconds = () => FIREHOSE_MAX_BUFFERING_SECONDS + S3_DELIVERY_RETRY_SECONDS;
/**
 * How long a superseded curated generation stays readable: the longest an Athena query can run, the
 * DML query timeout's maximum of 240 minutes (Service Quotas - Amazon Athena). A query planned on the
 * old generation finishes before it is deleted, whatever the account's timeout is set to.
 */
export const COMPACTION_GRACE_SECONDS = 240 * 60;
/** How long a compacted landing hour is kept after it ends: the results job reads new events by arrival from landing. */
export const LANDING_RETENTION_SECONDS = 3 * 86_400;

/** How long an Athena-querying function waits for its query: its timeout minus time to answer. */
export const athenaMaxWaitSeconds = (timeoutSeconds: number) => Math.max(1, timeoutSeconds - 3);

/** The value of each variable a dependency reads (DEPENDENCIES[dep].env), for one function. */
function envValues(fn: LambdaFunction, targets: AccessTargets): Partial<Record<LambdaEnvName, string>> {
  return {
    ...Object.fromEntries((Object.keys(targets.tables) as TableName[]).map((name) => [tableEnvVar(name), targets.tables[name].tableName])),
    DEDUPE_WINDOW_DAYS: String(targets.dedupeWindowDays),
    [RAW_STREAMS.events.envVar]: targets.streams.events.deliveryStreamName,
    [RAW_STREAMS.identities.envVar]: targets.streams.identities.deliveryStreamName,
    ADMIN_TOKEN_SECRET_ARN: targets.adminToken.secretArn,
    EXPERIMENTS_CACHE_SECONDS: String(targets.experimentsCacheSeconds),
    DASHBOARD_ORIGIN: targets.dashboardOrigin,
    AUDIT_RETENTION_DAYS: String(targets.auditRetentionDays),
    KEEP_EVENTS_DAYS: targets.keepEventsDays === undefined ? undefined : String(targets.keepEventsDays),
    OIDC_ISSUER: targets.signIn.issuer,
    OIDC_AUDIENCE: targets.signIn.audience,
    OIDC_GROUPS_CLAIM: targets.signIn.groupsClaim,
    OIDC_GROUP_ROLES: targets.signIn.groupRoles,
    ATHENA_WORKGROUP: targets.athena.workGroupName,
    ATHENA_DATABASE: targets.athena.databaseName,
    ATHENA_MAX_WAIT_SECONDS: String(athenaMaxWaitSeconds(fn.timeout?.toSeconds() ?? 3)),
    RESULTS_ARRIVAL_ALLOWANCE_SECONDS: String(arrivalAllowanceSeconds(targets.firehoseBufferingSeconds)),
    RESULTS_BASE_BUCKET: targets.athena.rawBucket.bucketName,
    RAW_BUCKET: targets.athena.rawBucket.bucketName,
    EXPORTS_BUCKET: targets.athena.rawBucket.bucketName,
    COMPACTION_CLOSE_AFTER_SECONDS: String(compactionCloseAfterSeconds()),
    COMPACTION_GRACE_SECONDS: String(COMPACTION_GRACE_SECONDS),
    LANDING_RETENTION_SECONDS: String(LANDING_RETENTION_SECONDS),
    [RATE_LIMIT_ENV.restApiId]: targets.rateLimits.restApiId,
    [RATE_LIMIT_ENV.stage]: targets.rateLimits.stage,
    [RATE_LIMIT_ENV.planPrefix]: targets.rateLimits.planPrefix,
  };
}

/** Grants, in a fixed order of kinds (tables, streams, secret, settings, Athena, API keys) so the template is stable. */
const KIND_ORDER = ['table', 'stream', 'secret', 'objects', 'setting', 'athena', 'apiKeys'] as const;
const kindOf = (access: DependencyAccess) => KIND_ORDER.find((k) => k in access)!;

export function applyAccess(fn: LambdaFunction, uses: Uses, targets: AccessTargets): void {
  const values = envValues(fn, targets);
  const deps = (Object.keys(uses) as DependencyName[]).sort(
    (a, b) => KIND_ORDER.indexOf(kindOf(DEPENDENCIES[a])) - KIND_ORDER.indexOf(kindOf(DEPENDENCIES[b])),
  );
  for (const dep of deps) {
    const access: DependencyAccess = DEPENDENCIES[dep];
    if ('table' in access) fn.addToRolePolicy(tableStatement(targets.tables[access.table], access.table, uses[dep] as TableAccessLevel));
    if ('stream' in access) targets.streams[access.stream].grantPutRecords(fn);
    if ('secret' in access) targets.adminToken.grantRead(fn);
    if ('objects' in access) {
      // Only exports/: GetObject to sign links (a presigned GET link works with the rights of the role that
      // signed it); the compaction job also writes the files and deletes a deleted person's.
      const actions = uses[dep] === 'readWrite' ? ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'] : ['s3:GetObject'];
      fn.addToRolePolicy(new PolicyStatement({ actions, resources: [targets.athena.rawBucket.arnForObjects(`${EXPORTS_PREFIX}*`)] }));
      Validations.of(fn.role!).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${arnAsNagNamesIt(fn, targets.athena.rawBucket)}>/${EXPORTS_PREFIX}*]`,
        reason: 'Each export file is named by its export ID, made at request time: the prefix of the export files is the narrowest name.',
      });
    }
    for (const name of access.env) {
      const value = values[name];
      if (value === undefined && (name === 'DASHBOARD_ORIGIN' || name === 'KEEP_EVENTS_DAYS')) continue;
      if (value === undefined) throw new Error(`lib/grants.ts has no value for ${name} (dependency ${dep})`);
      fn.addEnvironment(name, value);
    }
    if ('athena' in access) {
      const options = {
        writeState: dep === 'resultsQuery',
        manageViews: dep === 'analyticsViews' || dep === 'compaction',
        compaction: dep === 'compaction',
        // The listings delete their queries' result files once read (lambdas/entry/athena.ts): their answers name people.
        forgetResults: dep === 'recentEvents' || dep === 'recentUsers',
      };
      for (const statement of athenaStatements(Stack.of(fn), targets.athena, options)) fn.addToRolePolicy(statement);
      Validations.of(fn.role!).acknowledge(
        ...[
          ...[
            ...targets.athena.rawPrefixes,
            ...(dep === 'resultsQuery' ? [targets.athena.statePrefix, targets.athena.basePrefix] : []),
            ...(dep === 'compaction' ? [CURATED_PREFIX, LANDING_PREFIX, targets.athena.statePrefix, targets.athena.basePrefix] : []),
          ].map((prefix) => `Resource::<${arnAsNagNamesIt(fn, targets.athena.rawBucket)}>/${prefix}*`),
          `Resource::<${arnAsNagNamesIt(fn, targets.athena.resultsBucket)}>/${targets.athena.resultsPrefix}*`,
        ].map((finding) => ({
          id: `AwsSolutions-IAM5[${finding}]`,
          reason:
            'Athena reads every object under the raw prefixes it queries, and writes result objects, the results state objects and curated generations with generated names under their prefixes; the compaction job deletes compacted landing hours and superseded generations, whose keys Firehose and Athena chose.',
        })),
      );
    }
    if ('apiKeys' in access) {
      for (const statement of apiKeyManagementStatements(Stack.of(fn))) fn.addToRolePolicy(statement);
      const reason =
        'API keys and enterprise usage plans are created at run time, so their IDs cannot be named; the shared plans cannot be named either (they depend on the stage, which depends on this function). Scoped to API Gateway key and usage-plan paths and to the verbs used.';
      Validations.of(fn.role!).acknowledge(
        ...['/apikeys/*', '/usageplans/*', '/usageplans/*/keys'].map((path) => ({
          id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:apigateway:<AWS::Region>::${path}]`,
          reason,
        })),
      );
    }
  }
}

export const DYNAMO_READ = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:Scan',
  'dynamodb:ConditionCheckItem',
  'dynamodb:DescribeTable',
];
export const DYNAMO_WRITE = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
/** Append: new items and updates of them, no reads, no deletes (the audit log from admin writes). */
export const DYNAMO_APPEND = ['dynamodb:PutItem', 'dynamodb:UpdateItem'];

export type TableAccessLevel = 'read' | 'readWrite' | 'append';
export const tableActions = (level: TableAccessLevel) =>
  level === 'readWrite' ? [...DYNAMO_READ, ...DYNAMO_WRITE] : level === 'append' ? DYNAMO_APPEND : DYNAMO_READ;

/** The table and each of its indexes by name (Table.grant* would use <table>/index/*). */
export function tableStatement(table: ITable, name: TableName, level: TableAccessLevel): PolicyStatement {
  return new PolicyStatement({
    actions: tableActions(level),
    resources: [table.tableArn, ...TABLES[name].indexes.map((index) => `${table.tableArn}/index/${index.name}`)],
  });
}

/**
 * How cdk-nag names a bucket's ARN in a finding of `fn`'s policy: `<LogicalId.Arn>` in the bucket's own
 * stack; in a nested stack (a route function, lib/route-stacks.ts) the ARN is the parameter the CDK
 * passes it, `referenceto<the bucket resource's unique ID>Arn`.
 */
function arnAsNagNamesIt(fn: Construct, bucket: IBucket): string {
  const stack = Stack.of(bucket);
  const resource = bucket.node.defaultChild as CfnElement;
  if (Stack.of(fn) === stack) return `${stack.resolve(stack.getLogicalId(resource)) as string}.Arn`;
  return `referenceto${Names.nodeUniqueId(resource.node)}Arn`;
}

/** What Athena's INSERT INTO asks of the Glue catalog for the table it writes (besides ReadRawTables' reads). */
export const INSERT_INTO_GLUE_ACTIONS = [
  'glue:GetPartition',
  'glue:GetPartitions',
  'glue:BatchGetPartition',
  'glue:CreatePartition',
  'glue:BatchCreatePartition',
  'glue:UpdatePartition',
  'glue:BatchUpdatePartition',
];

/**
 * Run queries in the workgroup only, read the raw tables' metadata and objects, write results; with
 * writeState (the results query), also read and write the incremental results state; with
 * manageViews (the analyst views), also create, replace and drop the views (UNIQUE_EVENTS_VIEW) in the
 * database: Athena's CREATE OR REPLACE VIEW and DROP VIEW write the view's Glue table; and delete
 * those statements' own result files.
 */
export function athenaStatements(
  stack: Stack,
  t: AthenaTargets,
  options: { writeState: boolean; manageViews?: boolean; compaction?: boolean; forgetResults?: boolean } = { writeState: false },
): PolicyStatement[] {
  const glue = (resource: string) => stack.formatArn({ service: 'glue', resource });
  const compaction = options.compaction
    ? [
        // The job's commits: GetTable for the storage descriptor, BatchGet/Create/UpdatePartition of the
        // curated tables, GetPartitions for the retention cut. Its writes are UNLOADs (S3 only, below).
        new PolicyStatement({
          sid: 'WriteCuratedTables',
          actions: ['glue:GetTable', 'glue:GetPartitions', 'glue:BatchGetPartition', 'glue:BatchCreatePartition', 'glue:BatchUpdatePartition'],
          resources: [glue('catalog'), glue(`database/${t.databaseName}`), ...t.curatedTableNames.map((name) => glue(`table/${t.databaseName}/${name}`))],
        }),
        // What Athena's UNLOAD writes into staging/ and the job copies into generations, the compaction
        // state, and deleting staging and superseded generations.
        new PolicyStatement({
          sid: 'WriteCurated',
          actions: ['s3:PutObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts', 's3:DeleteObject'],
          resources: [t.rawBucket.arnForObjects(`${CURATED_PREFIX}*`)],
        }),
        // The retention cut (docs/decisions/retention.md, lambdas/services/cut-retention.ts): lists the
        // curated event partitions before the boundary (GetPartitions, above) and deletes them from the
        // catalog; their files go with DeleteObject above, once retired. Events only: identities are kept.
        new PolicyStatement({
          sid: 'CutCuratedEventPartitions',
          actions: ['glue:BatchDeletePartition'],
          resources: [glue('catalog'), glue(`database/${t.databaseName}`), glue(`table/${t.databaseName}/${curatedTable('events')}`)],
        }),
        // Landing hours compacted longer ago than the landing retention; nothing else of landing.
        new PolicyStatement({ sid: 'DeleteCompactedLanding', actions: ['s3:DeleteObject'], resources: [t.rawBucket.arnForObjects(`${LANDING_PREFIX}*`)] }),
        // A person's deletion (docs/decisions/erasure.md): landing objects written back without the
        // person's lines, and the results state and base of the project deleted (rebuilt from raw).
        new PolicyStatement({ sid: 'EraseFromLanding', actions: ['s3:PutObject'], resources: [t.rawBucket.arnForObjects(`${LANDING_PREFIX}*`)] }),
        new PolicyStatement({
          sid: 'DropResultsStateOfErased',
          actions: ['s3:DeleteObject'],
          resources: [t.rawBucket.arnForObjects(`${t.statePrefix}*`), t.rawBucket.arnForObjects(`${t.basePrefix}*`)],
        }),
      ]
    : [];
  const views = options.manageViews
    ? [
        new PolicyStatement({
          sid: 'ManageAnalystViews',
          actions: ['glue:GetTable', 'glue:CreateTable', 'glue:UpdateTable', 'glue:DeleteTable'],
          resources: [glue('catalog'), glue(`database/${t.databaseName}`), ...t.viewNames.map((name) => glue(`table/${t.databaseName}/${name}`))],
        }),
      ]
    : [];
  // The deploy's view statements delete their own result files (lambdas/adapters/s3-query-result-files.ts),
  // so a first create that rolls back leaves the results bucket empty. The compaction job deletes, for a
  // person's deletion, the result files of the project's cached insight queries and of its own query
  // listing the person's identity links (docs/decisions/erasure.md); its other result files expire with the bucket's rule.
  // The listings delete each query's files once read: their answers name people (lambdas/entry/athena.ts).
  const removeOwnResults =
    options.manageViews || options.forgetResults
      ? [new PolicyStatement({ sid: 'RemoveOwnQueryResults', actions: ['s3:DeleteObject'], resources: [t.resultsBucket.arnForObjects(`${t.resultsPrefix}*`)] })]
      : [];
  const tableNames = options.writeState ? [...t.tableNames, t.stateTableName, t.baseTableName] : t.tableNames;
  const state = options.writeState
    ? [
        // INSERT INTO the state table. Partition projection leaves nothing to register, but Athena's
        // Hive metastore still looks up and creates or updates the partitions it writes, singly or in
        // batches (the calls of AWS's AmazonAthenaFullAccess policy for partitions;
        // docs/decisions/first-deploy-rollback.md, "Grants for INSERT INTO").
        new PolicyStatement({
          sid: 'WriteResultsStateTable',
          actions: INSERT_INTO_GLUE_ACTIONS,
          resources: [
            glue('catalog'),
            glue(`database/${t.databaseName}`),
            glue(`table/${t.databaseName}/${t.stateTableName}`),
            glue(`table/${t.databaseName}/${t.baseTableName}`),
          ],
        }),
        new PolicyStatement({
          sid: 'WriteResultsState',
          actions: ['s3:GetObject', 's3:PutObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'],
          resources: [t.rawBucket.arnForObjects(`${t.statePrefix}*`), t.rawBucket.arnForObjects(`${t.basePrefix}*`)],
        }),
        // The job deletes superseded base generations (lambdas/adapters/s3-results-base.ts: ListObjectsV2,
        // which ListBuckets grants, then DeleteObjects, which needs s3:DeleteObject on each key), and
        // nothing else: not the raw events, not the state.
        new PolicyStatement({
          sid: 'DeleteSupersededResultsBase',
          actions: ['s3:DeleteObject'],
          resources: [t.rawBucket.arnForObjects(`${t.basePrefix}*`)],
        }),
      ]
    : [];
  return [
    new PolicyStatement({
      sid: 'QueryInWorkGroup',
      actions: ['athena:StartQueryExecution', 'athena:GetQueryExecution', 'athena:GetQueryResults', 'athena:StopQueryExecution', 'athena:GetWorkGroup'],
      resources: [stack.formatArn({ service: 'athena', resource: 'workgroup', resourceName: t.workGroupName })],
    }),
    // Athena's guide to Glue access asks for the catalog and the default database besides the one
    // queried; only GetDatabase (Tally creates no database at run time; docs/decisions/least-privilege-from-one-table.md).
    new PolicyStatement({
      sid: 'AthenaDefaultDatabase',
      actions: ['glue:GetDatabase'],
      resources: [glue('catalog'), glue('database/default')],
    }),
    new PolicyStatement({
      sid: 'ReadRawTables',
      actions: ['glue:GetDatabase', 'glue:GetTable', 'glue:GetPartition', 'glue:GetPartitions', 'glue:BatchGetPartition'],
      resources: [glue('catalog'), glue(`database/${t.databaseName}`), ...tableNames.map((name) => glue(`table/${t.databaseName}/${name}`))],
    }),
    new PolicyStatement({
      sid: 'ListBuckets',
      actions: ['s3:ListBucket', 's3:GetBucketLocation'],
      resources: [t.rawBucket.bucketArn, t.resultsBucket.bucketArn],
    }),
    new PolicyStatement({ sid: 'ReadRawObjects', actions: ['s3:GetObject'], resources: t.rawPrefixes.map((p) => t.rawBucket.arnForObjects(`${p}*`)) }),
    ...state,
    ...compaction,
    ...views,
    ...removeOwnResults,
    new PolicyStatement({
      sid: 'WriteQueryResults',
      actions: ['s3:GetObject', 's3:PutObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'],
      resources: [t.resultsBucket.arnForObjects(`${t.resultsPrefix}*`)],
    }),
  ];
}

/**
 * What lambdas/adapters/apigw-rate-limits.ts calls, verb by verb. Plan and key IDs cannot be named here:
 * enterprise plans and all API keys are created at run time, and the shared plans depend on the stage,
 * which depends on these functions (naming them would be a dependency cycle).
 */
export function apiKeyManagementStatements(stack: Stack): PolicyStatement[] {
  const arn = (path: string) => `arn:${stack.partition}:apigateway:${stack.region}::${path}`;
  return [
    new PolicyStatement({ sid: 'FindKeysAndPlans', actions: ['apigateway:GET'], resources: [arn('/apikeys'), arn('/usageplans')] }),
    new PolicyStatement({
      sid: 'CreateKeysAndPlans',
      actions: ['apigateway:POST'],
      resources: [arn('/apikeys'), arn('/usageplans'), arn('/usageplans/*/keys')],
    }),
    new PolicyStatement({ sid: 'UnbindEnterprisePlans', actions: ['apigateway:PATCH'], resources: [arn('/usageplans/*')] }),
    new PolicyStatement({ sid: 'DeleteKeysAndPlans', actions: ['apigateway:DELETE'], resources: [arn('/apikeys/*'), arn('/usageplans/*')] }),
  ];
}
