/** The scheduled results job (EventBridge rule), not an HTTP route. */
import { runResultsJob } from '../services/compute-results';
import { awsDeps } from './aws';

const deps = awsDeps(['projects', 'experiments', 'results', 'resultsQuery']);

export const handler = async (): Promise<void> => {
  const summary = await runResultsJob(deps);
  // The others were computed; failing the invocation puts the failure on the Lambda errors alarm.
  // The next scheduled run retries it (the rule's target does not retry).
  if (summary.failed > 0) throw new Error(`${summary.failed} experiment(s) failed; see the log lines above`);
};
