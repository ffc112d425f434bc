/** GET .../experiments/{id}/results and POST .../experiments/{id}/results/refresh. */
import { ApiError, notFound } from '../http/api-error';
import { json, type HttpEvent } from '../http/event';
import { computeResults, type ResultsDeps } from '../services/compute-results';
import type { ExperimentStore, Project, ProjectStore, ResultsStore } from '../ports';
import { requireExperiment, wrapAdmin, type AdminDeps } from './admin';
import type { Experiment } from '../domain/experiment';

/** Reading stored results: no query engine (the stored results carry their computation). */
export interface ResultsReadDeps extends AdminDeps {
  projects: ProjectStore;
  experiments: ExperimentStore;
  results: ResultsStore;
}

export interface ResultsHandlerDeps extends ResultsReadDeps, ResultsDeps {}

async function startedExperiment(deps: ResultsReadDeps, event: HttpEvent): Promise<{ project: Project; experiment: Experiment }> {
  const { project, experiment } = await requireExperiment(deps, event);
  if (experiment.status === 'created') {
    throw new ApiError(409, 'The experiment has not started: results exist once it is running');
  }
  return { project, experiment };
}

export function createResultsGetHandler(deps: ResultsReadDeps) {
  return wrapAdmin('admin-results-get', deps, async (event) => {
    const { experiment } = await startedExperiment(deps, event);
    const results = await deps.results.get(experiment.project_id, experiment.id);
    if (!results) {
      throw notFound('No results computed yet: they appear after the next scheduled run, or POST .../results/refresh to compute them now');
    }
    return json(200, { ...results, status: experiment.status });
  });
}

export function createResultsRefreshHandler(deps: ResultsHandlerDeps) {
  return wrapAdmin('admin-results-refresh', deps, async (event) => {
    const { project, experiment } = await startedExperiment(deps, event);
    const results = await computeResults(project, experiment, deps);
    return json(200, results);
  });
}
