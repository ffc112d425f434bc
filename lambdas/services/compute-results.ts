/**
 * Experiment results: count enrollments and conversions (ResultsQuery: incrementally from the
 * experiment's state where the engine keeps one, else over the raw stream), then the statistics. The window is the run: started_at to stopped_at, or to now while running, so results
 * of a stopped experiment freeze at its stop.
 */
import { mapLimit } from '../domain/concurrency';
import { DeadlineExceeded } from '../domain/deadline';
import type { Experiment } from '../domain/experiment';
import { cumulateSeries, seriesPoints } from '../domain/results-series';
import { experimentMetricResults } from '../domain/experiment-metric-results';
import { experimentBreakdowns } from '../domain/experiment-breakdowns';
import { experimentStats } from '../domain/stats';
import { expectedShares } from '../domain/variant-weights';
import { resultsChanged } from '../domain/results-changed';
import { errorFields, log } from '../logging/log';
import { countRequestFor, splitGoalMetric } from './count-request';
import type { CountOptions, ExperimentResults, IncrementalCountResult, ExperimentStore, Project, ProjectStore, ResultsQuery, ResultsStore } from '../ports';

export interface ResultsDeps {
  resultsQuery: ResultsQuery;
  results: ResultsStore;
  clock: () => number;
}

/** project: the experiment's project (its creation bounds the identity links read). */
export async function computeResults(project: Project, experiment: Experiment, deps: ResultsDeps, options: CountOptions = {}): Promise<ExperimentResults> {
  if (!experiment.started_at) throw new Error(`Experiment ${experiment.id} has not started`);
  const now = new Date(deps.clock()).toISOString();
  const window = { from: experiment.started_at, to: experiment.stopped_at ?? now };
  const request = countRequestFor(project, experiment, window);
  // Incremental where the engine keeps a state (issue 13): the same counts from the state plus the
  // raw events received since its watermark; otherwise the full recompute over the run's raw events.
  const counted = deps.resultsQuery.countIncremental
    ? await deps.resultsQuery.countIncremental({ ...request, now }, options)
    : await deps.resultsQuery.count(request, options);
  if ('incremental' in counted) {
    const run = (counted as IncrementalCountResult).incremental;
    log('info', 'results counted incrementally', {
      project_id: experiment.project_id,
      experiment_id: experiment.id,
      watermark: run.watermark,
      committed: run.committed,
      full_recompute: run.fullRecompute,
      ...(counted.rowsRead !== undefined ? { raw_rows_read: counted.rowsRead } : {}),
      ...(counted.bytesScanned !== undefined ? { bytes_scanned: counted.bytesScanned } : {}),
      ...(run.stateRows !== undefined ? { state_rows: run.stateRows } : {}),
    });
  }
  // The sample-ratio check tests against the configured weights, in the order of the counts.
  const shares = expectedShares(experiment.variants, experiment.weights);
  const stats = experimentStats(counted.variants, { expectedShares: counted.variants.map((c) => shares[experiment.variants.indexOf(c.variant)]!) });
  // The series: the same query's per-hour or per-day counts, cumulated (its last point is these totals).
  const series = seriesPoints(window, cumulateSeries(window, experiment.variants, counted.periods ?? []));
  // Every metric (issue 22): the goal's conversion from the same counts, then the experiment's metrics.
  // With CUPED the goal's conversion was counted as a last metric, for the primary metric's covariate.
  const measured = splitGoalMetric(request, counted);
  const { metrics, guardrail_breached } = experimentMetricResults(
    experiment,
    counted.variants,
    measured.metrics,
    measured.goal && !measured.goal.unavailable ? { primaryCovariates: measured.goal.variants } : {},
  );
  if (guardrail_breached) {
    // Loud: the callers emit the GuardrailBreached metric lib/alarms.ts alarms on (handlers/guardrail-alarm.ts);
    // this line says which experiment. IDs only: metric names are the team's text.
    log('warn', 'guardrail breached (metric GuardrailBreached)', {
      project_id: experiment.project_id,
      experiment_id: experiment.id,
      guardrails_breached: metrics.filter((m) => m.breached).length,
    });
  }
  const results: ExperimentResults = {
    experiment_id: experiment.id,
    status: experiment.status,
    computed_at: now,
    window,
    variants: stats.variants,
    comparisons: stats.comparisons,
    srm: stats.srm,
    multiple_exposures: counted.multipleExposures,
    series,
    metrics,
    guardrail_breached,
    // Breakdowns (docs/decisions/breakdowns.md): the primary metric per platform, country and app version.
    breakdowns: experimentBreakdowns(experiment, counted.segments ?? []),
  };
  // "How this was computed": stored with the numbers, so reading results needs no query engine.
  const computation = deps.resultsQuery.describe?.(request);
  if (computation) results.computation = computation;
  if ('incremental' in counted) {
    const run = (counted as IncrementalCountResult).incremental;
    results.incremental = { watermark: run.watermark, committed: run.committed, full_recompute: run.fullRecompute };
  }
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
  /** Of those computed, the experiments whose stated results changed (domain/results-changed.ts): new events moved them, or their first run. */
  changed: number;
  skipped: number;
  failed: number;
  /** Due, but left for the next run: not started, or stopped, by the run's deadline. */
  deferred: number;
  /** Experiments computed with a guardrail breached (issue 22): the caller emits the GuardrailBreached metric. */
  breached: number;
}

