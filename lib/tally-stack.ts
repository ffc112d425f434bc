/**
 * The whole service in one stack, whose route functions sit in nested stacks by family
 * (lib/route-stacks.ts). Each concern is one construct; this file only wires their handles together,
 * so every dependency between them is visible here.
 */
import { CfnOutput, CustomResource, Duration, Lazy, RemovalPolicy, Size, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { CfnFunction, Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { PriceClass } from 'aws-cdk-lib/aws-cloudfront';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction as LambdaFunctionTarget } from 'aws-cdk-lib/aws-events-targets';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { MIN_FUNCTION_TIMEOUT_SECONDS } from '../lambdas/contract/aws-call-limits';
import { PLAN_LIMITS } from '../lambdas/domain/api-key';
import { INSIGHT_QUERY_TTL_DAYS } from '../lambdas/domain/insights/query-id';
import type { LambdaEnvName } from '../lambdas/lambda-env';
import { AUTHORIZER, JOBS, ROUTES, type JobName, type RouteName } from '../lambdas/routes';
import type { TableName } from '../lambdas/store/schema';
import { Alarms } from './alarms';
import { Analytics, glueDatabaseNameFor, RESULTS_PREFIX } from './analytics';
import { READER_VIEWS } from '../lambdas/contract/analytics-views';
import { CURATED_PREFIX, LANDING_PREFIX } from '../lambdas/contract/landing';
import { RESULTS_BASE, RESULTS_STATE } from '../lambdas/contract/results-state';
import { TallyApi } from './api/api';
import { accessLogBucket } from './buckets';
import { Dashboard } from './dashboard';
import { Edge } from './edge';
import { TallyFunction, type LogLevel } from './function';
import { applyAccess, type AccessTargets } from './grants';
import { SignIn, type ExternalIssuer } from './sign-in';
import { DEFAULT_GROUP_ROLES, formatGroupRoles } from '../lambdas/domain/group-roles';
import { keepEventsDaysProblem } from '../lambdas/domain/event-retention';
import { RawStreams } from './raw-streams';
import { RouteStacks } from './route-stacks';
import { TallyTables, type LedgerCapacity } from './tables';

export interface TallyStackProps extends StackProps {
  /** API Gateway stage name, the first path segment of the execute-api URL. @default 'prod' */
  readonly stageName?: string;
  /**
   * Requests per minute per key of the shared usage plans (burst = the limit, refill = limit/60 per
   * second). Keep in step with PLAN_LIMITS in lambdas/domain/api-key.ts, which the admin API shows
   * and the local server applies. @default PLAN_LIMITS: free 100, pro 1000
   */
  readonly planLimits?: { readonly free?: number; readonly pro?: number };
  /** Level of the functions' JSON logs (TALLY_LOG_LEVEL and Lambda's application log level). @default 'info' */
  readonly logLevel?: LogLevel;
  /** Retention of function and API access logs. @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /** Write API Gateway access logs; creates the account's API Gateway CloudWatch role if needed. @default true */
  readonly apiAccessLogs?: boolean;
  /** Memory of every function, in MB (CPU grows with it). @default 512 */
  readonly memorySize?: number;
  /**
   * Timeout of every function, at least 9 s: no AWS call may outlive its function (the longest call
   * deadline is 8 s, lambdas/contract/aws-call-limits.ts). @default Duration.seconds(10), the local server's handler budget
   */
  readonly functionTimeout?: Duration;
  /** How long the authorizer reuses a looked-up key record (0 disables; Origin is checked on every request regardless). @default Duration.seconds(60) */
  readonly keyCacheTtl?: Duration;
  /** How long an instance serves its copy of the running experiments (starts and stops show after at most this). @default Duration.seconds(5) */
  readonly experimentsCacheTtl?: Duration;
  /** Days the events ledger keeps an event's claim (deduplication), and the admin recent-events listing's window. @default 30 */
  readonly dedupeWindowDays?: number;
  /**
   * Provisioned capacity with target-tracking auto scaling (write and read) for the events ledger
   * instead of on-demand: about 0.4x the ledger's write cost for steady traffic at the default 70 %
   * target, more for spiky or low traffic (docs/cost.md). `{}` takes every default (LedgerCapacity).
   * Checked at synth: positive integer capacities, min <= max, target 20 to 90.
   * @default - on-demand (PAY_PER_REQUEST), like every other table
   */
  readonly ledgerCapacity?: LedgerCapacity;
  /**
   * Keep events this many days by event day (docs/decisions/retention.md): the compaction job removes
   * the curated event partitions of older days (`-c keepEventsDays=400`). Whole days from 90 (the
   * longest look-back a query may ask for) to 36500, checked at synth. Not dedupeWindowDays (the
   * ledger's deduplication window). Identity links are not events and are kept.
   * @default - events are kept forever
   */
  readonly keepEventsDays?: number;
  /** Delete raw events and identity links from S3 this long after delivery. @default - kept forever */
  readonly rawExpiration?: Duration;
  /** Firehose buffering interval per partition (60 to 900 s): latency to S3 versus number of files. @default Duration.seconds(300) */
  readonly firehoseBufferingInterval?: Duration;
  /** Firehose buffering size per partition (64 to 128 MiB with dynamic partitioning). @default Size.mebibytes(128) */
  readonly firehoseBufferingSize?: Size;
  /**
   * Removal policy of data: the tables holding user data (TableLayout.holdsUserData), the raw,
   * Athena-results and access-log buckets and the Glue database. The default keeps them when the stack
   * is deleted or they are replaced, but deletes them when the deploy that created them rolls back
   * (CloudFormation's RetainExceptOnCreate), so a failed first deploy can simply be retried.
   * @default RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE
   */
  readonly dataRemovalPolicy?: RemovalPolicy;
  /**
   * Deletion protection of the tables holding user data (TableLayout.holdsUserData). Turn it on only
   * once the stack exists (`-c deletionProtection=true` from the second deploy on, kept in cdk.json):
   * DynamoDB refuses to delete a protected table, so a failed FIRST deploy could not roll back the
   * tables it created (ROLLBACK_FAILED). docs/decisions/first-deploy-rollback.md.
   * @default false
   */
  readonly deletionProtection?: boolean;
  /**
   * Deploy the dashboard (S3 bucket and CloudFront distribution). `-c dashboard=false` deploys the API
   * alone, for an account CloudFront refuses until AWS verifies it (docs/deploy.md, "First deploy on a
   * new account"); a later deploy with it on adds the dashboard. @default true
   */
  readonly dashboard?: boolean;
  /**
   * Sign-in of people (docs/deploy.md, "Signing in"): an existing OIDC issuer (Okta, Entra ID, Google
   * Workspace...) and the dashboard's client ID there. `-c oidcIssuer=… -c oidcClientId=…` sets it.
   * @default a Cognito user pool with hosted sign-in and one group per role
   */
  readonly signIn?: ExternalIssuer;
  /** Days an audit log entry (who changed what in the admin API) is kept before DynamoDB's TTL deletes it. @default 365 */
  readonly auditRetentionDays?: number;
  /** Glue database name (lower-case letters, digits, underscores). @default the stack name in that form (glueDatabaseNameFor): 'tally' for the stack Tally */
  readonly glueDatabaseName?: string;
  /** When the results job recomputes the results of running experiments. @default Schedule.rate(Duration.minutes(15)) */
  readonly resultsSchedule?: Schedule;
  /** When the compaction job takes closed landing hours into curated Parquet. @default Schedule.rate(Duration.minutes(15)) */
  readonly compactionSchedule?: Schedule;
  /** Athena refuses queries scanning more than this. @default Size.gibibytes(10) */
  readonly athenaBytesScannedCutoff?: Size;
  /**
   * Athena query results are deleted after this long. At least a day more than the insight queries'
   * TTL (7 days), since a cached insight answer and its poll URL read its rows from them.
   * @default Duration.days(30)
   */
  readonly athenaResultsExpiration?: Duration;
  /** Share of 5xx API responses over 5 minutes that raises the alarm. @default 0.01 (1 %) */
  readonly serverErrorRateAlarm?: number;
  /** Where alarms are sent (creates an SNS topic with an e-mail subscription). @default - alarms without notification */
  readonly alarmEmail?: string;
  /**
   * Path, on the machine that deploys, of a MaxMind City database (.mmdb, e.g. GeoLite2-City) to ship
   * inside the ingestion functions for geolocation. Refresh it by redeploying with a newer file.
   * @default - none: country, region and city are stored as null (unless CloudFront viewer headers apply)
   */
  readonly geoipDatabase?: string;
  /** Put CloudFront in front of the API (viewer geolocation headers, origin secret header). @default false */
  readonly cloudFront?: boolean;
  /** CloudFront price class of the dashboard's distribution and, when cloudFront is on, the API's. @default PriceClass.PRICE_CLASS_100 */
  readonly cloudFrontPriceClass?: PriceClass;
}

/** Sets a variable declared in lambdas/lambda-env.ts (the authorizer's own, AUTHORIZER_ENV). */
const setEnv = (fn: LambdaFunction, name: LambdaEnvName, value: string) => fn.addEnvironment(name, value);

/** Copies the database next to the bundle; the function finds it through GEOIP_DB_PATH. */
function geoipBundle(path: string) {
  const source = resolve(path);
  if (!existsSync(source)) throw new Error(`geoipDatabase ${source} does not exist (download GeoLite2-City.mmdb first; see docs/data-model.md, "Geolocation")`);
  return { copyFiles: [{ from: source, to: 'geoip-city.mmdb' }], environment: { GEOIP_DB_PATH: '/var/task/geoip-city.mmdb' } };
}

export class TallyStack extends Stack {
  readonly api: TallyApi;
  /** Each in its family's nested stack (lib/route-stacks.ts). */
  readonly functions: Record<RouteName, TallyFunction>;
  /** The nested stacks holding the route functions. */
  readonly routeStacks: RouteStacks;
  readonly jobs: Record<JobName, TallyFunction>;
  readonly authorizer: TallyFunction;
  readonly tables: Record<TableName, Table>;
  readonly raw: RawStreams;
  readonly analytics: Analytics;
  readonly adminToken: Secret;
  readonly edge?: Edge;
  /** Undefined with `dashboard: false`. */
  readonly dashboard?: Dashboard;
  /** The user pool (default) or the external issuer people sign in with. */
  readonly signIn: SignIn;
  readonly alarms: Alarms;

  constructor(scope: Construct, id: string, props: TallyStackProps = {}) {
    super(scope, id, props);
    const stageName = props.stageName ?? 'prod';
    const removalPolicy = props.dataRemovalPolicy ?? RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE;
    const bufferingInterval = props.firehoseBufferingInterval ?? Duration.seconds(300);
    const functionDefaults = {
      logLevel: props.logLevel ?? 'info',
      logRetention: props.logRetention ?? RetentionDays.ONE_MONTH,
      memorySize: props.memorySize ?? 512,
      timeout: props.functionTimeout ?? Duration.seconds(10),
    } as const;
    if (functionDefaults.timeout.toSeconds() < MIN_FUNCTION_TIMEOUT_SECONDS) {
      throw new Error(
        `functionTimeout must be at least ${MIN_FUNCTION_TIMEOUT_SECONDS} s (got ${functionDefaults.timeout.toSeconds()} s): an AWS call may take up to ${MIN_FUNCTION_TIMEOUT_SECONDS - 1} s before its deadline (lambdas/contract/aws-call-limits.ts)`,
      );
    }

    const resultsExpiration = props.athenaResultsExpiration ?? Duration.days(30);
    if (resultsExpiration.toDays({ integral: false }) < INSIGHT_QUERY_TTL_DAYS + 1) {
      throw new Error(
        `athenaResultsExpiration must be at least ${INSIGHT_QUERY_TTL_DAYS + 1} days (got ${resultsExpiration.toHumanString()}): an insight query's cached answer and poll URL read its Athena result files for ${INSIGHT_QUERY_TTL_DAYS} days (docs/decisions/insights.md, "Cache")`,
      );
    }

    if (props.keepEventsDays !== undefined) {
      const problem = keepEventsDaysProblem(props.keepEventsDays);
      if (problem) throw new Error(`keepEventsDays ${problem} (got ${String(props.keepEventsDays)}; docs/decisions/retention.md)`);
    }

    const accessLogs = accessLogBucket(this, 'AccessLogs');
    const { tables } = new TallyTables(this, 'Tables', {
      userDataRemovalPolicy: removalPolicy,
      userDataDeletionProtection: props.deletionProtection ?? false,
      ...(props.ledgerCapacity ? { ledgerCapacity: props.ledgerCapacity } : {}),
    });
    this.tables = tables;
    const raw = new RawStreams(this, 'Raw', {
      removalPolicy,
      accessLogs,
      bufferingInterval,
      bufferingSize: props.firehoseBufferingSize ?? Size.mebibytes(128),
      expiration: props.rawExpiration,
    });

    this.raw = raw;
    const adminToken = new Secret(this, 'AdminToken', {
      description: 'Bearer token of the Tally admin API (/admin/v1/*)',
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
    });
    Validations.of(adminToken).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: 'A static bearer token for operators; rotate with put-secret-value (handlers re-read it within 5 minutes), see docs/deploy.md.',
    });

    this.adminToken = adminToken;
    this.analytics = new Analytics(this, 'Analytics', {
      rawBucket: raw.bucket,
      databaseName: props.glueDatabaseName ?? glueDatabaseNameFor(this.stackName),
      bytesScannedCutoff: props.athenaBytesScannedCutoff ?? Size.gibibytes(10),
      accessLogs,
      removalPolicy,
      resultsExpiration,
    });
    const analytics = this.analytics;

    const timeoutOf = (line: { name: string; timeoutSeconds?: number }) =>
      line.timeoutSeconds ? Duration.seconds(line.timeoutSeconds) : functionDefaults.timeout;
    this.routeStacks = new RouteStacks(this);
    this.functions = Object.fromEntries(
      ROUTES.map((route) => [
        route.name,
        new TallyFunction(this.routeStacks.of(route), `Route-${route.name}`, {
          ...functionDefaults,
          timeout: timeoutOf(route),
          entry: route.name,
          description: `Tally ${route.method} ${route.path}`,
          ...(props.geoipDatabase && 'geolocation' in route && route.geolocation ? geoipBundle(props.geoipDatabase) : {}),
        }),
      ]),
    ) as Record<RouteName, TallyFunction>;
    this.jobs = Object.fromEntries(
      JOBS.map((job) => [
        job.name,
        new TallyFunction(this, `Job-${job.name}`, {
          ...functionDefaults,
          timeout: timeoutOf(job),
          entry: job.name,
          description: job.description,
        }),
      ]),
    ) as Record<JobName, TallyFunction>;
    this.authorizer = new TallyFunction(this, 'Authorizer', {
      ...functionDefaults,
      entry: AUTHORIZER.name,
      description: 'Tally API key authorizer (key, origin and bundle-ID checks; usage identifier)',
      environment: { KEY_CACHE_TTL_SECONDS: String((props.keyCacheTtl ?? Duration.seconds(60)).toSeconds()) },
    });

    const planPrefix = `${this.stackName}-`;
    this.api = new TallyApi(this, 'Api', {
      stageName,
      handlers: Object.fromEntries(Object.entries(this.functions).map(([name, f]) => [name, f.fn])) as Record<RouteName, LambdaFunction>,
      authorizer: this.authorizer.fn,
      planLimits: { free: props.planLimits?.free ?? PLAN_LIMITS.free, pro: props.planLimits?.pro ?? PLAN_LIMITS.pro },
      planPrefix,
      accessLogs: props.apiAccessLogs ?? true,
      logRetention: functionDefaults.logRetention,
    });

    setEnv(this.authorizer.fn, 'UNAUTHENTICATED_USAGE_KEY', this.api.unauthenticatedKeyValue);

    let edge: Edge | undefined;
    if (props.cloudFront) {
      edge = this.edge = new Edge(this, 'Edge', { api: this.api.api, priceClass: props.cloudFrontPriceClass ?? PriceClass.PRICE_CLASS_100 });
      edge.originSecret.grantRead(this.authorizer.fn);
      setEnv(this.authorizer.fn, 'ORIGIN_SECRET_ARN', edge.originSecret.secretArn);
    }

    // {base_url}: CloudFront's URL when it fronts the API, else the stage URL.
    const baseUrl = edge ? `https://${edge.distribution.distributionDomainName}/` : this.api.api.url;

    // Sign-in first: the dashboard's config.json and CSP name the issuer. Its callback URL is the
    // dashboard's, created below (read when the template is written).
    const withDashboard = props.dashboard ?? true;
    this.signIn = new SignIn(this, 'SignIn', {
      ...(props.signIn ? { external: props.signIn } : {}),
      callbackUrls: withDashboard ? Lazy.list({ produce: () => [`${this.dashboard!.origin}/`] }) : ['http://localhost:3000/'],
      removalPolicy,
    });

    // The dashboard: its CSP names the API by ID, the admin functions and preflights name its origin.
    // Without it, admin routes answer no CORS at all (DASHBOARD_ORIGIN unset, no admin preflights).
    if (withDashboard) {
      this.dashboard = new Dashboard(this, 'Dashboard', {
        api: this.api.api,
        baseUrl,
        accessLogs,
        priceClass: props.cloudFrontPriceClass ?? PriceClass.PRICE_CLASS_100,
        logRetention: functionDefaults.logRetention,
        signIn: {
          config: {
            issuer: this.signIn.issuer,
            clientId: this.signIn.audience,
            groupsClaim: this.signIn.groupsClaim,
            groupRoles: this.signIn.groupRoles ?? '',
          },
          origins: this.signIn.origins,
        },
      });
      this.api.addAdminPreflights(this.dashboard.origin);
    }

    const targets: AccessTargets = {
      tables,
      streams: raw.streams,
      adminToken,
      dedupeWindowDays: props.dedupeWindowDays ?? 30,
      // The stage name, not the stage: the stage depends on these functions.
      rateLimits: { restApiId: this.api.api.restApiId, stage: stageName, planPrefix },
      experimentsCacheSeconds: (props.experimentsCacheTtl ?? Duration.seconds(5)).toSeconds(),
      ...(this.dashboard ? { dashboardOrigin: this.dashboard.origin } : {}),
      auditRetentionDays: props.auditRetentionDays ?? 365,
      ...(props.keepEventsDays !== undefined ? { keepEventsDays: props.keepEventsDays } : {}),
      signIn: {
        issuer: this.signIn.issuer,
        audience: this.signIn.audience,
        groupsClaim: this.signIn.groupsClaim,
        groupRoles: this.signIn.groupRoles ?? formatGroupRoles(DEFAULT_GROUP_ROLES),
      },
      firehoseBufferingSeconds: bufferingInterval.toSeconds(),
      athena: {
        workGroupName: analytics.workGroupName,
        databaseName: analytics.database.databaseName,
        tableNames: [...READER_VIEWS, ...Object.values(analytics.landing).map((t) => t.tableName), ...Object.values(analytics.curated).map((t) => t.tableName)],
        viewNames: [...READER_VIEWS],
        curatedTableNames: Object.values(analytics.curated).map((t) => t.tableName),
        rawBucket: raw.bucket,
        rawPrefixes: [LANDING_PREFIX, CURATED_PREFIX],
        stateTableName: analytics.resultsState.tableName,
        statePrefix: RESULTS_STATE.prefix,
        baseTableName: analytics.resultsBase.tableName,
        basePrefix: RESULTS_BASE.prefix,
        resultsBucket: analytics.resultsBucket,
        resultsPrefix: RESULTS_PREFIX,
      },
    };
    for (const route of ROUTES) applyAccess(this.functions[route.name].fn, route.uses, targets);
    for (const job of JOBS) applyAccess(this.jobs[job.name].fn, job.uses, targets);
    applyAccess(this.authorizer.fn, AUTHORIZER.uses, targets);

    // The analyst views (unique_events: every event once), created with Athena's own CREATE OR REPLACE
    // VIEW by the analytics-views function at deploy (lambdas/handlers/analytics-views.ts): once the
    // events table, the workgroup and the function's grants exist, and again whenever the function's
    // code (which holds the view's SQL) or the database changes. A view Athena refuses fails the deploy.
    const viewsFn = this.jobs['analytics-views'].fn;
    const views = new CustomResource(this, 'AnalyticsViews', {
      serviceToken: viewsFn.functionArn,
      resourceType: 'Custom::AnalyticsViews',
      // CloudFormation's wait for the answer; the function itself stops after its own timeout.
      serviceTimeout: Duration.minutes(10),
      properties: { Database: analytics.database.databaseName, CodeKey: ((viewsFn.node.defaultChild as CfnFunction).code as CfnFunction.CodeProperty).s3Key },
    });
    views.node.addDependency(...Object.values(analytics.landing), ...Object.values(analytics.curated), analytics.workGroup, viewsFn);

    // The compaction job (docs/decisions/columnar-events.md, "The job on AWS"): every 15 minutes, never
    // two runs at once (reserved concurrency 1: a scheduled invocation while one runs is throttled, and
    // EventBridge's own retries of it are turned off, so it is simply skipped), not retried by Lambda
    // or the rule: the next run retries from the state the failed one left. A failure is the
    // CompactionFailed metric and the function's errors, both alarmed (lib/alarms.ts).
    const compactFn = this.jobs['compact-landing'].fn;
    compactFn.configureAsyncInvoke({ retryAttempts: 0 });
    (compactFn.node.defaultChild as CfnFunction).reservedConcurrentExecutions = 1;
    new Rule(this, 'CompactionSchedule', {
      description: 'Runs the Tally compaction job (landing hours into curated Parquet)',
      schedule: props.compactionSchedule ?? Schedule.rate(Duration.minutes(15)),
      targets: [new LambdaFunctionTarget(compactFn, { retryAttempts: 0 })],
    });

    // The results job on a schedule. Not retried by the rule, nor by Lambda, which retries a failed
    // asynchronous invocation twice by default ("Error handling and automatic retries in Lambda",
    // Lambda developer guide): a retry would re-run every experiment, overlap the next scheduled run
    // and bill Athena again. A failed run shows on the function's Errors alarm (lib/alarms.ts); the
    // next run recomputes what it missed.
    this.jobs['results-job'].fn.configureAsyncInvoke({ retryAttempts: 0 });
    new Rule(this, 'ResultsSchedule', {
      description: 'Runs the Tally results job',
      schedule: props.resultsSchedule ?? Schedule.rate(Duration.minutes(15)),
      targets: [new LambdaFunctionTarget(this.jobs['results-job'].fn, { retryAttempts: 0 })],
    });

    this.alarms = new Alarms(this, 'Alarms', {
      api: this.api.api,
      functions: {
        ...Object.fromEntries(Object.entries(this.functions).map(([name, f]) => [name, f.fn])),
        ...Object.fromEntries(Object.entries(this.jobs).map(([name, f]) => [name, f.fn])),
        authorizer: this.authorizer.fn,
      },
      streams: raw.streams,
      deliveryErrorsRule: raw.deliveryErrorsRule,
      resultsFunctions: Object.fromEntries(
        [...ROUTES, ...JOBS]
          .filter((f) => 'resultsQuery' in f.uses)
          .map((f) => [f.name, { ...this.functions, ...this.jobs }[f.name as RouteName | JobName].fn]),
      ),
      compactionFunctions: { 'compact-landing': compactFn },
      insightFunctions: Object.fromEntries(ROUTES.filter((f) => 'insightEngine' in f.uses).map((f) => [f.name, this.functions[f.name].fn])),
      auditedFunctions: Object.fromEntries(ROUTES.filter((f) => 'audit' in f.uses && f.method !== 'GET').map((f) => [f.name, this.functions[f.name].fn])),
      bufferingInterval,
      tables,
      serverErrorRate: props.serverErrorRateAlarm ?? 0.01,
      ...(props.alarmEmail ? { email: props.alarmEmail } : {}),
    });

    new CfnOutput(this, 'ApiUrl', {
      value: baseUrl,
      description: 'Base URL of the API ({base_url})',
    });
    if (this.dashboard) {
      new CfnOutput(this, 'DashboardUrl', {
        value: this.dashboard.url,
        description: 'The dashboard: open it and sign in with the admin token (AdminTokenSecretArn)',
      });
    }
    new CfnOutput(this, 'SignInIssuer', { value: this.signIn.issuer, description: 'OIDC issuer whose tokens the admin API accepts (OIDC_ISSUER)' });
    new CfnOutput(this, 'SignInClientId', { value: this.signIn.audience, description: 'The dashboard’s client ID at the issuer (OIDC_AUDIENCE)' });
    if (this.signIn.userPool) {
      new CfnOutput(this, 'UserPoolId', {
        value: this.signIn.userPool.userPoolId,
        description: 'Cognito user pool: add people and put them in a role group (docs/deploy.md)',
      });
      new CfnOutput(this, 'HostedSignInUrl', { value: this.signIn.hostedSignInUrl!, description: 'Cognito hosted sign-in of the dashboard' });
    }
    new CfnOutput(this, 'ExecuteApiUrl', { value: this.api.api.url, description: 'The API Gateway stage URL (bypasses CloudFront when it is on)' });
    new CfnOutput(this, 'AdminTokenSecretArn', { value: adminToken.secretArn, description: 'Secrets Manager secret holding the admin API bearer token' });
    new CfnOutput(this, 'RawBucketName', {
      value: raw.bucket.bucketName,
      description: 'Raw records: landing/<stream>/arrival_hour=<yyyy-MM-dd-HH>/ (Firehose), curated/<stream>/project_id=<id>/dt=<YYYY-MM-DD>/ (compaction)',
    });
    new CfnOutput(this, 'EventsStreamName', { value: raw.streams.events.deliveryStreamName, description: 'Firehose stream of raw events (npm run redrive)' });
    new CfnOutput(this, 'IdentitiesStreamName', {
      value: raw.streams.identities.deliveryStreamName,
      description: 'Firehose stream of identity links (npm run redrive)',
    });
    new CfnOutput(this, 'DeliveryErrorsQueueUrl', {
      value: raw.deliveryErrorsQueue.queueUrl,
      description: 'One message per object Firehose wrote under errors/ of the raw bucket (kept 14 days; npm run redrive re-sends them)',
    });
    new CfnOutput(this, 'GlueDatabase', {
      value: analytics.database.databaseName,
      description: 'Query <database>.unique_events (each event once) or <database>.events in Athena',
    });
    new CfnOutput(this, 'AthenaWorkGroup', { value: analytics.workGroup.ref, description: 'Athena workgroup for analysts' });
  }
}
