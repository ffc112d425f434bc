-- Which copy of an event counts (docs/data-model.md, "Copies of an event"). The raw stream can hold
-- one event more than once: a request can die after its events reached the stream and before its
-- commit, and the client's resend is then stored again once the claims' lease has passed
-- (docs/architecture.md, "Storing a batch"); Firehose itself delivers at least once. Copies share
-- the deduplication key, and with it the name, the ID as sent and the timestamp, so also the
-- partitions project_id and dt. Every reader keeps the copy with copy_rank = 1: the one received
-- first, as the ledger would have kept it. Two copies received in the same millisecond (a resend
-- racing the failed first attempt's answer: the same event sent twice) are ordered by event_id, then
-- user_id, so the choice is the same in every query and on every engine.
--
-- A SELECT list item over {{events}} (any StoredEvent table with its partition columns), included
-- by rules/event-columns.sql (so by every results query), by the recent-events listing
-- (recent-events.ts) and by the unique events view (unique-events.sql). The including query keeps
-- `copy_rank = 1` one level up. Its WHERE filters first: a filter that copies of one event do not
-- all pass (received_at, its arrival hour received, user_id) can leave a later copy as the first; one
-- they all pass (project_id, dt, name, sent_user_id, timestamp) cannot. Partitioned by project_id
-- and dt as well: they change nothing (copies share them), but a filter on them outside a view over
-- this rule still reaches the table scan (Trino pushes a predicate on a window's PARTITION BY columns
-- below it), so partition pruning works through the view.
row_number() OVER (
  PARTITION BY project_id, dt, dedupe_key
  ORDER BY received_at, event_id NULLS LAST, user_id NULLS LAST
) AS copy_rank
