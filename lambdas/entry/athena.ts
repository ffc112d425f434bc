/** The results query on AWS: Athena over the raw tables. Only the functions using it import this (lambdaHandler). */
import { AthenaClient } from '@aws-sdk/client-athena';
import { AthenaRecentEvents } from '../adapters/athena-recent-events';
import { AthenaResultsQuery } from '../adapters/athena-results-query';
import type { Wiring } from './aws';

export const athenaResultsQuery: Wiring<'resultsQuery'> = (env) =>
  new AthenaResultsQuery(new AthenaClient({}), {
    workGroup: env.ATHENA_WORKGROUP,
    database: env.ATHENA_DATABASE,
    maxWaitMs: env.ATHENA_MAX_WAIT_SECONDS * 1000,
  });

/** The recent-events listing on AWS: Athena over the raw events table's latest partitions. */
export const athenaRecentEvents: Wiring<'recentEvents'> = (env) =>
  new AthenaRecentEvents(athenaResultsQuery(env) as AthenaResultsQuery, {
    windowDays: env.EVENTS_RETENTION_DAYS,
    maxWaitMs: env.ATHENA_MAX_WAIT_SECONDS * 1000,
  });
