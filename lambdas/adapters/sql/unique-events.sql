-- The unique events view (docs/data-model.md, "Unique events"): every event once. Since the events
-- view itself holds each event once (events-view.sql), unique_events is the same rows under the name
-- analysts' saved queries used when events was the raw table with every copy. Same columns, in the
-- same order, as {{events}} (the data columns, then project_id and dt).
--
-- Created on AWS as the Athena view <database>.unique_events (CREATE OR REPLACE VIEW, at deploy:
-- lambdas/entry/analytics-views.ts), locally as the DuckDB view unique_events of
-- <data dir>/views.sql (lambdas/adapters/duckdb-analyst-views.ts).
--
-- Cost: exactly what the same query on events costs.
SELECT
  {{> rules/event-data-columns.sql}},
  "project_id",
  "dt"
FROM {{events}}
