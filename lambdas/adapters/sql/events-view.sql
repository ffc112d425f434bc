-- The events view (docs/data-model.md, "Tables"): every event once, from the curated partitions plus
-- the landing hours compaction has not taken in yet (after :compacted_through, the compaction state's
-- hour), so an event is visible as soon as Firehose delivers it. Created on AWS as the Athena view
-- <database>.events by the compaction job after each run (and at deploy), locally as the DuckDB view
-- events of <data dir>/views.sql and of every query's session.
--
-- Each once: a curated partition holds each event once (compact-events.sql); the landing tail is
-- ranked within itself (rules/copy-rank.sql), and a tail row whose event is already curated is left
-- out: a copy resent after its first was compacted, or an hour a run committed before it moved the
-- state. A filter on project_id or dt reaches the scans of both tables.
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
  project_id,
  dt
FROM {{curated}}
UNION ALL
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
  project_id,
  dt
FROM (
  SELECT
    tail.*,
    {{> rules/copy-rank.sql}}
  FROM (
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
      project_id,
      substr("timestamp", 1, 10) AS dt
    FROM {{landing}}
    WHERE arrival_hour > :compacted_through
  ) tail
) ranked
WHERE copy_rank = 1
  AND NOT EXISTS (
    SELECT 1
    FROM {{curated}} c
    WHERE c.project_id = ranked.project_id
      AND c.dt = ranked.dt
      AND c.dedupe_key = ranked.dedupe_key
  )
