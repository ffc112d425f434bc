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
{{> rules/events-tail.sql}}
