/** What the results query counts for an experiment over a results window (the job, and "how this was computed"). */
import type { Experiment } from '../domain/experiment';
import type { ExperimentMetric } from '../domain/experiment-metric';
import { cupedLookbackDays } from '../domain/experiment-metric-fields';
import { seriesInterval } from '../domain/results-series';
import type { CountRequest, CountResult, MetricCounts, Project } from '../ports';

/**
 * With CUPED the goal's conversion is counted as one more metric, the last of the request: its
 * covariate (each user's goal events before exposure) adjusts the primary metric as every other
 * metric's adjusts it (docs/decisions/cuped.md). Its users and sum are the goal's enrolled and
 * converted users (a conversion counts events at or after enrollment within the run, as the goal does).
 */
export function goalAsMetric(experiment: Pick<Experiment, 'goal_event'>): ExperimentMetric {
  return { name: experiment.goal_event, event: experiment.goal_event, kind: 'conversion', role: 'secondary' };
}

/** The count request of an experiment over a results window (the one compute-results counts). */
export function countRequestFor(project: Project, experiment: Experiment, window: { from: string; to: string }): CountRequest {
  const lookback = cupedLookbackDays(experiment);
  const metrics = [...(experiment.metrics ?? []), ...(lookback !== undefined ? [goalAsMetric(experiment)] : [])];
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
    ...(metrics.length ? { metrics } : {}),
    ...(lookback !== undefined ? { cupedLookbackDays: lookback } : {}),
  };
}

/** The counted metrics split into the experiment's own and, with CUPED, the goal's (countRequestFor). */
export function splitGoalMetric(request: CountRequest, counted: Pick<CountResult, 'metrics'>): { metrics: MetricCounts[]; goal?: MetricCounts } {
  const metrics = counted.metrics ?? [];
  if (request.cupedLookbackDays === undefined) return { metrics };
  return { metrics: metrics.slice(0, -1), ...(metrics.length ? { goal: metrics.at(-1)! } : {}) };
}
