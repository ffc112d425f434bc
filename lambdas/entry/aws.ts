/**
 * Wiring for the Lambda entry files: each function gets the dependencies its line of the route
 * manifest (lambdas/routes.ts) lists, built from the environment variables the stack sets for them
 * (lambdas/lambda-env.ts). Missing variables fail the cold start with their names, so a misconfigured
 * deployment shows up on its first invocation log line rather than as odd behaviour.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Deps } from '../deps';
import { readLambdaEnv, type LambdaEnv, type LambdaEnvName } from '../lambda-env';
import { envOf, functionLine, type DependencyName, type FunctionName, type RouteDeps, type UsedBy } from '../routes';
import { ExperimentCatalog } from '../services/experiment-catalog';
import { DynamoApiKeyStore } from '../store/api-key-store';
import { documentClient } from '../store/dynamo-client';
import { firehoseClient } from '../store/firehose-client';
import { DynamoEventLedger } from '../store/event-ledger';
import { FirehoseRawStream } from '../store/firehose-raw-stream';
import { DynamoProjectStore } from '../store/project-store';
import { geoLookupFor } from '../adapters/geo-mmdb';
import { DynamoIdentityStore } from '../store/identity-store';
import { DynamoExperimentStore } from '../store/experiment-store';
import { DynamoAssignmentStore } from '../store/assignment-store';

/**
 * Dependencies with heavy clients (Athena and its SQL, API Gateway, Secrets Manager, jose), and the stores only the
 * admin routes and the jobs use: the entries using them pass their wiring (lambdas/entry/athena.ts,
 * lambdas/entry/rate-limits.ts, lambdas/entry/secrets.ts, lambdas/entry/admin-stores.ts), so the other bundles (the
 * ingestion and SDK routes, the authorizer) neither carry nor load them. The type checker asks exactly the functions
 * whose line lists one for it.
 */
export type SeparatelyWired =
  | 'resultsQuery'
  | 'recentEvents'
  | 'recentUsers'
  | 'planningBaselines'
  | 'insightEngine'
  | 'analyticsViews'
  | 'compaction'
  | 'rateLimits'
  | 'adminToken'
  | 'signIn'
  | 'exportFiles'
  | AdminStore;
/** The DynamoDB stores only the admin routes and the jobs use (lambdas/entry/admin-stores.ts). */
export type AdminStore = 'results' | 'insightQueries' | 'savedInsights' | 'dashboards' | 'audit' | 'deletions' | 'exports';
/** How an entry builds a dependency: from the function's environment and the process's one DynamoDB document client. */
export type Wiring<D extends SeparatelyWired> = (env: LambdaEnv<LambdaEnvName>, ddb: DynamoDBDocumentClient) => Deps[D];
type WiringOf<N extends FunctionName> = { [D in UsedBy<N> & SeparatelyWired]: Wiring<D> };
type WiringArgs<N extends FunctionName> = [UsedBy<N> & SeparatelyWired] extends [never] ? [] : [wiring: WiringOf<N>];

/** A factory whose declared dependencies leave out some its manifest line lists: the line grants more than the handler uses. */
type NoUnused<N extends FunctionName, F> = F extends (deps: infer P) => unknown
  ? [Exclude<UsedBy<N>, keyof P>] extends [never]
    ? unknown
    : { 'the manifest line lists dependencies this handler does not take': Exclude<UsedBy<N>, keyof P> }
  : unknown;

/**
 * The handler of one function of the manifest: `factory` receives the dependencies its line lists
 * (and clock, geo). The type checker refuses a factory needing more, and a factory (named, with its
 * own Deps type) taking fewer than the line lists, which would grant more than the handler uses.
 */
export function lambdaHandler<N extends FunctionName, F extends (deps: RouteDeps<N>) => unknown>(
  name: N,
  factory: F & NoUnused<N, F>,
  ...wiring: WiringArgs<N>
): ReturnType<F> {
  return factory(awsDeps(name, (wiring[0] ?? {}) as Partial<{ [D in SeparatelyWired]: Wiring<D> }>) as RouteDeps<N>) as ReturnType<F>;
}

