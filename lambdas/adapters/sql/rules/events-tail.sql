-- The events view's landing tail (events-view.sql; docs/data-model.md, "Tables and views"): the
-- events of the landing hours compaction has not taken in yet (after :compacted_through), each once,
-- and none already curated. The second branch of the events view, and the whole of the events_tail
-- view (events-tail-view.sql), which insights read next to the curated table so their watermark
-- filter applies to the tail only (rules/range-events.sql). Columns: the event's data columns,
-- project_id and dt, as the curated table's.
SELECT
  {{> rules/event-data-columns.sql}},
  project_id,
  dt
FROM (
  SELECT
    tail.*,
    {{> rules/copy-rank.sql}}
  FROM (
    SELECT
      {{> rules/event-data-columns.sql}},
      project_id,
      substr("timestamp", 1, 10) AS dt
    FROM {{landing}}
    WHERE arrival_hour > :compacted_through
      -- A line with no project names no partition: compaction leaves it out, so the view does too.
      AND project_id IS NOT NULL
      AND length(project_id) > 0
      AND length("timestamp") >= 10
  ) tail
) ranked
WHERE copy_rank = 1
  AND NOT EXISTS (
    SELECT 1
    FROM (
      -- The tail's events already curated. Joined this way round so the engine reads the curated
      -- side only where the tail has events: the tail (small) is the build side, and its project and
      -- day values prune the curated partitions scanned (Athena's dynamic partition pruning), so the
      -- dedupe_key column is read for the tail's partitions only, not for the query's whole range.
      SELECT c.project_id, c.dt, c.dedupe_key
      FROM {{curated}} c
      JOIN (
        SELECT DISTINCT project_id, substr("timestamp", 1, 10) AS dt, dedupe_key
        FROM {{landing}}
        WHERE arrival_hour > :compacted_through
      ) tail_keys
        ON c.project_id = tail_keys.project_id
        AND c.dt = tail_keys.dt
        AND c.dedupe_key = tail_keys.dedupe_key
    ) curated_copies
    WHERE curated_copies.project_id = ranked.project_id
      AND curated_copies.dt = ranked.dt
      AND curated_copies.dedupe_key = ranked.dedupe_key
  )
