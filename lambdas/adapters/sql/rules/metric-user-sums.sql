-- A canonical user's metric events in a metric slot, as aggregate SELECT list items of the users
-- CTE (grouped by user and slot). Included by results-count.sql and results-count-incremental.sql.
-- An event counts when it is the slot's (is_metric_event) and happened at or after the user's first
-- enrollment (metric_at >= user_enrolled_at: NULL, so nothing counts, for a user never enrolled);
-- every row is within the run already. Gives metric_events (how many), metric_total (the sum of
-- their values, rules/metric-value.sql) and metric_min (the smallest value, for the -100% floor).
-- CUPED's covariate (docs/decisions/cuped.md): the same metric over the user's own window of
-- :cuped_lookback_hours before the first enrollment, metric_at in [user_enrolled_at - window,
-- user_enrolled_at): covariate_events and covariate_total, as metric_events and metric_total are.
-- The window is hours, not days: an INTERVAL of days on a TIMESTAMP WITH TIME ZONE follows the
-- session's calendar (a DST change would move it by an hour in DuckDB), an INTERVAL of hours does not.
-- With CUPED off the window is 0 hours (empty: both are 0 and NULL) and the query reads no earlier day.
count(CASE WHEN is_metric_event AND metric_at >= user_enrolled_at THEN 1 END) AS metric_events,
sum(CASE WHEN is_metric_event AND metric_at >= user_enrolled_at THEN metric_value END) AS metric_total,
min(CASE WHEN is_metric_event AND metric_at >= user_enrolled_at THEN metric_value END) AS metric_min,
count(
  CASE
    WHEN is_metric_event AND metric_at < user_enrolled_at
      AND from_iso8601_timestamp(metric_at) >= from_iso8601_timestamp(user_enrolled_at) - INTERVAL :cuped_lookback_hours HOUR
      THEN 1
  END
) AS covariate_events,
sum(
  CASE
    WHEN is_metric_event AND metric_at < user_enrolled_at
      AND from_iso8601_timestamp(metric_at) >= from_iso8601_timestamp(user_enrolled_at) - INTERVAL :cuped_lookback_hours HOUR
      THEN metric_value
  END
) AS covariate_total
