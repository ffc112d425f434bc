/** Athena on AWS: the results query, the recent-events and recent-users listings and the analyst views. Only the functions using them import this (lambdaHandler). */
import { AthenaClient, GetQueryExecutionCommand } from '@aws-sdk/client-athena';
import { S3Client } from '@aws-sdk/client-s3';
import { AthenaAnalyticsViews } from '../adapters/athena-analytics-views';
import { AthenaCompactionStore, readCompactionStateObject } from '../adapters/athena-compaction';
import { GlueClient } from '@aws-sdk/client-glue';
import { AthenaRecentEvents } from '../adapters/athena-recent-events';
import { AthenaPlanningBaselines } from '../adapters/athena-planning-baseline';
import { AthenaInsightEngine } from '../adapters/athena-insights';
import { AthenaRecentUsers } from '../adapters/athena-recent-users';
import { AthenaResultsQuery } from '../adapters/athena-results-query';
import { S3QueryResultFiles } from '../adapters/s3-query-result-files';
import { S3ResultsBase } from '../adapters/s3-results-base';
import type { LambdaEnv, LambdaEnvName } from '../lambda-env';
import { documentClient } from '../store/dynamo-client';
import { DynamoDeletionStore } from '../store/deletion-store';
import { DynamoExportStore } from '../store/export-store';
import { s3ExportFiles } from './export-files';
import { DynamoIdentityStore } from '../store/identity-store';
import { DynamoAssignmentStore } from '../store/assignment-store';
import { DynamoExperimentStore } from '../store/experiment-store';
import { DynamoResultsStore } from '../store/results-store';
import { DynamoInsightQueryStore } from '../store/insight-query-store';
import type { Wiring } from './aws';

const athena = (env: LambdaEnv<LambdaEnvName>) =>
  new AthenaResultsQuery(new AthenaClient({}), {
    workGroup: env.ATHENA_WORKGROUP,
    database: env.ATHENA_DATABASE,
    maxWaitMs: env.ATHENA_MAX_WAIT_SECONDS * 1000,
  });

export const athenaResultsQuery: Wiring<'resultsQuery'> = (env) =>
  new AthenaResultsQuery(new AthenaClient({}), {
    workGroup: env.ATHENA_WORKGROUP,
    database: env.ATHENA_DATABASE,
    maxWaitMs: env.ATHENA_MAX_WAIT_SECONDS * 1000,
    arrivalAllowanceMs: env.RESULTS_ARRIVAL_ALLOWANCE_SECONDS * 1000,
    base: new S3ResultsBase(new S3Client({}), env.RESULTS_BASE_BUCKET),
  });

/** The recent-events listing: Athena over the raw events table's latest partitions (the window is EVENTS_RETENTION_DAYS). */
export const athenaRecentEvents: Wiring<'recentEvents'> = (env) =>
  new AthenaRecentEvents(athena(env), { windowDays: env.EVENTS_RETENTION_DAYS, maxWaitMs: env.ATHENA_MAX_WAIT_SECONDS * 1000 });

/** The recent-users listing: the same reads and window. */
export const athenaRecentUsers: Wiring<'recentUsers'> = (env) =>
  new AthenaRecentUsers(athena(env), { windowDays: env.EVENTS_RETENTION_DAYS, maxWaitMs: env.ATHENA_MAX_WAIT_SECONDS * 1000 });

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

/** The compaction job: Athena in the workgroup, S3 for landing/ and curated/, Glue for the curated partitions. */
export const athenaCompaction: Wiring<'compaction'> = (env) => {
  const s3 = new S3Client({});
  const athenaClient = new AthenaClient({});
  const store = new AthenaCompactionStore(athena(env), s3, new GlueClient({}), {
    database: env.ATHENA_DATABASE,
    bucket: env.RAW_BUCKET,
    queryResults: {
      locationOf: async (id) =>
        (await athenaClient.send(new GetQueryExecutionCommand({ QueryExecutionId: id }))).QueryExecution?.ResultConfiguration?.OutputLocation,
      remove: (location) => new S3QueryResultFiles(s3).remove(location),
    },
  });
  const ddb = documentClient();
  return {
    store,
    // People's deletions, after each compaction (docs/decisions/erasure.md): the tables the job's manifest line lists.
    erasure: {
      deletions: new DynamoDeletionStore(ddb, env.TABLE_DELETIONS),
      identities: new DynamoIdentityStore(ddb, env.TABLE_IDENTITIES),
      assignments: new DynamoAssignmentStore(ddb, env.TABLE_ASSIGNMENTS),
      experiments: new DynamoExperimentStore(ddb, env.TABLE_EXPERIMENTS),
      results: new DynamoResultsStore(ddb, env.TABLE_RESULTS),
      insightQueries: new DynamoInsightQueryStore(ddb, env.TABLE_INSIGHT_QUERIES),
      files: store,
      // People's exports, after the deletions: their requests, their files in exports/, their rows through Athena.
      exports: { store: new DynamoExportStore(ddb, env.TABLE_EXPORTS), files: s3ExportFiles(env) },
      exportRows: store,
    },
    options: {
      closeAfterMs: env.COMPACTION_CLOSE_AFTER_SECONDS * 1000,
      // A run takes at most two days of landing hours per stream; a backlog is taken over the next runs.
      maxHours: 48,
      graceMs: env.COMPACTION_GRACE_SECONDS * 1000,
      landingRetentionMs: env.LANDING_RETENTION_SECONDS * 1000,
    },
    ...(env.KEEP_EVENTS_DAYS !== undefined ? { keepEventsDays: env.KEEP_EVENTS_DAYS } : {}),
  };
};
