/**
 * The route manifest: every function of the stack, declared once. Each line says what the function is
 * (method, path, auth) and which dependencies (lambdas/deps.ts) it uses, at which access level. From
 * it, and nothing else:
 * - the CDK stack builds the API Gateway resources and one Lambda per route (lib/tally-stack.ts,
 *   lib/api/api.ts), grants each function exactly the IAM access its dependencies imply and sets
 *   exactly the environment variables they read (lib/grants.ts, DEPENDENCIES below);
 * - each Lambda entry wires exactly those dependencies (lambdaHandler in lambdas/entry/aws.ts), and the
 *   type checker refuses a handler that needs a dependency its line does not list (RouteDeps), or a
 *   named handler factory taking fewer than its line lists;
 * - the local server dispatches requests, and the OpenAPI document lists the paths (lambdas/openapi.ts);
 * - the stack tests check grants and environment against these lines (test/stack/iam.test.ts,
 *   test/stack/env.test.ts, which also starts every entry with the environment the stack gives it).
 *
 * Adding a route:
 * 1. one line in ROUTES below (name, method, path, auth, uses; timeoutSeconds or geolocation if needed);
 * 2. a handler factory in lambdas/handlers/ taking the dependencies it uses, registered for the local
 *    server in lambdas/handlers/registry.ts, with its request and response schemas in lambdas/openapi.ts;
 * 3. the entry lambdas/entry/<name>.ts, one statement:
 *    `export const handler = lambdaHandler('<name>', createXHandler);`
 *    (a line using resultsQuery or rateLimits also passes their wiring, which the type checker asks for:
 *    `lambdaHandler('<name>', createXHandler, { resultsQuery: athenaResultsQuery })`);
 * 4. its tests (unit and test/e2e/); the stack, IAM, environment and OpenAPI tests cover it already.
 * Nothing in 2 and 3 can be forgotten silently: the registry and OPERATIONS are Record<RouteName, ...>
 * (type errors until the route is there), and test/stack/env.test.ts imports every entry.
 * Never rename a line's name once deployed: it is part of the function's construct ID.
 *
 * Plain data: this file imports only types.
 */
import type { AdminRole } from './domain/admin-role';
import type { Deps } from './deps';
import type { LambdaEnvName } from './lambda-env';
import type { TableName } from './store/schema';

export type RouteAuth = 'api-key' | 'admin';

/** A dependency backed by an AWS resource, and what a function using it gets: its grant and its variables. */
export type DependencyAccess =
  | { table: TableName; env: readonly LambdaEnvName[] }
  /** firehose:PutRecord/PutRecordBatch on this raw stream (lib/raw-streams.ts). */
  | { stream: 'events' | 'identities'; env: readonly LambdaEnvName[] }
  /** secretsmanager:GetSecretValue on the admin token secret. */
  | { secret: 'adminToken'; env: readonly LambdaEnvName[] }
  /** Athena queries over the raw tables: run them in the workgroup, read the Glue tables and raw objects, write results. */
  | { athena: true; env: readonly LambdaEnvName[] }
  /** API Gateway API keys and usage plans (the rate-limit registry): create and delete them. */
  | { apiKeys: true; env: readonly LambdaEnvName[] }
  /** These objects of the raw bucket: read (s3:GetObject: a presigned download link is signed with that right), or readWrite (and put, delete). */
  | { objects: 'exports'; env: readonly LambdaEnvName[] }
  /** A plain setting: no IAM, only its variables. */
  | { setting: true; env: readonly LambdaEnvName[] };

