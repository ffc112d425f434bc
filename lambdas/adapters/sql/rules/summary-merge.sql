-- One row per summary group, however often its rows were read: the SELECT list that re-aggregates
-- the results state's summary rows (results-summary.sql's shape) by their grouping (sent_user_id,
-- variant, is_goal, on_hour, pending_key, metric_source, event_key; the includer's GROUP BY lists
-- them). Included by results-count-incremental.sql (the base, the state and the tail read together)
-- and results-base.sql (closed days rolled into the base), so the count and the roll-up merge alike.
-- Enrollment and goal aggregates are idempotent (min, max); a metric event keeps the value of its
-- copy received first (the smallest first_key, which starts with the shared timestamp and then
-- received_at), the copy the full count keeps (rules/copy-rank.sql); an enrollment row keeps the
-- context fields of its first enrollment event (the smallest first_key).
sent_user_id,
variant,
is_goal,
on_hour,
pending_key,
metric_source,
event_key,
min(first_key) AS first_key,
min(first_at) AS first_at,
max(last_at) AS last_at,
min_by(metric_value, first_key) AS metric_value,
-- Breakdowns: the first enrollment's context fields (enrollment rows only; NULL in files written
-- before the columns existed, which reads as the segment "unknown").
min_by(platform, first_key) AS platform,
min_by(country, first_key) AS country,
min_by(app_version, first_key) AS app_version
