/**
 * Wiring for the Lambda entry files: AWS clients and stores from the environment the CDK stack sets.
 * Each entry names what it needs; missing variables fail the cold start with their names, so a
 * misconfigured deployment shows up on its first invocation log line rather than as odd behaviour.
 */
import { FirehoseClient } from '@aws-sdk/client-firehose';
import * as z from 'zod';
import type { Deps } from '../deps';
import { DynamoApiKeyStore } from '../store/api-key-store';
import { documentClient } from '../store/dynamo-client';
import { DynamoEventLedger } from '../store/event-ledger';
import { FirehoseRawStream } from '../store/firehose-raw-stream';
import { rateLimitsFromEnv } from '../adapters/apigw-rate-limits';
import { cachedSecretReader } from '../adapters/secret-reader';
import { NO_RATE_LIMIT_REGISTRY } from '../adapters/no-rate-limit-registry';
import { DynamoProjectStore } from '../store/project-store';
import { geoLookupFor } from '../adapters/geo-mmdb';
import { DynamoIdentityStore } from '../store/identity-store';
import { DynamoExperimentStore } from '../store/experiment-store';
import { DynamoAssignmentStore } from '../store/assignment-store';
import { DynamoResultsStore } from '../store/results-store';
import { AthenaClient } from '@aws-sdk/client-athena';
import { AthenaResultsQuery } from '../adapters/athena-results-query';

const ENV = {
  TABLE_PROJECTS: z.string().min(1),
  TABLE_API_KEYS: z.string().min(1),
  TABLE_EVENTS: z.string().min(1),
  TABLE_IDENTITIES: z.string().min(1),
  TABLE_EXPERIMENTS: z.string().min(1),
  TABLE_ASSIGNMENTS: z.string().min(1),
  EXPERIMENTS_CACHE_SECONDS: z.coerce.number().min(0).max(60),
  TABLE_RESULTS: z.string().min(1),
  ATHENA_WORKGROUP: z.string().min(1),
  ATHENA_DATABASE: z.string().min(1),
  ATHENA_MAX_WAIT_SECONDS: z.coerce.number().int().positive(),
  EVENTS_STREAM_NAME: z.string().min(1),
  IDENTITIES_STREAM_NAME: z.string().min(1),
  EVENTS_RETENTION_DAYS: z.coerce.number().int().positive(),
  ADMIN_TOKEN_SECRET_ARN: z.string().min(1),
} as const;
type EnvName = keyof typeof ENV;

/** Which environment variables each dependency needs. */
const NEEDS: Partial<Record<keyof Deps, EnvName[]>> = {
  projects: ['TABLE_PROJECTS'],
  keys: ['TABLE_API_KEYS'],
  ledger: ['TABLE_EVENTS', 'EVENTS_RETENTION_DAYS'],
  sink: ['EVENTS_STREAM_NAME'],
  identities: ['TABLE_IDENTITIES'],
  identitySink: ['IDENTITIES_STREAM_NAME'],
  experiments: ['TABLE_EXPERIMENTS'],
  assignments: ['TABLE_ASSIGNMENTS'],
  experimentsCacheMs: ['EXPERIMENTS_CACHE_SECONDS'],
  results: ['TABLE_RESULTS'],
  resultsQuery: ['ATHENA_WORKGROUP', 'ATHENA_DATABASE', 'ATHENA_MAX_WAIT_SECONDS'],
  adminToken: ['ADMIN_TOKEN_SECRET_ARN'],
};

export function loadEnv(names: EnvName[], source: NodeJS.ProcessEnv = process.env): Record<EnvName, string> {
  const shape = Object.fromEntries(names.map((n) => [n, ENV[n]]));
  const parsed = z.object(shape).safeParse(source);
  if (!parsed.success) {
    const missing = parsed.error.issues.map((i) => i.path.join('.')).join(', ');
    throw new Error(`Invalid or missing environment variables: ${missing}`);
  }
  return parsed.data as Record<EnvName, string>;
}

/** Builds the dependencies an entry file asks for; the others throw if a handler touches them. */
export function awsDeps(needs: Array<keyof Deps>): Deps {
  const env = loadEnv([...new Set(needs.flatMap((n) => NEEDS[n] ?? []))]);
  const ddb = documentClient();
  const unavailable = (name: string) => () => {
    throw new Error(`${name} is not wired into this function`);
  };
  // GEOIP_DB_PATH: a City MMDB shipped with the function (README "Geolocation"); unset, locations are null.
  const deps: Partial<Deps> = { clock: Date.now, geo: geoLookupFor(process.env.GEOIP_DB_PATH || undefined), rateLimits: NO_RATE_LIMIT_REGISTRY };
  if (needs.includes('projects')) deps.projects = new DynamoProjectStore(ddb, env.TABLE_PROJECTS);
  if (needs.includes('keys')) deps.keys = new DynamoApiKeyStore(ddb, env.TABLE_API_KEYS);
  if (needs.includes('ledger')) {
    deps.ledger = new DynamoEventLedger(ddb, env.TABLE_EVENTS, { retentionDays: Number(env.EVENTS_RETENTION_DAYS) });
  }
  const firehose = new FirehoseClient({});
  if (needs.includes('sink')) deps.sink = new FirehoseRawStream(firehose, env.EVENTS_STREAM_NAME);
  if (needs.includes('identities')) deps.identities = new DynamoIdentityStore(ddb, env.TABLE_IDENTITIES);
  if (needs.includes('identitySink')) deps.identitySink = new FirehoseRawStream(firehose, env.IDENTITIES_STREAM_NAME);
  if (needs.includes('experiments')) deps.experiments = new DynamoExperimentStore(ddb, env.TABLE_EXPERIMENTS);
  if (needs.includes('assignments')) deps.assignments = new DynamoAssignmentStore(ddb, env.TABLE_ASSIGNMENTS);
  if (needs.includes('results')) deps.results = new DynamoResultsStore(ddb, env.TABLE_RESULTS);
  if (needs.includes('resultsQuery')) {
    deps.resultsQuery = new AthenaResultsQuery(new AthenaClient({}), {
      workGroup: env.ATHENA_WORKGROUP,
      database: env.ATHENA_DATABASE,
      maxWaitMs: Number(env.ATHENA_MAX_WAIT_SECONDS) * 1000,
    });
  }
  deps.experimentsCacheMs = needs.includes('experimentsCacheMs') ? Number(env.EXPERIMENTS_CACHE_SECONDS) * 1000 : 0;
  // RATE_LIMIT_* variables, checked by rateLimitsFromEnv (lambdas/store/apigw-rate-limits.ts).
  if (needs.includes('rateLimits')) deps.rateLimits = rateLimitsFromEnv();
  deps.adminToken = needs.includes('adminToken') ? cachedSecretReader(env.ADMIN_TOKEN_SECRET_ARN, 'The admin token secret') : unavailable('adminToken');
  return deps as Deps;
}