/** What each dependency a manifest line may list implies. The table variables are TABLE_<NAME> (tableEnvVar). */
export const DEPENDENCIES = {
  projects: { table: 'projects', env: ['TABLE_PROJECTS'] },
  keys: { table: 'api_keys', env: ['TABLE_API_KEYS'] },
  ledger: { table: 'events', env: ['TABLE_EVENTS', 'DEDUPE_WINDOW_DAYS'] },
  identities: { table: 'identities', env: ['TABLE_IDENTITIES'] },
  experiments: { table: 'experiments', env: ['TABLE_EXPERIMENTS'] },
  assignments: { table: 'assignments', env: ['TABLE_ASSIGNMENTS'] },
  results: { table: 'results', env: ['TABLE_RESULTS'] },
  sink: { stream: 'events', env: ['EVENTS_STREAM_NAME'] },
  identitySink: { stream: 'identities', env: ['IDENTITIES_STREAM_NAME'] },
  adminToken: { secret: 'adminToken', env: ['ADMIN_TOKEN_SECRET_ARN'] },
  resultsQuery: {
    athena: true,
    env: ['ATHENA_WORKGROUP', 'ATHENA_DATABASE', 'ATHENA_MAX_WAIT_SECONDS', 'RESULTS_ARRIVAL_ALLOWANCE_SECONDS', 'RESULTS_BASE_BUCKET'],
  },
  /** The recent-events listing: Athena over the raw events table's latest partitions; the window is DEDUPE_WINDOW_DAYS. */
  recentEvents: { athena: true, env: ['ATHENA_WORKGROUP', 'ATHENA_DATABASE', 'ATHENA_MAX_WAIT_SECONDS', 'DEDUPE_WINDOW_DAYS'] },
  /** The recent-users listing: the same Athena reads over the same window as the recent-events listing. */
  recentUsers: { athena: true, env: ['ATHENA_WORKGROUP', 'ATHENA_DATABASE', 'ATHENA_MAX_WAIT_SECONDS', 'DEDUPE_WINDOW_DAYS'] },
  /** The planning baseline: Athena over the raw events of the look-back's days and the identities, as the results read them. */
  planningBaselines: { athena: true, env: ['ATHENA_WORKGROUP', 'ATHENA_DATABASE', 'ATHENA_MAX_WAIT_SECONDS'] },
  /** Insights (docs/decisions/insights.md): Athena over the raw events and identities; the watermark is RESULTS_ARRIVAL_ALLOWANCE_SECONDS back. */
  insightEngine: { athena: true, env: ['ATHENA_WORKGROUP', 'ATHENA_DATABASE', 'RESULTS_ARRIVAL_ALLOWANCE_SECONDS'] },
  /** The insight queries started per project, which are the cache of their answers. */
  insightQueries: { table: 'insight_queries', env: ['TABLE_INSIGHT_QUERIES'] },
  /** The saved insights of each project. */
  savedInsights: { table: 'saved_insights', env: ['TABLE_SAVED_INSIGHTS'] },
  /** The dashboards of each project. */
  dashboards: { table: 'dashboards', env: ['TABLE_DASHBOARDS'] },
  /** The analyst views (unique_events): Athena DDL in the workgroup; the grant adds creating and dropping the views in the Glue database. */
  analyticsViews: { athena: true, env: ['ATHENA_WORKGROUP', 'ATHENA_DATABASE', 'ATHENA_MAX_WAIT_SECONDS', 'RAW_BUCKET'] },
  /**
   * The compaction job (docs/decisions/columnar-events.md): Athena in the workgroup, the Glue partitions
   * of the curated tables, landing/ and curated/ of the raw bucket (lib/grants.ts compactionStatements).
   */
  compaction: {
    athena: true,
    env: [
      'ATHENA_WORKGROUP',
      'ATHENA_DATABASE',
      'ATHENA_MAX_WAIT_SECONDS',
      'RAW_BUCKET',
      'COMPACTION_CLOSE_AFTER_SECONDS',
      'COMPACTION_GRACE_SECONDS',
      'LANDING_RETENTION_SECONDS',
      'KEEP_EVENTS_DAYS',
    ],
  },
  /** KEEP_EVENTS_DAYS: days events are kept (docs/decisions/retention.md); the results warn before a cut reaches a running experiment. */
  keepEventsDays: { setting: true, env: ['KEEP_EVENTS_DAYS'] },
  rateLimits: { apiKeys: true, env: ['RATE_LIMIT_REST_API_ID', 'RATE_LIMIT_STAGE', 'RATE_LIMIT_PLAN_PREFIX'] },
  /** EXPERIMENTS_CACHE_SECONDS: how long an instance may serve its copy of the running experiments. */
  experimentsCacheMs: { setting: true, env: ['EXPERIMENTS_CACHE_SECONDS'] },
  /** DASHBOARD_ORIGIN: the dashboard's origin (its CloudFront distribution), the only one admin responses allow (CORS). */
  dashboardOrigin: { setting: true, env: ['DASHBOARD_ORIGIN'] },
  /** People's deletions (docs/decisions/erasure.md): each request and its progress. */
  deletions: { table: 'deletions', env: ['TABLE_DELETIONS'] },
  /** People's exports (docs/decisions/erasure.md "Export"): each request and its progress. */
  exports: { table: 'exports', env: ['TABLE_EXPORTS'] },
  /** The export files (exports/ of the raw bucket): read to sign their download links; written and deleted by the compaction job. */
  exportFiles: { objects: 'exports', env: ['EXPORTS_BUCKET'] },
  /** The audit log of admin writes (docs/decisions/audit-log.md); AUDIT_RETENTION_DAYS is how long an entry stays. */
  audit: { table: 'audit_log', env: ['TABLE_AUDIT_LOG', 'AUDIT_RETENTION_DAYS'] },
  /** Sign-in of people (docs/decisions/admin-sign-in.md): the OIDC issuer and client their tokens are checked against; unset, the admin token only. */
  signIn: { setting: true, env: ['OIDC_ISSUER', 'OIDC_AUDIENCE', 'OIDC_GROUPS_CLAIM', 'OIDC_GROUP_ROLES'] },
} as const satisfies Partial<Record<keyof Deps, DependencyAccess>>;

