/**
 * Every environment variable a Lambda function reads, declared once: name, how its value is parsed
 * and checked, and (in its doc comment) what it means. The stack sets exactly these (lib/grants.ts, lib/tally-stack.ts,
 * lib/function.ts) and the entries read them with readLambdaEnv (lambdas/entry/aws.ts and
 * lambdas/entry/authorizer.ts); test/stack/env.test.ts checks that every variable a function gets is
 * declared here. Which function gets which variable follows from the route manifest (lambdas/routes.ts).
 *
 * The parsers are a few lines of plain code rather than zod schemas: the authorizer runs before every
 * public request and must stay small (zod would add about 90 KB to its 9 KB bundle), and the descriptions are doc comments so that no
 * bundle carries them.
 * Plain data and parsers: this file imports nothing but the table layouts and the origin check.
 */
import { isOrigin } from './contract/cors';
import { MAX_KEEP_EVENTS_DAYS, MIN_KEEP_EVENTS_DAYS } from './domain/event-retention';
import { parseGroupRoles, type GroupRoles } from './domain/group-roles';
import { TABLES, tableEnvVar, type TableName } from './store/schema';

/** How a variable is read: whether it must be set, and a parser returning the value or what is wrong with the text. */
export interface LambdaVar<T, R extends boolean = boolean> {
  /** Unset or empty: the function fails its cold start with the variable's name. */
  required: R;
  parse: (raw: string) => T | { problem: string };
}

const text: LambdaVar<string, true> = { required: true, parse: (raw) => raw };
const optionalText: LambdaVar<string, false> = { required: false, parse: (raw) => raw };
const wholeNumber = (min: number, max = Number.MAX_SAFE_INTEGER): LambdaVar<number, true> => ({
  required: true,
  parse: (raw) => {
    const n = Number(raw);
    return Number.isInteger(n) && n >= min && n <= max ? n : { problem: `must be a whole number from ${min} to ${max}` };
  },
});
const optional = <T>(v: LambdaVar<T>): LambdaVar<T, false> => ({ ...v, required: false });
const number = (min: number, max: number): LambdaVar<number, true> => ({
  required: true,
  parse: (raw) => {
    const n = raw.trim() === '' ? NaN : Number(raw);
    return Number.isFinite(n) && n >= min && n <= max ? n : { problem: `must be a number from ${min} to ${max}` };
  },
});

/** An origin (scheme://host[:port], lower case, no path), as lambdas/contract/cors.ts isOrigin checks. */
const origin: LambdaVar<string, true> = {
  required: true,
  parse: (raw) => (isOrigin(raw) ? raw : { problem: 'must be an origin such as https://d111111abcdef8.cloudfront.net' }),
};

const groupRoles: LambdaVar<GroupRoles, true> = { required: true, parse: parseGroupRoles };

const TABLE_VARS = Object.fromEntries((Object.keys(TABLES) as TableName[]).map((name) => [tableEnvVar(name), text])) as Record<
  `TABLE_${Uppercase<TableName>}`,
  LambdaVar<string, true>
>;

