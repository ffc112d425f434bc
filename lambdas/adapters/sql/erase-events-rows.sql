-- A batch of curated partitions without a deleted person's rows (services/erase-people.ts): written as a
-- new generation of each partition, in the order compaction writes (compact-events.sql), and committed as
-- compaction commits, so a reader sees the partition with the rows or without them, never part of one.
SELECT
  {{> rules/event-data-columns.sql}},
  {{> rules/timestamp-minute.sql}},
  project_id,
  dt
{{> rules/batch-curated-rows.sql}}
  AND NOT coalesce(
    {{> rules/person-event-rows.sql}}
  , false)
ORDER BY project_id, dt, name, "timestamp", sent_user_id, dedupe_key