export type DependencyName = keyof typeof DEPENDENCIES;
/** Every function gets these without listing them: they touch no AWS resource. */
export type AmbientDependency = 'clock' | 'geo';

/**
 * The access level a line grants a dependency: tables are read, read-write, or append (put and update
 * only, nothing read: the admin writes' audit log entries); the others have one level.
 */
export type AccessLevel<D extends DependencyName> = (typeof DEPENDENCIES)[D] extends { table: TableName }
  ? 'read' | 'readWrite' | 'append'
  : (typeof DEPENDENCIES)[D] extends { objects: string }
    ? 'read' | 'readWrite'
    : (typeof DEPENDENCIES)[D] extends { stream: string }
      ? 'write'
      : (typeof DEPENDENCIES)[D] extends { athena: true }
        ? 'query'
        : (typeof DEPENDENCIES)[D] extends { apiKeys: true }
          ? 'manage'
          : 'read';

export type Uses = { readonly [D in DependencyName]?: AccessLevel<D> };

interface FunctionLine {
  name: string;
  uses: Uses;
  /** Function timeout when the default (TallyStackProps.functionTimeout) is not enough. */
  timeoutSeconds?: number;
  /** Ships the geolocation database (TallyStackProps.geoipDatabase) with this function (GEOIP_DB_PATH). */
  geolocation?: true;
}

export interface Route extends FunctionLine {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** API Gateway resource path; {param} segments become pathParameters. */
  path: string;
  auth: RouteAuth;
  /**
   * Admin routes: the least role a signed-in caller needs (lambdas/domain/admin-role.ts): viewer reads
   * everything; analyst also runs and saves insights; experimenter also changes experiments (and runs
   * the Athena work behind them: plans, results refresh); admin also projects, keys, settings and deletions.
   * test/unit/route-roles.test.ts fails on an admin route without one.
   */
  role?: AdminRole;
}

/** API Gateway gives up on an integration after 29 s: a route doing Athena work gets just under it. */
const ATHENA_ROUTE_TIMEOUT = 28;

/** Admin routes authenticate with the admin token or a sign-in token, look their project up and answer CORS for the dashboard. */
const ADMIN = { projects: 'read', adminToken: 'read', signIn: 'read', dashboardOrigin: 'read' } as const;

/** Both ingestion paths: ledger, identity links, both raw streams, the running experiments (exposures). */
const INGEST = {
  ledger: 'readWrite',
  sink: 'write',
  identities: 'readWrite',
  identitySink: 'write',
  experiments: 'read',
  experimentsCacheMs: 'read',
} as const;

/** Every insights route: the engine and the queries started (the cache); one route per kind, and the poll. */
const INSIGHTS = { ...ADMIN, insightEngine: 'query', insightQueries: 'readWrite' } as const;

