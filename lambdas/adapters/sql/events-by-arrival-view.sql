-- The results job's view of the events by arrival (docs/decisions/incremental-results.md): the landing
-- events with the curated tables' columns and the landing hour, arrival_hour, which the job's slices
-- bound (lambdas/adapters/sql/render-incremental.ts). An event lands in the hour Firehose received the
-- oldest record of its object, which is at most one hour from the hour of its received_at: the job
-- reads one hour more on each side and keeps exactly its slice by received_at.
SELECT
  {{> rules/event-data-columns.sql}},
  project_id,
  substr("timestamp", 1, 10) AS dt,
  arrival_hour
FROM {{landing}}
