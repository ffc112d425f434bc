-- Experiment results: who enrolled in which variant and who converted (issue 6 §1, spec "Result
-- counting rules"), and the experiment's metrics (issue 22). Columns: variant, period, metric,
-- enrolled, converted, multiple_exposures, metric_sum, metric_sum_squares, metric_min.
--  - One totals row per configured variant (period NULL): enrolled, converted, and multiple_exposures
--    (users whose enrollment events named more than one variant; the same value on every row).
--  - Period rows for the series (issue 13), period a UTC day YYYY-MM-DD, or a UTC hour YYYY-MM-DDTHH
--    when :series_interval is 'hour' (a run under 3 days, issue 22): the users of the variant who
--    enrolled in that period (enrolled) and who converted in it (converted: their first goal event
--    at or after enrollment). Summed from the run's first period to period P they are exactly the
--    totals the query would give with :to_ts at the end of P (lambdas/domain/results-series.ts).
--    At most two rows' worth of counts per user, so rows <= variants x (1 + periods of the run).
--  - One row per configured variant and metric (metric its definition, period NULL): the variant's
--    enrolled users, the sum and sum of squares of their per-user values and the smallest counted
--    event value (rules/variant-rows.sql). A variant nobody enrolled in has none (zeros in render.ts).
--
-- ONE SOURCE FOR BOTH ENGINES. Written in the Trino dialect of Athena engine 3. DuckDB runs the same
-- text (lambdas/adapters/duckdb-results-query.ts) with macros standing in for the Trino functions it
-- lacks: json_extract_scalar and regexp_like. Everything else is the subset both engines share: no `->>`, no `::`,
-- no division, no TIMESTAMP parsing, no WITH RECURSIVE. Timestamps are compared as text: every
-- stored timestamp has the one fixed form YYYY-MM-DDTHH:MM:SS.sssZ (UTC), so text order is time
-- order in both engines. JSON paths use the bracket form $["key"]: Trino's path tokenizer accepts no
-- `$` in a dotted key, and the DuckDB macro rewrites $["key"] to DuckDB's $."key".
-- The rules this query shares with the incremental queries live in one file each under rules/,
-- with the comment that explains them: identity resolution (canonical-ids.sql), the columns read
-- from a raw event (event-columns.sql), the enrollment variant (enrollment-variant.sql), the metric
-- slots, values, per-user sums and capping (metric-*.sql, issue 22) and the result rows per variant
-- and day, and per variant and metric (variant-rows.sql). A line `{{> rules/<name>.sql}}` includes one;
-- render.ts expands the includes (include.ts), then fills in the placeholders, so the text an
-- engine runs is one complete query.
--
-- Tables (rendered from {{events}} and {{identities}}):
--   {{events}}      tally.events on AWS: StoredEvent (lambdas/domain/event.ts), all columns strings,
--                   properties the event's JSON object as text; partitions project_id, dt.
--   {{identities}}  tally.identities on AWS: IdentityRecord (lambdas/domain/identity.ts). This query
--                   needs the string columns id, canonical_id, timestamp and the string partition
--                   columns project_id and dt (dt = UTC day of timestamp). lib/raw-columns.ts lists
--                   them for the Glue table.
--
-- Parameters (strings, quoted by render.ts; :variants is a list):
--   :project_id
--   :from_ts, :to_ts          the run, ISO 8601 UTC with milliseconds, both inclusive
--   :from_dt, :to_dt          the UTC days of :from_ts and :to_ts (the events partitions to read)
--   :identities_from_dt       the first identity-stream day that can exist for the project (below)
--   :experiment_spellings     every spelling of the name (domain/experiment.ts
--                             experimentNameSpellings): as configured, Tally's snake_case and the
--                             MGM SDKs' snake_case; an exposure may name the experiment any of these ways
--   :exposure_event           $experiment_exposure
--   :super_property_path      $["$experiment_<snake_case>"]: the JSON path of the super property
--   :sdk_super_property_path  the same with the MGM SDKs' snake_case
--   :name_super_property_path the same with the name as configured
--   :variants                 the configured variants
--   :goal_event
--   :series_interval          'day' or 'hour': the periods of the series' rows (rules/variant-rows.sql)
--   :metric_slots             '[]' and one JSON definition per metric (rules/metric-slots.sql)
--   :covariate_from_ts, :covariate_from_dt  CUPED (docs/decisions/cuped.md): the run's start minus the
--                             pre-exposure window (:from_ts and :from_dt with CUPED off), and its day
--   :cuped_lookback_hours     the window in hours ('0' with CUPED off; rules/metric-user-sums.sql)
--
-- Partition pruning: events are read only for project_id = :project_id and dt between :from_dt and
-- :to_dt (Athena prunes on the partition columns, so the bytes scanned follow the run's days, not
-- the history). Identity links are read for every day of the project: a link made on any day
-- re-attributes events of every day, including links made long before the run started. Every day
-- means from :identities_from_dt, the day before the project was created: a record's dt is the day
-- of its timestamp, the arrival time of the request that linked the IDs, which comes after the
-- project's creation (the day before allows for clock differences between functions). Without this
-- bound Athena would list every projected day since 2020-01-01 (lib/analytics.ts), about 2,200
-- empty prefixes. There is no upper bound to add: projection stops at NOW+2DAYS.
WITH
-- Identity resolution: links and canonical, the current canonical ID of every linked ID.
{{> rules/canonical-ids.sql}},
-- The run's events (the only scan of {{events}}, the events view: each event once), with the variant each names for this experiment
-- (rules/enrollment-variant.sql: an exposure's $variant, else the super property's value; NULL when
-- neither names a configured variant, and such events enroll nobody).
run_events AS (
  SELECT
    sent_user_id,
    name,
    event_time,
    sort_key,
    properties,
    platform,
    country,
    app_version,
    -- Before the run (CUPED's pre-exposure window only): a metric's event as a covariate, never an
    -- enrollment or goal event.
    event_time >= :from_ts AS in_run,
    {{> rules/enrollment-variant.sql}}
  FROM (
    SELECT
      {{> rules/event-columns.sql}}
    FROM {{events}}
    WHERE project_id = :project_id
      AND dt BETWEEN :covariate_from_dt AND :to_dt
      AND "timestamp" BETWEEN :covariate_from_ts AND :to_ts
      AND sent_user_id IS NOT NULL
  ) parsed
),
-- Enrollment, goal and metric events under the CURRENT canonical ID of the ID they were sent with,
-- once per metric slot (rules/metric-slots.sql) they belong to: the base slot '[]' takes the
-- enrollment and goal events (the counts), a metric's slot its enrollment events (so every enrolled
-- user has a row in it, and its variant and enrollment time) and the metric's events, each with its
-- value (rules/metric-value.sql). A fan-out of the one scan, not a second read of run_events.
relevant AS (
  SELECT
    coalesce(c.canonical_id, r.sent_user_id) AS user_key,
    r.name,
    r.event_time,
    r.sort_key,
    CASE WHEN r.in_run THEN r.variant END AS variant,
    r.platform,
    r.country,
    r.app_version,
    m.metric,
    m.metric_kind,
    m.metric_cap,
    r.name = m.metric_event AS is_metric_event,
    r.event_time AS metric_at,
    {{> rules/metric-value.sql}}
  FROM run_events r
  CROSS JOIN
    {{> rules/metric-slots.sql}}
  LEFT JOIN canonical c ON c.id = r.sent_user_id
  WHERE (r.in_run AND r.variant IS NOT NULL)
    OR (r.in_run AND m.metric_event IS NULL AND r.name = :goal_event)
    OR r.name = m.metric_event
),
-- Each event with its user's enrollment time (the first enrollment event's), so users can find the
-- first goal event at or after it: the day the user converted. A window, not a second read of
-- relevant: each CTE here is referenced once, because Trino inlines every reference (a second one
-- would scan the events again).
relevant_enrolled AS (
  SELECT
    user_key,
    name,
    event_time,
    sort_key,
    variant,
    platform,
    country,
    app_version,
    metric,
    metric_kind,
    metric_cap,
    is_metric_event,
    metric_at,
    metric_value,
    min(CASE WHEN variant IS NOT NULL THEN event_time END) OVER (PARTITION BY user_key) AS user_enrolled_at
  FROM relevant
),
-- Per canonical user and metric slot: the variant of the first enrollment event, when it happened, how many
-- variants the enrollment events named, and the last goal event of the run. A user converted when
-- that last goal event is at or after enrollment (all of them are at or before :to_ts); converted_at
-- is the first goal event at or after enrollment (NULL exactly when the user did not convert).
users AS (
  SELECT
    user_key,
    metric,
    metric_kind,
    metric_cap,
    min_by(variant, sort_key) FILTER (WHERE variant IS NOT NULL) AS variant,
    -- Breakdowns (docs/decisions/breakdowns.md): the first enrollment event's context fields, '' when
    -- it had none (the segment "unknown").
    min_by(coalesce(platform, ''), sort_key) FILTER (WHERE variant IS NOT NULL) AS platform,
    min_by(coalesce(country, ''), sort_key) FILTER (WHERE variant IS NOT NULL) AS country,
    min_by(coalesce(app_version, ''), sort_key) FILTER (WHERE variant IS NOT NULL) AS app_version,
    min(event_time) FILTER (WHERE variant IS NOT NULL) AS enrolled_at,
    count(DISTINCT variant) AS variants_seen,
    max(event_time) FILTER (WHERE name = :goal_event) AS last_goal_at,
    min(CASE WHEN name = :goal_event AND event_time >= user_enrolled_at THEN event_time END) AS converted_at,
    {{> rules/metric-user-sums.sql}}
  FROM relevant_enrolled
  GROUP BY user_key, metric, metric_kind, metric_cap
),
-- Each user's metric values, capped where a metric says so.
{{> rules/metric-capping.sql}}
-- The result rows per variant and day, and per variant and metric, from user_values.
{{> rules/variant-rows.sql}}
