/**
 * The compaction job's wiring on AWS (lambdas/entry/compact-landing.ts), apart from lambdas/entry/athena.ts
 * so the other Athena functions do not bundle the DynamoDB stores a person's deletion uses.
 */
import { GetQueryExecutionCommand, AthenaClient } from '@aws-sdk/client-athena';
import { GlueClient } from '@aws-sdk/client-glue';
import { S3Client } from '@aws-sdk/client-s3';
import { AthenaCompactionStore } from '../adapters/athena-compaction';
import { S3QueryResultFiles } from '../adapters/s3-query-result-files';
import { DynamoAssignmentStore } from '../store/assignment-store';
import { DynamoExperimentStore } from '../store/experiment-store';
import { DynamoIdentityStore } from '../store/identity-store';
import { dynamoDeletions, dynamoExports, dynamoInsightQueries, dynamoResults } from './admin-stores';
import { athena } from './athena';
import type { Wiring } from './aws';
import { s3ExportFiles } from './export-files';

/** The compaction job: Athena in the workgroup, S3 for landing/ and curated/, Glue for the curated partitions. */
export const athenaCompaction: Wiring<'compaction'> = (env, ddb) => {
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
  return {
    store,
    // People's deletions, after each compaction (docs/decisions/erasure.md): the tables the job's manifest line lists.
    erasure: {
      deletions: dynamoDeletions(env, ddb),
      identities: new DynamoIdentityStore(ddb, env.TABLE_IDENTITIES),
      assignments: new DynamoAssignmentStore(ddb, env.TABLE_ASSIGNMENTS),
      experiments: new DynamoExperimentStore(ddb, env.TABLE_EXPERIMENTS),
      results: dynamoResults(env, ddb),
      insightQueries: dynamoInsightQueries(env, ddb),
      files: store,
      // People's exports, after the deletions: their requests, their files in exports/, their rows through Athena.
      exports: { store: dynamoExports(env, ddb), files: s3ExportFiles(env, ddb) },
      exportRows: store,
    },
    options: {
      closeAfterMs: env.COMPACTION_CLOSE_AFTER_SECONDS * 1000,
      // A run takes at most 6 landing hours per stream; a backlog is taken over the next runs (a day of
      // them an hour, at a run every 15 minutes). Each batch's UNLOAD reads the run's hours whole, under the
      // workgroup's scan limit (10 GiB by default): 6 hours of GZIP JSON reach it near a billion events a
      // day, 48 did near 130 million (docs/decisions/columnar-events.md, "Not stated by the documentation").
      maxHours: 6,
      graceMs: env.COMPACTION_GRACE_SECONDS * 1000,
      landingRetentionMs: env.LANDING_RETENTION_SECONDS * 1000,
    },
    ...(env.KEEP_EVENTS_DAYS !== undefined ? { keepEventsDays: env.KEEP_EVENTS_DAYS } : {}),
  };
};
