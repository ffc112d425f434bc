/** The results query on AWS: Athena over the raw tables. Only the functions using it import this (lambdaHandler). */
import { AthenaClient } from '@aws-sdk/client-athena';
import { AthenaResultsQuery } from '../adapters/athena-results-query';
import type { Wiring } from './aws';

export const athenaResultsQuery: Wiring<'resultsQuery'> = (env) =>
  new AthenaResultsQuery(new AthenaClient({}), {
    workGroup: env.ATHENA_WORKGROUP,
    database: env.ATHENA_DATABASE,
    maxWaitMs: env.ATHENA_MAX_WAIT_SECONDS * 1000,
  });
