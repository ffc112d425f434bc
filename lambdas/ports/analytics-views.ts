/**
 * The analyst views over the raw tables (unique_events: every event once; docs/data-model.md): the
 * Athena view in the Glue database on AWS, created at deploy (lambdas/entry/analytics-views.ts), and
 * the DuckDB script <data dir>/views.sql locally, written at every start. Both run the same view text
 * (lambdas/adapters/sql/unique-events.sql).
 */
export interface AnalyticsViews {
  /** Creates the views, or replaces them with the current definition. */
  create(): Promise<void>;
  /** Removes them; removing views that do not exist succeeds. */
  drop(): Promise<void>;
}