export const ROUTES = [
  { name: 'ingest-v1', method: 'POST', path: '/v1/events', auth: 'api-key', uses: INGEST, geolocation: true },
  { name: 'ingest-api', method: 'POST', path: '/api/events', auth: 'api-key', uses: INGEST, geolocation: true },
  {
    name: 'admin-projects-create',
    method: 'POST',
    path: '/admin/v1/projects',
    auth: 'admin',
    role: 'admin',
    uses: { ...ADMIN, audit: 'append', projects: 'readWrite' },
  },
  { name: 'admin-projects-list', method: 'GET', path: '/admin/v1/projects', auth: 'admin', role: 'viewer', uses: ADMIN },
  {
    name: 'admin-projects-update',
    method: 'PATCH',
    path: '/admin/v1/projects/{project_id}',
    auth: 'admin',
    role: 'admin',
    uses: { ...ADMIN, audit: 'append', projects: 'readWrite' },
  },
  {
    name: 'admin-keys-create',
    method: 'POST',
    path: '/admin/v1/projects/{project_id}/keys',
    auth: 'admin',
    role: 'admin',
    uses: { ...ADMIN, audit: 'append', keys: 'readWrite', rateLimits: 'manage' },
  },
  { name: 'admin-keys-list', method: 'GET', path: '/admin/v1/projects/{project_id}/keys', auth: 'admin', role: 'viewer', uses: { ...ADMIN, keys: 'read' } },
  {
    name: 'admin-keys-update',
    method: 'PATCH',
    path: '/admin/v1/projects/{project_id}/keys/{key_id}',
    auth: 'admin',
    role: 'admin',
    uses: { ...ADMIN, audit: 'append', keys: 'readWrite' },
  },
  {
    name: 'admin-keys-delete',
    method: 'DELETE',
    path: '/admin/v1/projects/{project_id}/keys/{key_id}',
    auth: 'admin',
    role: 'admin',
    uses: { ...ADMIN, audit: 'append', keys: 'readWrite', rateLimits: 'manage' },
  },
  {
    name: 'admin-events-list',
    method: 'GET',
    path: '/admin/v1/projects/{project_id}/events',
    auth: 'admin',
    role: 'viewer',
    uses: { ...ADMIN, recentEvents: 'query', identities: 'read' },
    timeoutSeconds: ATHENA_ROUTE_TIMEOUT,
  },
  {
    name: 'admin-event-names-list',
    method: 'GET',
    path: '/admin/v1/projects/{project_id}/event-names',
    auth: 'admin',
    role: 'viewer',
    uses: { ...ADMIN, recentEvents: 'query' },
    timeoutSeconds: ATHENA_ROUTE_TIMEOUT,
  },
  {
    name: 'admin-property-names-list',
    method: 'GET',
    path: '/admin/v1/projects/{project_id}/property-names',
    auth: 'admin',
    role: 'viewer',
    uses: { ...ADMIN, recentEvents: 'query' },
    timeoutSeconds: ATHENA_ROUTE_TIMEOUT,
  },
  {
    name: 'admin-users-list',
    method: 'GET',
    path: '/admin/v1/projects/{project_id}/users',
    auth: 'admin',
    role: 'viewer',
    uses: { ...ADMIN, recentUsers: 'query', identities: 'read' },
    timeoutSeconds: ATHENA_ROUTE_TIMEOUT,
  },
  {
    name: 'admin-users-get',
    method: 'GET',
    path: '/admin/v1/projects/{project_id}/users/{id}',
    auth: 'admin',
    role: 'viewer',
    uses: { ...ADMIN, identities: 'read' },
  },
  {
    name: 'experiments-assign',
    method: 'GET',
    path: '/v1/experiments',
    auth: 'api-key',
    uses: { experiments: 'read', assignments: 'readWrite', identities: 'readWrite', identitySink: 'write', experimentsCacheMs: 'read' },
  },
  { name: 'experiments-configs', method: 'GET', path: '/v1/experiments/configs', auth: 'api-key', uses: { experiments: 'read', experimentsCacheMs: 'read' } },
  {
    name: 'admin-experiments-create',
    method: 'POST',
    path: '/admin/v1/projects/{project_id}/experiments',
    auth: 'admin',
    role: 'experimenter',
    uses: { ...ADMIN, audit: 'append', experiments: 'readWrite' },
  },
  {
    name: 'admin-experiments-list',
    method: 'GET',
    path: '/admin/v1/projects/{project_id}/experiments',
    auth: 'admin',
    role: 'viewer',
    uses: { ...ADMIN, experiments: 'read', results: 'read' },
  },
  {
    name: 'admin-experiments-get',
    method: 'GET',
    path: '/admin/v1/projects/{project_id}/experiments/{id}',
    auth: 'admin',
    role: 'viewer',
    uses: { ...ADMIN, experiments: 'read' },
  },
  {
    name: 'admin-experiments-update',
    method: 'PATCH',
    path: '/admin/v1/projects/{project_id}/experiments/{id}',
    auth: 'admin',
    role: 'experimenter',
    uses: { ...ADMIN, audit: 'append', experiments: 'readWrite' },
  },
  {
    name: 'admin-experiments-start',
    method: 'POST',
    path: '/admin/v1/projects/{project_id}/experiments/{id}/start',
    auth: 'admin',
    role: 'experimenter',
    uses: { ...ADMIN, audit: 'append', experiments: 'readWrite' },
  },
  {
    name: 'admin-experiments-stop',
    method: 'POST',
    path: '/admin/v1/projects/{project_id}/experiments/{id}/stop',
    auth: 'admin',
    role: 'experimenter',
    uses: { ...ADMIN, audit: 'append', experiments: 'readWrite' },
  },
  {
    name: 'admin-plan-compute',
    method: 'POST',
    path: '/admin/v1/projects/{project_id}/plan',
    auth: 'admin',
    role: 'experimenter',
    uses: { ...ADMIN, audit: 'append', experiments: 'read', planningBaselines: 'query' },
    timeoutSeconds: ATHENA_ROUTE_TIMEOUT,
  },
  {
    name: 'admin-insights-trends',
    method: 'POST',
    path: '/admin/v1/projects/{project_id}/insights/trends',
    auth: 'admin',
    role: 'analyst',
    uses: { ...INSIGHTS, audit: 'append' },
    timeoutSeconds: ATHENA_ROUTE_TIMEOUT,
  },
  {
    name: 'admin-insights-funnels',
    method: 'POST',
    path: '/admin/v1/projects/{project_id}/insights/funnels',
    auth: 'admin',
    role: 'analyst',
    uses: { ...INSIGHTS, audit: 'append' },
    timeoutSeconds: ATHENA_ROUTE_TIMEOUT,
  },
  {
    name: 'admin-insights-retention',
    method: 'POST',
    path: '/admin/v1/projects/{project_id}/insights/retention',
    auth: 'admin',
    role: 'analyst',
    uses: { ...INSIGHTS, audit: 'append' },
    timeoutSeconds: ATHENA_ROUTE_TIMEOUT,
  },
  {
    name: 'admin-insights-query-get',
    method: 'GET',
    path: '/admin/v1/projects/{project_id}/insights/queries/{query_id}',
    auth: 'admin',
    role: 'viewer',
    uses: INSIGHTS,
    timeoutSeconds: ATHENA_ROUTE_TIMEOUT,
  },
  {
    name: 'admin-saved-insights-create',
    method: 'POST',
    path: '/admin/v1/projects/{project_id}/saved-insights',
    auth: 'admin',
    role: 'analyst',
    uses: { ...ADMIN, audit: 'append', savedInsights: 'readWrite' },
  },
  {
    name: 'admin-saved-insights-list',
    method: 'GET',
    path: '/admin/v1/projects/{project_id}/saved-insights',
    auth: 'admin',
    role: 'viewer',
    uses: { ...ADMIN, savedInsights: 'read' },
  },
  {
    name: 'admin-saved-insights-get',
    method: 'GET',
    path: '/admin/v1/projects/{project_id}/saved-insights/{insight_id}',
    auth: 'admin',
    role: 'viewer',
    uses: { ...ADMIN, savedInsights: 'read' },
  },
  {
    name: 'admin-saved-insights-update',
    method: 'PATCH',
    path: '/admin/v1/projects/{project_id}/saved-insights/{insight_id}',
    auth: 'admin',
    role: 'analyst',
    uses: { ...ADMIN, audit: 'append', savedInsights: 'readWrite' },
  },
  {
    name: 'admin-saved-insights-delete',
    method: 'DELETE',
    path: '/admin/v1/projects/{project_id}/saved-insights/{insight_id}',
    auth: 'admin',
    role: 'analyst',
    uses: { ...ADMIN, audit: 'append', savedInsights: 'readWrite' },
  },
  {
    name: 'admin-dashboards-create',
    method: 'POST',
    path: '/admin/v1/projects/{project_id}/dashboards',
    auth: 'admin',
    role: 'analyst',
    uses: { ...ADMIN, audit: 'append', dashboards: 'readWrite', savedInsights: 'read' },
  },
  {
    name: 'admin-dashboards-list',
    method: 'GET',
    path: '/admin/v1/projects/{project_id}/dashboards',
    auth: 'admin',
    role: 'viewer',
    uses: { ...ADMIN, dashboards: 'read' },
  },
  {
    name: 'admin-dashboards-get',
    method: 'GET',
    path: '/admin/v1/projects/{project_id}/dashboards/{dashboard_id}',
    auth: 'admin',
    role: 'viewer',
    uses: { ...ADMIN, dashboards: 'read', savedInsights: 'read' },
  },
  {
    name: 'admin-dashboards-update',
    method: 'PATCH',
    path: '/admin/v1/projects/{project_id}/dashboards/{dashboard_id}',
    auth: 'admin',
    role: 'analyst',
    uses: { ...ADMIN, audit: 'append', dashboards: 'readWrite', savedInsights: 'read' },
  },
  {
    name: 'admin-dashboards-delete',
    method: 'DELETE',
    path: '/admin/v1/projects/{project_id}/dashboards/{dashboard_id}',
    auth: 'admin',
    role: 'analyst',
    uses: { ...ADMIN, audit: 'append', dashboards: 'readWrite' },
  },
  {
    name: 'admin-results-get',
    method: 'GET',
    path: '/admin/v1/projects/{project_id}/experiments/{id}/results',
    auth: 'admin',
    role: 'viewer',
    uses: { ...ADMIN, experiments: 'read', results: 'read', keepEventsDays: 'read' },
  },
  {
    name: 'admin-results-refresh',
    method: 'POST',
    path: '/admin/v1/projects/{project_id}/experiments/{id}/results/refresh',
    auth: 'admin',
    role: 'experimenter',
    uses: { ...ADMIN, audit: 'append', experiments: 'read', results: 'readWrite', resultsQuery: 'query' },
    timeoutSeconds: ATHENA_ROUTE_TIMEOUT,
  },
  {
    name: 'admin-audit-list',
    method: 'GET',
    path: '/admin/v1/audit',
    auth: 'admin',
    role: 'admin',
    uses: { adminToken: 'read', signIn: 'read', dashboardOrigin: 'read', audit: 'read' },
  },
  {
    name: 'admin-deletions-create',
    method: 'POST',
    path: '/admin/v1/projects/{project_id}/deletions',
    auth: 'admin',
    role: 'admin',
    uses: { ...ADMIN, audit: 'append', deletions: 'readWrite', identities: 'readWrite' },
  },
  {
    name: 'admin-deletions-list',
    method: 'GET',
    path: '/admin/v1/projects/{project_id}/deletions',
    auth: 'admin',
    role: 'admin',
    uses: { ...ADMIN, deletions: 'read' },
  },
  {
    name: 'admin-deletions-get',
    method: 'GET',
    path: '/admin/v1/projects/{project_id}/deletions/{deletion_id}',
    auth: 'admin',
    role: 'admin',
    uses: { ...ADMIN, deletions: 'read' },
  },
  {
    name: 'admin-exports-create',
    method: 'POST',
    path: '/admin/v1/projects/{project_id}/exports',
    auth: 'admin',
    role: 'admin',
    uses: { ...ADMIN, audit: 'append', exports: 'readWrite' },
  },
  {
    name: 'admin-exports-list',
    method: 'GET',
    path: '/admin/v1/projects/{project_id}/exports',
    auth: 'admin',
    role: 'admin',
    uses: { ...ADMIN, exports: 'read', exportFiles: 'read' },
  },
  {
    name: 'admin-exports-get',
    method: 'GET',
    path: '/admin/v1/projects/{project_id}/exports/{export_id}',
    auth: 'admin',
    role: 'admin',
    uses: { ...ADMIN, exports: 'read', exportFiles: 'read' },
  },
] as const satisfies readonly Route[];

