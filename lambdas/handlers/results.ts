/** GET .../experiments/{id}/results and POST .../experiments/{id}/results/refresh. */
import { ApiError, notFound } from '../http/api-error';
import { json, type HttpEvent } from '../http/event';
import { computeResults, type ResultsDeps } from '../services/compute-results';
import { reportGuardrailsBreached } from './guardrail-alarm';
import type { ExperimentStore, Project, ProjectStore, ResultsStore } from '../ports';
import { requireExperiment, wrapAdmin, type AdminDeps } from './admin';
import { DeadlineExceeded } from '../domain/deadline';
import { isTransient } from '../domain/transient-error';
import { errorFields, log } from '../logging/log';
import type { Experiment } from '../domain/experiment';
import { retentionNotice, type RetentionNotice } from '../domain/event-retention';
import { cupedLookbackDays } from '../domain/experiment-metric-fields';

/** Reading stored results: no query engine (the stored results carry their computation). */
export interface ResultsReadDeps extends AdminDeps {
  projects: ProjectStore;
  experiments: ExperimentStore;
  results: ResultsStore;
  /** Days events are kept (KEEP_EVENTS_DAYS); unset, forever: no retention notice. */
  keepEventsDays?: number;
  clock: () => number;
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
    const notice = experiment.status === 'running' ? experimentRetentionNotice(experiment, deps.keepEventsDays, deps.clock()) : undefined;
    return json(200, { ...results, status: experiment.status, ...(notice ? { retention_notice: notice } : {}) });
  });
}

/**
 * What the retention cut removes of a running experiment's window (docs/api.md, "Results"): the
 * window starts at the start's UTC day, or the CUPED look-back's first day before it.
 */
function experimentRetentionNotice(experiment: Experiment, keepDays: number | undefined, nowMs: number): RetentionNotice | undefined {
  if (keepDays === undefined || !experiment.started_at) return undefined;
  const lookbackDays = cupedLookbackDays(experiment) ?? 0;
  const windowFrom = new Date(Date.parse(experiment.started_at) - lookbackDays * 86_400_000).toISOString().slice(0, 10);
  return retentionNotice(windowFrom, nowMs, keepDays);
}

/**
 * How long POST .../results/refresh computes before it answers 202 instead of the results: well
 * inside API Gateway's 29 s integration timeout and the route's 28 s Lambda timeout, leaving time to
 * stop the query in flight (StopQueryExecution) and answer.
 */
export const REFRESH_BUDGET_MS = 20_000;

/** The 202 body of a refresh that did not end within its budget (docs/api.md, OpenAPI ResultsPending). */
export interface ResultsPending {
  experiment_id: string;
  status: 'pending';
  requested_at: string;
  /** GET this (relative to the API's base URL) until its computed_at is at or after requested_at. */
  results_url: string;
  message: string;
}

export function createResultsRefreshHandler(deps: ResultsHandlerDeps & { refreshBudgetMs?: number }) {
  return wrapAdmin('admin-results-refresh', deps, async (event) => {
    const { project, experiment } = await startedExperiment(deps, event);
    const requestedAt = deps.clock();
    const budgetMs = deps.refreshBudgetMs ?? REFRESH_BUDGET_MS;
    try {
      const results = await computeResults(project, experiment, deps, { deadlineMs: requestedAt + budgetMs });
      if (results.guardrail_breached) reportGuardrailsBreached(1);
      return json(200, results);
    } catch (err) {
      if (!(err instanceof DeadlineExceeded)) throw cannotCompute(err, experiment);
      // The query in flight was stopped at the deadline (nothing left running); a slice already
      // committed stays, so the scheduled job, or a second refresh, has less to do.
      const resultsUrl = `/admin/v1/projects/${encodeURIComponent(project.id)}/experiments/${encodeURIComponent(experiment.id)}/results`;
      const body: ResultsPending = {
        experiment_id: experiment.id,
        status: 'pending',
        requested_at: new Date(requestedAt).toISOString(),
        results_url: resultsUrl,
        message: `The computation did not finish within ${Math.round(budgetMs / 1000)} s and was stopped; the scheduled results job completes it (every 15 minutes by default). GET results_url until computed_at is at or after requested_at, or POST this again later (work already committed is kept).`,
      };
      return json(202, body, { Location: resultsLocation(event, resultsUrl), 'Retry-After': '60' });
    }
  });
}

/**
 * What the refresh answers when the computation fails for a reason that is neither transient (503,
 * retried) nor the client's: 500 saying, in words, what happened and the way out (docs/api.md, "When
 * results cannot be computed"). The engine's message stays in the log line only: it may quote the
 * team's metric settings.
 */
export const RESULTS_FAILED_MESSAGE =
  'The results could not be computed: the query failed (the server log line "results computation failed" for this experiment says why). ' +
  'The experiment keeps running and keeps its events, and the scheduled job tries again. ' +
  "If a metric is the cause: a running experiment's metrics cannot be changed, so stop it (POST .../stop; its results so far stay) " +
  'and create a new experiment, under a new name, with the corrected metrics: it counts from its own start.';

function cannotCompute(err: unknown, experiment: Experiment): unknown {
  if (err instanceof ApiError || isTransient(err)) return err;
  log('error', 'results computation failed', { project_id: experiment.project_id, experiment_id: experiment.id, ...errorFields(err) });
  return new ApiError(500, RESULTS_FAILED_MESSAGE);
}

/** The results URL as the client called the API: with API Gateway's stage prefix when there is one. */
function resultsLocation(event: HttpEvent, resultsUrl: string): string {
  const called = event.requestContext?.path;
  const routePath = event.path;
  if (called && routePath && called.endsWith(routePath)) return called.slice(0, called.length - routePath.length) + resultsUrl;
  return resultsUrl;
}
