/** What the results query counts for an experiment over a results window (the job, and "how this was computed"). */
import type { Experiment } from '../domain/experiment';
import { seriesInterval } from '../domain/results-series';
import type { CountRequest, Project } from '../ports';

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
    series: seriesInterval(window),
    ...(experiment.metrics?.length ? { metrics: experiment.metrics } : {}),
  };
}
