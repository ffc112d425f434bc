-- A canonical user's metric events in a metric slot, as aggregate SELECT list items of the users
-- CTE (grouped by user and slot). Included by results-count.sql and results-count-incremental.sql.
-- An event counts when it is the slot's (is_metric_event) and happened at or after the user's first
-- enrollment (metric_at >= user_enrolled_at: NULL, so nothing counts, for a user never enrolled);
-- every row is within the run already. Gives metric_events (how many), metric_total (the sum of
-- their values, rules/metric-value.sql) and metric_min (the smallest value, for the -100% floor).
count(CASE WHEN is_metric_event AND metric_at >= user_enrolled_at THEN 1 END) AS metric_events,
sum(CASE WHEN is_metric_event AND metric_at >= user_enrolled_at THEN metric_value END) AS metric_total,
min(CASE WHEN is_metric_event AND metric_at >= user_enrolled_at THEN metric_value END) AS metric_min
