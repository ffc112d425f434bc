/**
 * "How this was computed": the engine and the full-recompute query text for an experiment's results
 * window, exactly as the configured results query would run it, so an analyst can reproduce the
 * numbers (in Athena on AWS, in DuckDB locally). Runs no query.
 */
import type { Experiment } from '../domain/experiment';
import type { Computation, Project, ResultsQuery } from '../ports';
import { countRequestFor } from './count-request';

export function describeComputation(
  resultsQuery: ResultsQuery,
  project: Project,
  experiment: Experiment,
  window: { from: string; to: string },
): Computation | undefined {
  return resultsQuery.describe?.(countRequestFor(project, experiment, window));
}
