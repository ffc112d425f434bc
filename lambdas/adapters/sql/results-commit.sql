-- Commits a slice of the incremental results job's state on AWS (issue 13): one marker row, written
-- by an INSERT INTO after the slice's own INSERT INTO succeeded. The committed watermark is the latest
-- marker's slice_hi (results-watermark.sql). The slice's rows without a marker (an INSERT that failed
-- part way, or whose marker was not written) are not counted until a later marker passes them; they
-- are then read next to the slice's rewrite, which the summaries' idempotent aggregates count once.
-- metric_sources is the set of metric sources the slices of this chain summarise (render.ts
-- metricSourceSet): the watermark is read per set (results-watermark.sql).
-- Locally the commit is watermark.json, renamed into place (lambdas/adapters/duckdb-results-state.ts).
-- Columns: contract/results-state.ts, data columns then partition columns.
INSERT INTO {{state}}
SELECT
  CAST(NULL AS varchar) AS sent_user_id,
  CAST(NULL AS varchar) AS variant,
  CAST(NULL AS boolean) AS is_goal,
  CAST(NULL AS varchar) AS on_hour,
  CAST(NULL AS varchar) AS pending_key,
  CAST(NULL AS varchar) AS first_key,
  CAST(NULL AS varchar) AS first_at,
  CAST(NULL AS varchar) AS last_at,
  :slice_lo AS slice_lo,
  :slice_hi AS slice_hi,
  CAST(NULL AS varchar) AS metric_source,
  CAST(NULL AS varchar) AS event_key,
  CAST(NULL AS double) AS metric_value,
  :metric_sources AS metric_sources,
  CAST(NULL AS varchar) AS platform,
  CAST(NULL AS varchar) AS country,
  CAST(NULL AS varchar) AS app_version,
  :project_id AS project_id,
  :experiment_id AS experiment_id,
  :slice_dt AS dt
