-- The incremental results job's summary of a slice of raw events (issue 13; docs/identity-and-experiments.md,
-- "Incremental computation"): the events RECEIVED in [:slice_lo, :slice_hi), reduced to what the
-- counting rules need, per ID as sent. The job appends these rows to the experiment's state (DuckDB
-- COPY to Parquet locally, Athena INSERT INTO tally.results_state on AWS), and the incremental count
-- (results-count-incremental.sql) uses the same text over the newest raw events.
--
-- One row per (sent_user_id, variant, is_goal, on_hour) of the enrollment and goal events, where
--   variant      the configured variant the event names for this experiment (NULL: a goal event only)
--   is_goal      the event is a goal event (an enrollment event can also be one)
--   on_hour      the UTC hour of its timestamp (YYYY-MM-DDTHH, its first 13 characters): hours, not
--                days, so the series can have hourly points (domain/results-series.ts)
--   first_key    the smallest sort key (timestamp, received_at, dedupe_key): the first enrollment
--                (enrollment rows only)
--   first_at     its timestamp (enrollment rows only)
--   last_at      the latest timestamp (goal rows only): a goal event of that hour at or after a user's enrollment exists
--                exactly when last_at >= enrolled_at, which is all the conversion rule and the series
--                need (the hour, hence the day, of the first goal event at or after enrollment)
-- and one row per metric event (issue 22) and metric source (rules/metric-slots.sql: the event, and
-- the property a sum reads), keyed by the event: metric_source, event_key (its deduplication key,
-- which its copies share), metric_value (rules/metric-value.sql), first_key and first_at its sort key
-- and time; variant, is_goal, pending_key and last_at NULL. Sums are not idempotent, so these rows
-- are not merged per user: a slice read twice, or copies received in two slices, give the same
-- event_key, and the count takes each (metric_source, event_key) once, the copy received first
-- (smallest first_key), as the full count does (rules/copy-rank.sql).
-- Events timestamped after :aggregate_to (the slice's end; the run's end for the newest events) are
-- not merged: they keep a row each (pending_key = their sort key), so a later run whose window ends
-- before them can leave them out one by one. Every merged row is at or before any later run's end.
-- CUPED (docs/decisions/cuped.md): metric rows are kept from :covariate_from_ts (the run's start minus
-- the pre-exposure window; :from_ts with CUPED off), so the count finds every user's pre-exposure
-- events in the state; enrollment and goal rows only from :from_ts. The empty state's watermark is the
-- window's start minus the future clamp (render-incremental.ts), so the first slice reads the window
-- once and no run reads it again.
-- Every aggregate is idempotent (min, max, distinct), so a summary read twice (a slice rewritten
-- after a failed commit) counts once. So does an event whose raw copies fall into two slices (a
-- resend stored again after a crash, 30 s or more after the first copy): copies share the ID as
-- sent, the name and the timestamp, so they give the same goal rows and, when their properties are
-- the same (a resend), the same enrollment rows. Within a slice, copies are dropped (copy_rank = 1).
--
-- The columns read from an event and the enrollment variant are results-count.sql's rules, included
-- from rules/event-columns.sql and rules/enrollment-variant.sql.
-- Same dialect rules as results-count.sql (Trino; DuckDB with the json_extract_scalar and
-- from_iso8601_timestamp macros). Events are read from {{events}} = the view events_by_arrival over
-- the landing events (events-by-arrival-view.sql; locally over the same folders), pruned by the landing
-- hours (arrival_hour) that can hold the events received in [:slice_lo, :slice_hi), one more on each
-- side (domain/arrival-hours.ts), so Athena's partition projection lists only those folders.
SELECT
  sent_user_id,
  variant,
  is_goal,
  on_hour,
  pending_key,
  -- Only what the row's kind needs (NULL otherwise): the state is read whole on every run.
  CASE WHEN variant IS NOT NULL OR metric_source IS NOT NULL THEN min(sort_key) END AS first_key,
  CASE WHEN variant IS NOT NULL OR metric_source IS NOT NULL THEN min(event_time) END AS first_at,
  CASE WHEN is_goal THEN max(event_time) END AS last_at,
  :slice_lo AS slice_lo,
  :slice_hi AS slice_hi,
  metric_source,
  event_key,
  min_by(metric_value, sort_key) AS metric_value,
  -- Set on commit markers only (results-commit.sql).
  CAST(NULL AS varchar) AS metric_sources,
  -- Breakdowns (docs/decisions/breakdowns.md): the first enrollment event's context fields on
  -- enrollment rows ('' for a missing value, so min_by never meets a NULL argument), NULL otherwise.
  CASE WHEN variant IS NOT NULL THEN min_by(coalesce(platform, ''), sort_key) END AS platform,
  CASE WHEN variant IS NOT NULL THEN min_by(coalesce(country, ''), sort_key) END AS country,
  CASE WHEN variant IS NOT NULL THEN min_by(coalesce(app_version, ''), sort_key) END AS app_version,
  :project_id AS project_id,
  :experiment_id AS experiment_id,
  :slice_dt AS dt
FROM (
  -- Each event once per slot it belongs to (rules/metric-slots.sql, one slot per metric source):
  -- the base slot takes enrollment and goal events, a source's slot the source's events.
  SELECT
    sent_user_id,
    CASE WHEN m.metric_event IS NULL THEN variant END AS variant,
    CASE WHEN m.metric_event IS NULL THEN name = :goal_event END AS is_goal,
    substr(event_time, 1, 13) AS on_hour,
    CASE WHEN m.metric_event IS NULL AND event_time > :aggregate_to THEN sort_key END AS pending_key,
    sort_key,
    event_time,
    m.metric_source,
    CASE WHEN m.metric_event IS NOT NULL THEN dedupe_key END AS event_key,
    platform,
    country,
    app_version,
    {{> rules/metric-value.sql}}
  FROM (
    SELECT
      sent_user_id,
      name,
      event_time,
      sort_key,
      dedupe_key,
      properties,
      platform,
      country,
      app_version,
      {{> rules/enrollment-variant.sql}}
    FROM (
      SELECT
        {{> rules/event-columns.sql}},
        {{> rules/copy-rank.sql}}
      FROM {{events}}
      WHERE project_id = :project_id
        AND dt BETWEEN :covariate_from_dt AND :events_to_dt
        AND arrival_hour BETWEEN :arrival_from AND :arrival_to
        AND received_at >= :slice_lo
        AND received_at < :slice_hi
        AND "timestamp" >= :covariate_from_ts
        AND sent_user_id IS NOT NULL
    ) parsed
    -- Each event once within the slice (rules/copy-rank.sql); a copy received in another slice is
    -- summarised there, and the idempotent aggregates below count it once (see the header).
    WHERE copy_rank = 1
  ) named
  CROSS JOIN
    {{> rules/metric-slots.sql}}
  WHERE (m.metric_event IS NULL AND event_time >= :from_ts AND (variant IS NOT NULL OR name = :goal_event))
    OR name = m.metric_event
) relevant
GROUP BY sent_user_id, variant, is_goal, on_hour, pending_key, metric_source, event_key
