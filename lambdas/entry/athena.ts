/** Athena on AWS: the results query, the recent-events and recent-users listings and the analyst views. Only the functions using them import this (lambdaHandler). */
import { AthenaClient } from '@aws-sdk/client-athena';
import { S3Client } from '@aws-sdk/client-s3';
import { AthenaAnalyticsViews } from '../adapters/athena-analytics-views';
import { readCompactionStateObject } from '../adapters/athena-compaction';
import { AthenaRecentEvents } from '../adapters/athena-recent-events';
import { AthenaPlanningBaselines } from '../adapters/athena-planning-baseline';
import { AthenaInsightEngine } from '../adapters/athena-insights';
import { AthenaRecentUsers } from '../adapters/athena-recent-users';
import { AthenaResultsQuery } from '../adapters/athena-results-query';
import { S3QueryResultFiles } from '../adapters/s3-query-result-files';
import { S3ResultsBase } from '../adapters/s3-results-base';
import type { LambdaEnv, LambdaEnvName } from '../lambda-env';
import type { Wiring } from './aws';

/** The Athena runner of a function's queries, in the stack's workgroup. */
export const athena = (env: LambdaEnv<LambdaEnvName>, options: { forgetResults?: boolean } = {}) =>
  new AthenaResultsQuery(new AthenaClient({}), {
    workGroup: env.ATHENA_WORKGROUP,
    database: env.ATHENA_DATABASE,
    maxWaitMs: env.ATHENA_MAX_WAIT_SECONDS * 1000,
    ...(options.forgetResults ? { forgetResults: new S3QueryResultFiles(new S3Client({})) } : {}),
  });

export const athenaResultsQuery: Wiring<'resultsQuery'> = (env) =>
  new AthenaResultsQuery(new AthenaClient({}), {
    workGroup: env.ATHENA_WORKGROUP,
    database: env.ATHENA_DATABASE,
    maxWaitMs: env.ATHENA_MAX_WAIT_SECONDS * 1000,
    arrivalAllowanceMs: env.RESULTS_ARRIVAL_ALLOWANCE_SECONDS * 1000,
    base: new S3ResultsBase(new S3Client({}), env.RESULTS_BASE_BUCKET),
  });

/**
 * The recent-events listing: Athena over the raw events table's latest partitions (the window is DEDUPE_WINDOW_DAYS).
 * Its answers name people, so each query's result files are deleted once read (as the people listing's).
 */
export const athenaRecentEvents: Wiring<'recentEvents'> = (env) =>
  new AthenaRecentEvents(athena(env, { forgetResults: true }), { windowDays: env.DEDUPE_WINDOW_DAYS, maxWaitMs: env.ATHENA_MAX_WAIT_SECONDS * 1000 });

/** The recent-users listing (people, their emails and names): the same reads and window; result files deleted once read. */
export const athenaRecentUsers: Wiring<'recentUsers'> = (env) =>
  new AthenaRecentUsers(athena(env, { forgetResults: true }), { windowDays: env.DEDUPE_WINDOW_DAYS, maxWaitMs: env.ATHENA_MAX_WAIT_SECONDS * 1000 });

/** The planning baseline: Athena over the look-back's event partitions and the identities. */
export const athenaPlanningBaselines: Wiring<'planningBaselines'> = (env) =>
  new AthenaPlanningBaselines(athena(env), { maxWaitMs: env.ATHENA_MAX_WAIT_SECONDS * 1000 });

/** Insights: Athena in the workgroup, asynchronously; the watermark is the arrival allowance back. */
export const athenaInsightEngine: Wiring<'insightEngine'> = (env) =>
  new AthenaInsightEngine(new AthenaClient({}), {
    workGroup: env.ATHENA_WORKGROUP,
    database: env.ATHENA_DATABASE,
    arrivalAllowanceMs: env.RESULTS_ARRIVAL_ALLOWANCE_SECONDS * 1000,
  });

/** The analyst views (unique_events), created by the deploy's custom resource in the raw tables' database. */
export const athenaAnalyticsViews: Wiring<'analyticsViews'> = (env) =>
  new AthenaAnalyticsViews(
    athena(env),
    { database: env.ATHENA_DATABASE, maxWaitMs: env.ATHENA_MAX_WAIT_SECONDS * 1000 },
    new S3QueryResultFiles(new S3Client({})),
    (stream) => readCompactionStateObject(new S3Client({}), env.RAW_BUCKET, stream),
  );
