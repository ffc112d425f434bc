/**
 * "How this was computed": the engine and the full-recompute query text for an experiment's results
 * window, exactly as the configured results query would run it, so an analyst can reproduce the
 * numbers (in Athena on AWS, in DuckDB locally). Runs no query.
 */
import type { Experiment } from '../domain/experiment';
import type { Computation, CountRequest, Project, ResultsQuery } from '../ports';

/** The count request of an experiment over a results window (the one compute-results counts). */
export function countRequestFor(project: Project, experiment: Experiment, window: { from: string; to: string }): CountRequest {
  return {
    projectId: experiment.project_id,
    experimentId: experiment.id,
    experimentName: experiment.name,
    variants: experiment.variants,
    goalEvent: experiment.goal_event,
    from: window.from,
    to: window.to,
    projectCreatedAt: project.created_at,
    daily: true,
  };
}

export function describeComputation(
  resultsQuery: ResultsQuery,
  project: Project,
  experiment: Experiment,
  window: { from: string; to: string },
): Computation | undefined {
  return resultsQuery.describe?.(countRequestFor(project, experiment, window));
}
