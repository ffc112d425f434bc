-- The results job's view of the events by arrival (docs/decisions/incremental-results.md): the landing
-- events with the curated tables' columns and the landing hour, arrival_hour, which the job's slices
-- bound (lambdas/adapters/sql/render-incremental.ts). An event lands in the hour Firehose received the
-- oldest record of its object, which is at most one hour from the hour of its received_at: the job
-- reads one hour more on each side and keeps exactly its slice by received_at.
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
  substr("timestamp", 1, 10) AS dt,
  arrival_hour
FROM {{landing}}