export type RouteName = (typeof ROUTES)[number]['name'];

export interface Job extends FunctionLine {
  description: string;
}

/**
 * Functions outside the API, entry file lambdas/entry/<name>.ts: the results job (on a schedule,
 * EventBridge) and the analyst views (a CloudFormation custom resource: run by each deploy).
 */
export const JOBS = [
  {
    name: 'results-job',
    description: 'Tally results job: recomputes the results of running experiments with Athena',
    uses: { projects: 'read', experiments: 'read', results: 'readWrite', resultsQuery: 'query' },
    timeoutSeconds: 600,
  },
  {
    name: 'compact-landing',
    description: 'Tally compaction job: takes closed landing hours into the curated Parquet partitions with Athena',
    // People's deletions run after compaction (services/erase-people.ts): the tables holding their IDs.
    uses: {
      compaction: 'query',
      deletions: 'readWrite',
      identities: 'readWrite',
      assignments: 'readWrite',
      experiments: 'read',
      results: 'readWrite',
      insightQueries: 'readWrite',
      // People's exports run after the deletions (services/export-people.ts); a deletion removes the person's.
      exports: 'readWrite',
      exportFiles: 'readWrite',
    },
    timeoutSeconds: 900,
  },
  {
    name: 'analytics-views',
    description: 'Tally analyst views: creates the Athena views (unique_events) at deploy',
    uses: { analyticsViews: 'query' },
    timeoutSeconds: 300,
  },
] as const satisfies readonly Job[];