export const LAMBDA_ENV = {
  /** TABLE_<NAME>: the physical name of each DynamoDB table (lambdas/store/schema.ts). */
  ...TABLE_VARS,
  /** Days the events ledger keeps an event's claim, the deduplication window (TallyStackProps.dedupeWindowDays). */
  DEDUPE_WINDOW_DAYS: wholeNumber(1),
  /** Firehose delivery stream of the raw events (lib/raw-streams.ts). */
  EVENTS_STREAM_NAME: text,
  /** Firehose delivery stream of the identity links (lib/raw-streams.ts). */
  IDENTITIES_STREAM_NAME: text,
  /** Seconds an instance serves its copy of the running experiments (TallyStackProps.experimentsCacheTtl). */
  EXPERIMENTS_CACHE_SECONDS: number(0, 60),
  /** Athena workgroup the results queries run in. */
  ATHENA_WORKGROUP: text,
  /** Glue database holding the raw tables. */
  ATHENA_DATABASE: text,
  /** How long a results query may run: the function timeout minus time to answer (lib/grants.ts athenaMaxWaitSeconds). */
  ATHENA_MAX_WAIT_SECONDS: wholeNumber(1),
  /** Admin routes: the dashboard's origin (https://<distribution>.cloudfront.net), the only one their CORS headers allow. */
  DASHBOARD_ORIGIN: optional(origin),
  /**
   * The incremental results job's arrival allowance: how long after its arrival an event may reach S3
   * (twice 1.5 x the Firehose buffering interval plus its S3 retry duration; lib/grants.ts arrivalAllowanceSeconds).
   */
  RESULTS_ARRIVAL_ALLOWANCE_SECONDS: wholeNumber(1),
  /** The bucket holding the results job's state and base (the raw bucket): the base commits and generations it writes and deletes. */
  RESULTS_BASE_BUCKET: text,
  /** The raw bucket (lib/raw-streams.ts): landing/ and curated/ with the compaction state (contract/landing.ts). */
  RAW_BUCKET: text,
  /** The bucket of people's export files, under exports/ (lambdas/adapters/s3-export-files.ts): the raw bucket. */
  EXPORTS_BUCKET: text,
  /** How long after a landing hour ends the compaction job still waits for objects in it (lib/grants.ts compactionCloseAfterSeconds). */
  COMPACTION_CLOSE_AFTER_SECONDS: wholeNumber(1),
  /** How long a superseded curated generation stays readable (the longest Athena query; lib/grants.ts COMPACTION_GRACE_SECONDS). */
  COMPACTION_GRACE_SECONDS: wholeNumber(1),
  /** How long a compacted landing hour is kept after it ends (the results job reads new events from landing). */
  LANDING_RETENTION_SECONDS: wholeNumber(1),
  /**
   * Days events are kept (TallyStackProps.keepEventsDays; docs/decisions/retention.md): the compaction
   * job removes older event days; unset, events are kept forever. Not DEDUPE_WINDOW_DAYS (the ledger's claims).
   */
  KEEP_EVENTS_DAYS: optional(wholeNumber(MIN_KEEP_EVENTS_DAYS, MAX_KEEP_EVENTS_DAYS)),
  /** Admin writes and the audit listing: days an audit log entry is kept (TallyStackProps.auditRetentionDays). */
  AUDIT_RETENTION_DAYS: wholeNumber(1),
  /** Admin routes: the OIDC issuer whose tokens sign people in (tokens' iss); unset, only the admin token is accepted. */
  OIDC_ISSUER: optionalText,
  /** Admin routes: the client ID sign-in tokens must be for (an ID token's aud, a Cognito access token's client_id). */
  OIDC_AUDIENCE: optionalText,
  /** Admin routes: the claim listing a person's groups; cognito:groups when unset. */
  OIDC_GROUPS_CLAIM: optionalText,
  /** Admin routes: group=role pairs, comma-separated (lambdas/domain/group-roles.ts); unset, a group named like a role is that role. */
  OIDC_GROUP_ROLES: optional(groupRoles),
  /** Secrets Manager secret holding the admin API bearer token. */
  ADMIN_TOKEN_SECRET_ARN: text,
  /** REST API whose usage plans hold the per-key rate limits (lambdas/store/apigw-rate-limits.ts RATE_LIMIT_ENV). */
  RATE_LIMIT_REST_API_ID: text,
  /** Stage name the usage plans apply to. */
  RATE_LIMIT_STAGE: text,
  /** Prefix of the usage plan names. */
  RATE_LIMIT_PLAN_PREFIX: text,
  /** Authorizer: seconds a looked-up key record is reused, 60 when unset (TallyStackProps.keyCacheTtl). */
  KEY_CACHE_TTL_SECONDS: optional(wholeNumber(0)),
  /** Authorizer: the API key value that lets a request without a valid key reach its handler's 401. */
  UNAUTHENTICATED_USAGE_KEY: optionalText,
  /** Authorizer, with CloudFront only: the secret holding the origin header value. */
  ORIGIN_SECRET_ARN: optionalText,
  /** Ingestion functions: the MaxMind City database shipped with the function; unset, locations are null. */
  GEOIP_DB_PATH: optionalText,
  /** Level of the JSON logs: debug, info, warn, error or silent (lambdas/http/log.ts reads it). */
  TALLY_LOG_LEVEL: optionalText,
  /** --enable-source-maps, so stack traces name source files (lib/function.ts). */
  NODE_OPTIONS: optionalText,
} as const satisfies Record<string, LambdaVar<unknown>>;

export type LambdaEnvName = keyof typeof LAMBDA_ENV;
type ValueOf<N extends LambdaEnvName> = (typeof LAMBDA_ENV)[N] extends LambdaVar<infer T, boolean> ? T : never;
export type LambdaEnv<N extends LambdaEnvName> = { [K in N as (typeof LAMBDA_ENV)[K]['required'] extends true ? K : never]: ValueOf<K> } & {
  [K in N as (typeof LAMBDA_ENV)[K]['required'] extends true ? never : K]?: ValueOf<K>;
};

/**
 * Reads and checks the named variables. Any missing or invalid one fails the cold start with every
 * such name, so a misconfigured deployment shows on its first log line, not as odd behaviour.
 * An empty value counts as unset.
 */
export function readLambdaEnv<N extends LambdaEnvName>(names: readonly N[], source: Record<string, string | undefined> = process.env): LambdaEnv<N> {
  const out: Record<string, unknown> = {};
  const invalid: string[] = [];
  for (const name of new Set(names)) {
    const spec = LAMBDA_ENV[name] as LambdaVar<unknown>;
    const raw = source[name];
    if (raw === undefined || raw === '') {
      if (spec.required) invalid.push(name);
      continue;
    }
    const value = spec.parse(raw);
    if (typeof value === 'object' && value !== null && 'problem' in value) invalid.push(name);
    else out[name] = value;
  }
  if (invalid.length) throw new Error(`Invalid or missing environment variables: ${invalid.join(', ')}`);
  return out as LambdaEnv<N>;
}
