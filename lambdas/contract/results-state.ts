/**
 * The incremental results job's state (issue 13; docs/identity-and-experiments.md, "Incremental
 * computation"): the summary rows of lambdas/adapters/sql/results-summary.sql, stored as Parquet.
 * Shared by the Lambdas (DuckDB view locally, Athena INSERT INTO on AWS) and the CDK app (the Glue
 * table tally.results_state in lib/analytics.ts), so both declare the same columns.
 */

/** Glue table name and S3 prefix (in the raw bucket; locally under the data directory). */
export const RESULTS_STATE = { table: 'results_state', prefix: 'results-state/' } as const;

/** Data columns, in the order results-summary.sql selects them. */
export const RESULTS_STATE_COLUMNS = {
  sent_user_id: 'string',
  variant: 'string',
  is_goal: 'boolean',
  on_hour: 'string',
  pending_key: 'string',
  first_key: 'string',
  first_at: 'string',
  last_at: 'string',
  slice_lo: 'string',
  slice_hi: 'string',
  /** Metric rows (issue 22): the metric source (render.ts metricSource), the event's deduplication key, its value. */
  metric_source: 'string',
  event_key: 'string',
  metric_value: 'double',
  /** Commit markers: the set of metric sources the committed chain summarises (render.ts metricSourceSet). */
  metric_sources: 'string',
  /**
   * Breakdowns (docs/decisions/breakdowns.md): the first enrollment event's platform, country and
   * app_version on enrollment rows ('' when the event had none); NULL on other rows and in files
   * written before the columns existed (read as the segment "unknown").
   */
  platform: 'string',
  country: 'string',
  app_version: 'string',
} as const;

/** Partition columns, after the data columns: the experiment's state, by the UTC day of its slices' start. */
export const RESULTS_STATE_PARTITIONS = ['project_id', 'experiment_id', 'dt'] as const;

/**
 * The experiments' bases (issue 21): the closed days of the state rolled up (results-base.sql), one
 * committed generation per experiment. Glue table tally.results_base over
 * `<prefix>project_id=<p>/experiment_id=<e>/generation=<g>/` with the state's data columns, and the
 * commit beside the generations: `<prefix>project_id=<p>/experiment_id=<e>/commit.json` (BaseCommit,
 * domain/results-base.ts). Locally the same names under the experiment's state directory.
 */
export const RESULTS_BASE = { table: 'results_base', prefix: 'results-base/', commit: 'commit.json' } as const;

/** The base's partition columns, after the state's data columns. */
export const RESULTS_BASE_PARTITIONS = ['project_id', 'experiment_id', 'generation'] as const;
