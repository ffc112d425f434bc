/**
 * Experiment results: count enrollments and conversions over the raw stream (ResultsQuery), then the
 * statistics. The window is the run: started_at to stopped_at, or to now while running, so results
 * of a stopped experiment freeze at its stop.
 */
import type { Experiment } from '../domain/experiment';
import { experimentStats } from '../domain/stats';
import { errorFields, log } from '../http/log';
import type { ExperimentResults, ExperimentStore, ProjectStore, ResultsQuery, ResultsStore } from '../store/ports';

export interface ResultsDeps {
  resultsQuery: ResultsQuery;
  results: ResultsStore;
  clock: () => number;
}

export async function computeResults(experiment: Experiment, deps: ResultsDeps): Promise<ExperimentResults> {
  if (!experiment.started_at) throw new Error(`Experiment ${experiment.id} has not started`);
  const now = new Date(deps.clock()).toISOString();
  const window = { from: experiment.started_at, to: experiment.stopped_at ?? now };
  const counted = await deps.resultsQuery.count({
    projectId: experiment.project_id,
    experimentId: experiment.id,
    experimentName: experiment.name,
    variants: experiment.variants,
    goalEvent: experiment.goal_event,
    from: window.from,
    to: window.to,
  });
  const stats = experimentStats(counted.variants);
  const results: ExperimentResults = {
    experiment_id: experiment.id,
    status: experiment.status,
    computed_at: now,
    window,
    variants: stats.variants,
    comparisons: stats.comparisons,
    srm: stats.srm,
    multiple_exposures: counted.multipleExposures,
  };
  await deps.results.put(experiment.project_id, results);
  return results;
}

/** Whether the scheduled job should (re)compute this experiment now. */
export function needsComputation(experiment: Experiment, stored: ExperimentResults | undefined): boolean {
  if (experiment.status === 'running') return true;
  if (experiment.status !== 'stopped' || !experiment.stopped_at) return false;
  // Stopped since the last computation: compute once more over the final window, then never again.
  return stored === undefined || stored.status !== 'stopped' || stored.window.to !== experiment.stopped_at;
}

export interface JobSummary {
  computed: number;
  skipped: number;
  failed: number;
}

/** The scheduled job: every project's running experiments and those stopped since their last run. */
export async function runResultsJob(deps: ResultsDeps & { projects: ProjectStore; experiments: ExperimentStore }): Promise<JobSummary> {
  const summary: JobSummary = { computed: 0, skipped: 0, failed: 0 };
  for (const project of await deps.projects.list()) {
    for (const experiment of await deps.experiments.list(project.id)) {
      const stored = experiment.status === 'created' ? undefined : await deps.results.get(project.id, experiment.id);
      if (!needsComputation(experiment, stored)) {
        summary.skipped++;
        continue;
      }
      try {
        await computeResults(experiment, deps);
        summary.computed++;
      } catch (err) {
        // One experiment's failure must not stop the others; the next run retries it.
        summary.failed++;
        log('error', 'results computation failed', { project_id: project.id, experiment_id: experiment.id, ...errorFields(err) });
      }
    }
  }
  log('info', 'results job finished', { ...summary });
  return summary;
}
