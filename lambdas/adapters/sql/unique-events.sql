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
FROM {{events}}
