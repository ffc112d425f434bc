/** The scheduled compaction job (EventBridge rule every 15 minutes, reserved concurrency 1), not an HTTP route. */
import type { Context } from 'aws-lambda';
import { deadlineFrom } from '../domain/deadline';
import { createCompactionHandler } from '../handlers/compact-landing';
import { dynamoDeletions, dynamoExports, dynamoInsightQueries, dynamoResults } from './admin-stores';
import { athenaCompaction } from './compaction-wiring';
import { lambdaHandler } from './aws';
import { s3ExportFiles } from './export-files';

/** Time kept back from the Lambda timeout: no new batch starts after it, and the run logs its summary. */
export const FINISH_MARGIN_MS = 120_000;

export const handler = lambdaHandler(
  'compact-landing',
  (deps) => {
    const run = createCompactionHandler(deps);
    return async (_event: unknown, context: Pick<Context, 'getRemainingTimeInMillis'>): Promise<void> =>
      run(deadlineFrom(Date.now(), context.getRemainingTimeInMillis(), FINISH_MARGIN_MS));
  },
  {
    compaction: athenaCompaction,
    exportFiles: s3ExportFiles,
    deletions: dynamoDeletions,
    results: dynamoResults,
    insightQueries: dynamoInsightQueries,
    exports: dynamoExports,
  },
);
