/**
 * Whether the shown results are an experiment's final ones (issue 22): a stopped experiment's results
 * are final only once their window reaches its stop. Right after Stop the stored results still cover
 * the run up to their last computation, before the stop; the results job computes them once more
 * over the whole run (services/compute-results.ts needsComputation), and until then the page says the
 * results are finishing, with the run's end beside the results' end. Pure: derived from fields the
 * API already returns (the experiment's stopped_at, the results' window.to).
 */
import type { Experiment } from '../admin-types';

export type Finality = { kind: 'running' } | { kind: 'final' } | { kind: 'finishing'; stoppedAt: string; coveredTo: string };

export function resultsFinality(experiment: Pick<Experiment, 'status' | 'stopped_at'>, window: { to: string }): Finality {
  if (experiment.status !== 'stopped' || experiment.stopped_at === null) return { kind: 'running' };
  // Compared as instants: both are ISO 8601 UTC, but a different spelling of the same time is still final.
  if (Date.parse(window.to) >= Date.parse(experiment.stopped_at)) return { kind: 'final' };
  return { kind: 'finishing', stoppedAt: experiment.stopped_at, coveredTo: window.to };
}
