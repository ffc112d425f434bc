import type { DayCounts } from '../domain/results-series';

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
  /** Also return the per-day counts the series cumulates (CountResult.days). */
  daily?: boolean;
}

export interface CountResult {
  /** One entry per configured variant, in configuration order (zeros included). */
  variants: Array<{ variant: string; enrolled: number; converted: number }>;
  /** Canonical users whose enrollment events named more than one variant of this experiment. */
  multipleExposures: number;
  /**
   * With CountRequest.daily: per variant and UTC day of the run, the users who enrolled and who
   * converted that day (days without either are absent). Same query, same scan.
   */
  days?: DayCounts[];
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

export interface ResultsQuery {
  count(request: CountRequest, options?: CountOptions): Promise<CountResult>;
  /**
   * The engine and the exact query text count() runs for this request (no query is run). Optional:
   * an implementation without one query text leaves the results' `computation` out.
   */
  describe?(request: CountRequest): Computation;
  /** Releases the engine (the local DuckDB instance). */
  close?(): Promise<void> | void;
}
