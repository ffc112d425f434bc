/** The local stand-in for the EventBridge schedule of the results job: runs never overlap. */
import type { Deps } from '../deps';
import { errorFields, log } from '../logging/log';
import { reportGuardrailsBreached } from '../handlers/guardrail-alarm';
import { runResultsJob } from '../services/compute-results';

export interface ResultsScheduler {
  /** Stops the timer and waits for a run in progress. */
  stop(): Promise<void>;
}

/** intervalMs 0 or undefined: never runs (results are then computed only on refresh). */
export function scheduleResultsJob(deps: Deps, intervalMs: number | undefined): ResultsScheduler {
  let job: Promise<unknown> | undefined;
  const timer = intervalMs
    ? setInterval(() => {
        job ??= runResultsJob(deps)
          .then((summary) => reportGuardrailsBreached(summary.breached))
          .catch((err: unknown) => log('error', 'results job failed', errorFields(err)))
          .finally(() => (job = undefined));
      }, intervalMs)
    : undefined;
  timer?.unref();
  return {
    async stop() {
      clearInterval(timer);
      await job;
    },
  };
}