/** Builds the dependencies a function's manifest line lists; the others are absent. */
export function awsDeps(name: FunctionName, wiring: Partial<{ [D in SeparatelyWired]: Wiring<D> }> = {}): Partial<Deps> {
  const line = functionLine(name);
  const uses = (dep: DependencyName) => dep in line.uses;
  const env = readLambdaEnv(envOf(line));
  const separately = <D extends SeparatelyWired>(dep: D): Deps[D] => {
    const wire = wiring[dep] as Wiring<D> | undefined;
    if (!wire) throw new Error(`${name} uses ${dep}: pass its wiring to lambdaHandler`);
    return wire(env, ddb);
  };
  const ddb = documentClient();
  // GEOIP_DB_PATH: a City MMDB shipped with the function (docs/data-model.md, "Geolocation"); unset, locations are null.
  const deps: Partial<Deps> = { clock: Date.now, geo: geoLookupFor(env.GEOIP_DB_PATH) };
  if (uses('projects')) deps.projects = new DynamoProjectStore(ddb, env.TABLE_PROJECTS);
  if (uses('keys')) deps.keys = new DynamoApiKeyStore(ddb, env.TABLE_API_KEYS);
  if (uses('ledger')) deps.ledger = new DynamoEventLedger(ddb, env.TABLE_EVENTS, { dedupeWindowDays: env.DEDUPE_WINDOW_DAYS });
  if (uses('sink') || uses('identitySink')) {
    const client = firehoseClient();
    if (uses('sink')) deps.sink = new FirehoseRawStream(client, env.EVENTS_STREAM_NAME);
    if (uses('identitySink')) deps.identitySink = new FirehoseRawStream(client, env.IDENTITIES_STREAM_NAME);
  }
  if (uses('identities')) deps.identities = new DynamoIdentityStore(ddb, env.TABLE_IDENTITIES);
  if (uses('experiments')) deps.experiments = new DynamoExperimentStore(ddb, env.TABLE_EXPERIMENTS);
  if (uses('assignments')) deps.assignments = new DynamoAssignmentStore(ddb, env.TABLE_ASSIGNMENTS);
  if (uses('results')) deps.results = separately('results');
  if (uses('resultsQuery')) deps.resultsQuery = separately('resultsQuery');
  if (uses('recentEvents')) deps.recentEvents = separately('recentEvents');
  if (uses('recentUsers')) deps.recentUsers = separately('recentUsers');
  if (uses('planningBaselines')) deps.planningBaselines = separately('planningBaselines');
  if (uses('insightEngine')) deps.insightEngine = separately('insightEngine');
  if (uses('insightQueries')) deps.insightQueries = separately('insightQueries');
  if (uses('savedInsights')) deps.savedInsights = separately('savedInsights');
  if (uses('dashboards')) deps.dashboards = separately('dashboards');
  if (uses('analyticsViews')) deps.analyticsViews = separately('analyticsViews');
  if (uses('compaction')) deps.compaction = separately('compaction');
  if (uses('experimentsCacheMs')) deps.experimentsCacheMs = env.EXPERIMENTS_CACHE_SECONDS * 1000;
  if (uses('rateLimits')) deps.rateLimits = separately('rateLimits');
  if (uses('keepEventsDays') && env.KEEP_EVENTS_DAYS !== undefined) deps.keepEventsDays = env.KEEP_EVENTS_DAYS;
  if (uses('dashboardOrigin') && env.DASHBOARD_ORIGIN) deps.dashboardOrigin = env.DASHBOARD_ORIGIN;
  if (uses('adminToken')) deps.adminToken = separately('adminToken');
  if (uses('audit')) deps.audit = separately('audit');
  if (uses('deletions')) deps.deletions = separately('deletions');
  if (uses('exports')) deps.exports = separately('exports');
  if (uses('exportFiles')) deps.exportFiles = separately('exportFiles');
  if (uses('signIn')) {
    const signIn = separately('signIn');
    if (signIn) deps.signIn = signIn;
  }
  return deps;
}

/** The running-experiments cache of the ingestion and experiment routes. */
export function withCatalog<D extends Pick<Deps, 'experiments' | 'experimentsCacheMs'>>(deps: D): D & { catalog: ExperimentCatalog } {
  return { ...deps, catalog: new ExperimentCatalog(deps.experiments, deps.experimentsCacheMs) };
}