export interface JobOptions {
  /** Epoch ms (deps.clock) by which the run stops: nothing starts after it, and queries stop at it. */
  deadlineMs?: number;
  /** Experiments computed at once. @default RESULTS_JOB_CONCURRENCY */
  concurrency?: number;
}

/**
 * Queries in flight at once: enough that one slow query leaves the others running, few enough to stay
 * far below Athena's account quota of concurrent queries, which analysts share.
 */
export const RESULTS_JOB_CONCURRENCY = 4;

interface Due {
  project: Project;
  experiment: Experiment;
  /** Its results as last computed; undefined if never. */
  stored: ExperimentResults | undefined;
}

/**
 * The scheduled job: every project's running experiments and those stopped since their last run,
 * computed concurrently (bounded) and the stalest first, so experiments a deadline leaves out one run
 * come first in the next.
 */
export async function runResultsJob(
  deps: ResultsDeps & { projects: ProjectStore; experiments: ExperimentStore },
  options: JobOptions = {},
): Promise<JobSummary> {
  const deadlineMs = options.deadlineMs ?? Infinity;
  const summary: JobSummary = { computed: 0, changed: 0, skipped: 0, failed: 0, deferred: 0, breached: 0 };
  const due: Due[] = [];
  for (const project of await deps.projects.list()) {
    for (const experiment of await deps.experiments.list(project.id)) {
      const stored = experiment.status === 'created' ? undefined : await deps.results.get(project.id, experiment.id);
      if (needsComputation(experiment, stored)) due.push({ project, experiment, stored });
      else summary.skipped++;
    }
  }
  due.sort((a, b) => (a.stored?.computed_at ?? '').localeCompare(b.stored?.computed_at ?? ''));

  const deferred: string[] = [];
  await mapLimit(due, options.concurrency ?? RESULTS_JOB_CONCURRENCY, async ({ project, experiment, stored }) => {
    if (deps.clock() >= deadlineMs) return void deferred.push(experiment.id);
    try {
      const results = await computeResults(project, experiment, deps, { deadlineMs });
      summary.computed++;
      if (resultsChanged(stored, results)) summary.changed++;
      if (results.guardrail_breached) summary.breached++;
    } catch (err) {
      if (err instanceof DeadlineExceeded) return void deferred.push(experiment.id);
      // One experiment's failure must not stop the others; the next run retries it.
      summary.failed++;
      log('error', 'results computation failed', { project_id: experiment.project_id, experiment_id: experiment.id, ...errorFields(err) });
    }
  });
  summary.deferred = deferred.length;
  if (deferred.length) {
    log('warn', 'results job reached its deadline: experiments left for the next run', { deferred: deferred.length, experiment_ids: deferred });
  }
  log('info', 'results job finished', { ...summary });
  return summary;
}
