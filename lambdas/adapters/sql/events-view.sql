-- The events view (docs/data-model.md, "Tables"): every event once, from the curated partitions plus
-- the landing hours compaction has not taken in yet (after :compacted_through, the compaction state's
-- hour), so an event is visible as soon as Firehose delivers it. Created on AWS as the Athena view
-- <database>.events by the compaction job after each run (and at deploy), locally as the DuckDB view
-- events of <data dir>/views.sql and of every query's session.
--
-- Each once: a curated partition holds each event once (compact-events.sql); the landing tail is
-- ranked within itself (rules/copy-rank.sql), and a tail row whose event is already curated is left
-- out: a copy resent after its first was compacted, or an hour a run committed before it moved the
-- state. A filter on project_id or dt reaches the scans of both tables. Of an event both curated and
-- in the tail, the curated copy is kept: the first received, unless the two arrived within one
-- Firehose buffer of an hour's end in the other order (compaction then keeps the tail's). Copies
-- share name, ID as sent and timestamp; only received_at, event_id and user_id can differ.
SELECT
  {{> rules/event-data-columns.sql}},
  project_id,
  dt
FROM {{curated}}
UNION ALL
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
