-- The incremental results count (issue 13; docs/identity-and-experiments.md, "Incremental
-- computation"): the same rows as results-count.sql (variant, period, enrolled, converted,
-- multiple_exposures; totals rows with period NULL and period rows for the series), computed from the
-- experiment's state instead of the raw history.
--
-- NOT A WHOLE QUERY: render-incremental.ts puts `WITH tail AS (<results-summary.sql>), base_rows AS
-- (<results-base-rows.sql>),` in front of this text. tail is the summary of the raw events received
-- at or after the committed watermark (the arrival hours since), merged up to the run's end (:to_ts),
-- so its rows have the state's shape; base_rows is the committed base (results-base.sql: the closed
-- days rolled up, no rows before the first), and the state rows read are those of the days after it.
--
-- Parameters: :project_id, :experiment_id, :watermark (the committed watermark: the state rows of
-- slices ending at or before it count), :state_from_dt and :state_to_dt (the days of the state's
-- dt partitions those slices can start on: from the base's boundary, or the empty state's day, to
-- the watermark's day; every state query is bounded by dt, so projection expands only those days),
-- :to_ts (the run's end), :identities_from_dt, :variants, :series_interval (rules/variant-rows.sql).
-- Tables: {{state}} (tally.results_state on AWS, the Parquet files under the data directory
-- locally) and {{identities}}.
--
-- The counting rules are results-count.sql's, applied to summaries:
--  - enrollment: per canonical user, the variant of the smallest first_key among rows naming one,
--    enrolled_at the smallest first_at; multiple_exposures counts users whose rows name more than one;
--  - conversion: a goal row (is_goal) with last_at >= enrolled_at, i.e. the latest last_at
--    (last_goal_at) at or after enrolled_at: that hour has a goal event at or after enrollment, so
--    the smallest such on_hour is the hour of the first one (the series' hour or day, given as
--    converted_at: its first 13 characters are the hour, its first 10 the day);
--  - the window: rows were cut at :from_ts when summarised; pending rows (one event each, timestamped
--    after the slice's end; first_at or last_at is its time) count only up to :to_ts. Merged rows are at or before every run's end.
--  - metrics (issue 22): the state's metric rows (one per metric source and event, results-summary.sql)
--    are taken once per (metric_source, event_key), the copy received first (deduplicated), then fanned
--    out to the request's metric slots as results-count.sql fans out the raw events: a metric's slot
--    takes the enrollment rows and the rows of its source. The per-user values, the capping and the
--    rows are the same rules (metric-user-sums, metric-capping, variant-rows).
-- Identities are resolved as now, through the whole identity stream (small: one line per change of
-- an ID's pointer), by the same rule as results-count.sql (rules/canonical-ids.sql), so a link that
-- arrives days after the goal event still re-attributes it.
state_rows AS (
  SELECT sent_user_id, variant, is_goal, on_hour, pending_key, first_key, first_at, last_at, metric_source, event_key, metric_value, platform, country, app_version
  FROM {{state}}
  WHERE project_id = :project_id
    AND experiment_id = :experiment_id
    AND dt BETWEEN :state_from_dt AND :state_to_dt
    AND slice_hi <= :watermark
    -- Commit markers (Athena: one row per committed slice, results-commit.sql) carry no ID.
    AND sent_user_id IS NOT NULL
),
summaries AS (
  SELECT sent_user_id, variant, is_goal, on_hour, pending_key, first_key, first_at, last_at, metric_source, event_key, metric_value, platform, country, app_version FROM base_rows
  UNION ALL
  SELECT sent_user_id, variant, is_goal, on_hour, pending_key, first_key, first_at, last_at, metric_source, event_key, metric_value, platform, country, app_version FROM state_rows
  UNION ALL
  SELECT sent_user_id, variant, is_goal, on_hour, pending_key, first_key, first_at, last_at, metric_source, event_key, metric_value, platform, country, app_version FROM tail
),
-- Each row once: a slice read twice, an event whose copies fell into two slices, or a base row and
-- a slice it already holds, gives the same group (rules/summary-merge.sql, as the roll-up merges).
deduplicated AS (
  SELECT
    {{> rules/summary-merge.sql}}
  FROM summaries
  GROUP BY sent_user_id, variant, is_goal, on_hour, pending_key, metric_source, event_key
),
-- Identity resolution as in results-count.sql: links and canonical.
{{> rules/canonical-ids.sql}},
-- Under the current canonical ID, once per metric slot each row belongs to (rules/metric-slots.sql):
-- the base slot takes the enrollment and goal rows, a metric's slot the enrollment rows and the rows
-- of its source. Pending rows and metric rows (one event each) count only up to the run's end.
resolved AS (
  SELECT
    coalesce(c.canonical_id, s.sent_user_id) AS user_key,
    s.variant,
    s.is_goal,
    s.on_hour,
    s.first_key,
    s.first_at,
    s.last_at,
    s.platform,
    s.country,
    s.app_version,
    m.metric,
    m.metric_kind,
    m.metric_cap,
    s.metric_source = m.metric_source AS is_metric_event,
    s.first_at AS metric_at,
    s.metric_value
  FROM deduplicated s
  CROSS JOIN
    {{> rules/metric-slots.sql}}
  LEFT JOIN canonical c ON c.id = s.sent_user_id
  WHERE ((s.pending_key IS NULL AND s.metric_source IS NULL) OR coalesce(s.first_at, s.last_at) <= :to_ts)
    AND (
      (m.metric_source IS NULL AND s.metric_source IS NULL)
      OR (m.metric_source IS NOT NULL AND s.variant IS NOT NULL)
      OR s.metric_source = m.metric_source
    )
),
resolved_enrolled AS (
  SELECT
    user_key,
    variant,
    is_goal,
    on_hour,
    first_key,
    first_at,
    last_at,
    platform,
    country,
    app_version,
    metric,
    metric_kind,
    metric_cap,
    is_metric_event,
    metric_at,
    metric_value,
    min(CASE WHEN variant IS NOT NULL THEN first_at END) OVER (PARTITION BY user_key) AS user_enrolled_at
  FROM resolved
),
users AS (
  SELECT
    user_key,
    metric,
    metric_kind,
    metric_cap,
    min_by(variant, first_key) FILTER (WHERE variant IS NOT NULL) AS variant,
    -- Breakdowns: the first enrollment's context fields as results-count.sql takes them ('' for none;
    -- NULL in state files written before the columns existed reads as none too).
    min_by(coalesce(platform, ''), first_key) FILTER (WHERE variant IS NOT NULL) AS platform,
    min_by(coalesce(country, ''), first_key) FILTER (WHERE variant IS NOT NULL) AS country,
    min_by(coalesce(app_version, ''), first_key) FILTER (WHERE variant IS NOT NULL) AS app_version,
    min(first_at) FILTER (WHERE variant IS NOT NULL) AS enrolled_at,
    count(DISTINCT variant) AS variants_seen,
    -- last_at is the latest time of a goal row (NULL on the others).
    max(last_at) AS last_goal_at,
    -- The conversion hour (the rows know goal events to the hour): the first hour with a goal event at
    -- or after enrollment.
    min(CASE WHEN is_goal AND last_at >= user_enrolled_at THEN on_hour END) AS converted_at,
    {{> rules/metric-user-sums.sql}}
  FROM resolved_enrolled
  GROUP BY user_key, metric, metric_kind, metric_cap
),
-- Each user's metric values, capped where a metric says so, as in results-count.sql.
{{> rules/metric-capping.sql}}
-- The result rows per variant and period, and per variant and metric, as in results-count.sql.
{{> rules/variant-rows.sql}}