export type JobName = (typeof JOBS)[number]['name'];

/**
 * The API key authorizer reads keys and nothing else. Its entry wires its one store itself (its cold
 * start is on every public request's path); its own variables are AUTHORIZER_ENV.
 */
export const AUTHORIZER = { name: 'authorizer', uses: { keys: 'read' } } as const satisfies FunctionLine;
export const AUTHORIZER_ENV = ['KEY_CACHE_TTL_SECONDS', 'UNAUTHENTICATED_USAGE_KEY', 'ORIGIN_SECRET_ARN'] as const satisfies readonly LambdaEnvName[];

export type FunctionName = RouteName | JobName | 'authorizer';
type Line = (typeof ROUTES)[number] | (typeof JOBS)[number] | typeof AUTHORIZER;

/** Every function of the stack, in one list: routes, jobs, the authorizer. */
export const FUNCTIONS: readonly Line[] = [...ROUTES, ...JOBS, AUTHORIZER];

export function functionLine<N extends FunctionName>(name: N): Extract<Line, { name: N }> {
  const line = FUNCTIONS.find((f) => f.name === name);
  if (!line) throw new Error(`${name} is not in the route manifest (lambdas/routes.ts)`);
  return line as Extract<Line, { name: N }>;
}

/** The least role an admin route needs (its line's role); a route without one is refused to everyone but the admin token. */
export function roleOf(route: Pick<Route, 'name' | 'role'>): AdminRole {
  return route.role ?? 'admin';
}

/** The dependencies a function's line lists. */
export type UsedBy<N extends FunctionName> = keyof Extract<Line, { name: N }>['uses'] & DependencyName;

/** What a function's handler may be given: the dependencies its line lists, and the ambient ones. */
export type RouteDeps<N extends FunctionName> = Pick<Deps, UsedBy<N> | AmbientDependency>;

/** The variables a function reads: those of its dependencies, GEOIP_DB_PATH with geolocation. */
export function envOf(line: FunctionLine): LambdaEnvName[] {
  const deps = Object.keys(line.uses) as DependencyName[];
  return [...new Set([...deps.flatMap((d) => DEPENDENCIES[d].env), ...(line.geolocation ? (['GEOIP_DB_PATH'] as const) : [])])];
}
