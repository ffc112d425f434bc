-- Compaction of the events (docs/decisions/columnar-events.md, "Compaction"): the rows of a batch of
-- curated partitions (project, day) after taking in landing hours :hours. Each partition is rewritten
-- whole, into a new generation: the rows of its current generation ({{curated}}, committed earlier)
-- and the landing rows of its project and day, each event once. Which copy is kept is
-- rules/copy-rank.sql's, the one received first, whether it was already curated or just landed, so
-- compacting an hour twice (a run that stopped after writing and before moving the state) changes
-- nothing. Sorted by event name, then time (docs/decisions/columnar-events.md, "Sort order"): a row
-- group then holds few event names, so a query for some names skips the others' row groups by their
-- min/max statistics, and consecutive timestamps share most of their text, which ZSTD compresses.
-- After the event's columns, timestamp_minute (rules/timestamp-minute.sql; lambdas/contract/landing.ts
-- CURATED_ONLY_COLUMNS), computed again from the timestamp for every row, curated or landed.
--
-- The same text on both engines: Athena runs it as UNLOAD ... partitioned_by (project_id, dt), which
-- keeps the sort within each file (lambdas/adapters/athena-compaction.ts), DuckDB as COPY ... TO
-- Parquet partitioned by project_id and dt (lambdas/adapters/duckdb-compaction.ts). Which rows a batch reads:
-- rules/batch-curated-rows.sql and rules/batch-landing-rows.sql.
SELECT
  {{> rules/event-data-columns.sql}},
  {{> rules/timestamp-minute.sql}},
  project_id,
  dt
FROM (
  SELECT
    merged.*,
    {{> rules/copy-rank.sql}}
  FROM (
    SELECT
      {{> rules/event-data-columns.sql}},
      project_id,
      dt
    {{> rules/batch-curated-rows.sql}}
    UNION ALL
    SELECT
      {{> rules/event-data-columns.sql}},
      project_id,
      substr("timestamp", 1, 10) AS dt
    {{> rules/batch-landing-rows.sql}}
  ) merged
) ranked
WHERE copy_rank = 1
ORDER BY project_id, dt, name, "timestamp", sent_user_id, dedupe_key
