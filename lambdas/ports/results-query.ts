import type { BreakdownDimension } from '../domain/breakdown-segments';
import type { ExperimentMetric } from '../domain/experiment-metric';
import type { CovariateSums } from '../domain/regression-adjustment';
import type { PeriodCounts, SeriesInterval } from '../domain/results-series';

/** What the results query counts for one experiment run (docs/identity-and-experiments.md, "Experiment results"). */
export interface CountRequest {
  projectId: string;
  experimentId: string;
  /** The experiment's name as configured; exposures may carry it or its snake_case form. */
  experimentName: string;
  variants: string[];
  goalEvent: string;
  /** The run: started_at to stopped_at (or now while running), ISO 8601 UTC. */
  from: string;
  to: string;
  /** The project's created_at: no identity link of the project is older, so older days are not read. */
  projectCreatedAt: string;
  /**
   * Also return the per-period counts the series cumulates (CountResult.periods), by UTC hour or day
   * (domain/results-series.ts seriesInterval). Absent: none returned.
   */
  series?: SeriesInterval;
  /**
   * The experiment's metrics beyond its goal (issue 22), counted by the same query per variant
   * (CountResult.metrics, in this order). Absent or empty: none.
   */
  metrics?: ExperimentMetric[];
  /**
   * CUPED (docs/decisions/cuped.md): the days before each user's first exposure whose events of each
   * metric are its covariate; the query then also returns the covariate's sums (MetricCounts
   * covariate). Absent: CUPED off, and the query reads nothing before the run.
   */
  cupedLookbackDays?: number;
}

/** One metric of CountRequest.metrics, per variant: what metric-moments.ts needs. */
export interface MetricCounts {
  name: string;
  /** One entry per configured variant, in configuration order (zeros included). */
  variants: Array<{
    variant: string;
    /** Enrolled users, each counted, with or without an event of the metric. */
    users: number;
    /** Sum over those users of their per-user values (capped where the metric has a cap). */
    sum: number;
    /** Sum of the squared per-user values. */
    sum_squares: number;
    /** With CountRequest.cupedLookbackDays: the covariate's sums over the same users (regression-adjustment.ts). */
    covariate?: CovariateSums;
  }>;
  /** No counted event of the metric had a negative value (always true for conversion and count). */
  values_non_negative: boolean;
  /**
   * Why the metric cannot be computed, in words, when the engine returned a figure for it that is not
   * a finite number (its variants then carry zeros and are not read). Absent: computed. The other
   * metrics, the goal and the job go on (docs/api.md, "The numeric rule").
   */
  unavailable?: string;
}

export interface SegmentCounts {
  dimension: BreakdownDimension;
  value: string;
  variant: string;
  users: number;
  conversions: number;
}

export interface CountResult {
  /** One entry per configured variant, in configuration order (zeros included). */
  variants: Array<{ variant: string; enrolled: number; converted: number }>;
  /** Canonical users whose enrollment events named more than one variant of this experiment. */
  multipleExposures: number;
  /**
   * With CountRequest.series: per variant and UTC hour or day of the run, the users who enrolled and
   * who converted in it (periods without either are absent). Same query, same scan.
   */
  periods?: PeriodCounts[];
  /** With CountRequest.metrics: one entry per metric, in the request's order. */
  metrics?: MetricCounts[];
  /**
   * Breakdowns (docs/decisions/breakdowns.md): per dimension, value of the user's first enrollment
   * event ('' when it had none) and variant, the enrolled users and the converters of the goal.
   * Variants without users in a value are absent. Same query, same scan.
   */
  segments?: SegmentCounts[];
  /** Raw rows the engine read (DuckDB locally; Athena reports bytes scanned instead). */
  rowsRead?: number;
  bytesScanned?: number;
}

/** Runs the counting SQL: DuckDB over the local NDJSON files, Athena over S3 on AWS. */
export interface CountOptions {
  /**
   * Epoch ms after which the query is abandoned (stopped where the engine allows) and count() throws
   * DeadlineExceeded (lambdas/domain/deadline.ts). Unset: only the engine's own wait limit applies.
   */
  deadlineMs?: number;
}

/**
 * How a result is computed, for an analyst to reproduce it: the engine and the full-recompute query
 * text for the request, exactly as the adapter runs it (table names as that adapter uses them).
 */
export interface Computation {
  engine: 'athena' | 'duckdb';
  query: string;
}

/** An incremental count (issue 13): the run's time decides which raw events the state may take in. */
export interface IncrementalCountRequest extends CountRequest {
  /** The job's clock at the run, ISO 8601 UTC. */
  now: string;
}

/** What an incremental run did to the experiment's state (docs/identity-and-experiments.md, "Incremental computation"). */
export interface IncrementalRun {
  /** The committed watermark before the run (the state's empty watermark if there was none). */
  previousWatermark: string;
  /** The committed watermark after the run: raw events received before it are in the state. */
  watermark: string;
  /** Whether the run appended a slice and committed it (false: nothing to add yet, or the write failed). */
  committed: boolean;
  /** The state could not serve the run (it ended before the watermark): counted from raw instead. */
  fullRecompute: boolean;
  /** State rows the count read. */
  stateRows?: number;
  /** State files the count read, the base's included (locally; the base keeps this flat over a long experiment). */
  stateFiles?: number;
  /** Their bytes. */
  stateBytes?: number;
  /** Closed state days this run rolled up into a new base generation. */
  compactedDays?: number;
  /** The committed base generation the count read (none before the experiment's first closed day). */
  baseGeneration?: string;
}

export interface IncrementalCountResult extends CountResult {
  incremental: IncrementalRun;
}

export interface ResultsQuery {
  /** The full recompute over the run's raw events (the reference the incremental count must equal). */
  count(request: CountRequest, options?: CountOptions): Promise<CountResult>;
  /**
   * The engine and the exact query text count() runs for this request (no query is run). Optional:
   * an implementation without one query text leaves the results' `computation` out.
   */
  describe?(request: CountRequest): Computation;
  /**
   * The same counts from the experiment's compact state plus the raw events received since its
   * watermark, appending the newly complete slice to the state first. Optional: without it the job
   * counts in full.
   */
  countIncremental?(request: IncrementalCountRequest, options?: CountOptions): Promise<IncrementalCountResult>;
  /** Releases the engine (the local DuckDB instance). */
  close?(): Promise<void> | void;
}
