/** The scheduled results job (EventBridge rule), not an HTTP route. */
import type { Context } from 'aws-lambda';
import { deadlineFrom } from '../domain/deadline';
import { reportGuardrailsBreached } from '../handlers/guardrail-alarm';
import { runResultsJob } from '../services/compute-results';
import { dynamoResults } from './admin-stores';
import { athenaResultsQuery } from './athena';
import { lambdaHandler } from './aws';

/** Time kept back from the Lambda timeout to stop running Athena queries and log the summary. */
export const FINISH_MARGIN_MS = 15_000;

export const handler = lambdaHandler(
  'results-job',
  (deps) =>
    async (_event: unknown, context: Pick<Context, 'getRemainingTimeInMillis'>): Promise<void> => {
      const deadlineMs = deadlineFrom(Date.now(), context.getRemainingTimeInMillis(), FINISH_MARGIN_MS);
      const summary = await runResultsJob(deps, { deadlineMs });
      reportGuardrailsBreached(summary.breached);
      // The others were computed; failing the invocation puts the failure on the Lambda errors alarm.
      // It is not retried (async retries are 0, lib/tally-stack.ts): the next scheduled run retries it.
      if (summary.failed > 0 || summary.deferred > 0) {
        throw new Error(`${summary.failed} experiment(s) failed and ${summary.deferred} were left for the next run; see the log lines above`);
      }
    },
  { resultsQuery: athenaResultsQuery, results: dynamoResults },
);
