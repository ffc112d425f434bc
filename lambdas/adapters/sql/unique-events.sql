-- The unique events view (docs/data-model.md, "Unique events"): the raw events table with every
-- event once, whatever copies of it the raw stream holds. The copy kept is rules/copy-rank.sql's,
-- the one received first, as the events listing and the results keep it. Same columns, in the same
-- order, as {{events}} (tally.events on AWS: the data columns, then the partition columns project_id
-- and dt), so a query written for the table runs on the view.
--
-- Created on AWS as the Athena view <database>.unique_events (CREATE OR REPLACE VIEW, at deploy:
-- lambdas/entry/analytics-views.ts), locally as the DuckDB view unique_events of
-- <data dir>/views.sql (lambdas/adapters/duckdb-analyst-views.ts).
--
-- Cost: a query on the view reads what the same query on the table reads (the same partitions; a
-- filter on project_id or dt reaches the scan, see rules/copy-rank.sql), plus the numbering of the
-- copies, a hash-partitioned pass over the rows read; Athena bills bytes scanned, not that pass.
-- Other filters apply after the numbering, so a copy kept is the first of all copies, not only of
-- those the filter would pass.
SELECT
  "dedupe_key",
  "event_id",
  "name",
  "user_id",
  "sent_user_id",
  "session_id",
  "timestamp",
  "received_at",
  "properties",
  "platform",
  "app_version",
  "app_build_number",
  "os_version",
  "environment",
  "device_manufacturer",
  "locale",
  "timezone",
  "country",
  "region",
  "city",
  "sdk",
  "sdk_version",
  "source",
  "project_id",
  "dt"
FROM (
  SELECT
    e.*,
    {{> rules/copy-rank.sql}}
  FROM {{events}} e
) copies
WHERE copy_rank = 1
