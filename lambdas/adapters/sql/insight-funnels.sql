-- Funnels (issue 25; docs/api.md "Insights", docs/decisions/insights.md "Funnels"): per breakdown
-- value and step, the canonical users who reached the step in order within the conversion window,
-- and the median time from the step before.
--
-- ONE SOURCE FOR BOTH ENGINES (docs/decisions/one-query-source.md): the Trino dialect, which DuckDB
-- runs with the Trino-compat macros (json_extract_scalar, from_iso8601_timestamp). Shared rules:
-- rules/canonical-ids.sql (a user is the CURRENT canonical ID of the ID sent, so a login mid-funnel
-- keeps the anonymous steps and the identified ones in one funnel) and rules/range-events.sql (each
-- event once, by rules/copy-rank.sql).
--
-- Semantics:
--  - A user's funnel starts at their FIRST first-step event in the range (:from_day .. :to_day, local
--    days in the project's time zone :time_zone: rules/range-events.sql).
--  - Step k is the user's earliest step-k event STRICTLY AFTER the time step k-1 was reached (two
--    events in the same millisecond have no order the data can show) and at most :window_days days
--    after the first step (elapsed time, 24 hours a day, whatever the time zone: a window does not
--    grow or shrink over a daylight-saving change); the earliest is the choice that lets most users go further.
--  - Every step happens in the range: the scan is the range's days only.
--
-- Parameters:
--   :project_id, :identities_from_dt (as insight-trends.sql), :data_through
--   :time_zone, :from_day, :to_day, :scan_from_dt, :scan_to_dt (rules/range-events.sql)
--   :events         the steps' event names (an IN list)
--   :steps          one JSON array per step: [step (1-based), event, property path or null, equals or null]
--   :step_count     how many steps (2 to 6); the query always computes 6, unused ones are empty
--   :window_days    the conversion window in days
--   :breakdown      none, platform, country, app_version or property
--   :breakdown_path $["<property>"] for a property breakdown, else '$'
WITH
{{> rules/canonical-ids.sql}},
steps AS (
  SELECT
    CAST(json_extract_scalar(s, '$[0]') AS integer) AS step,
    json_extract_scalar(s, '$[1]') AS step_event,
    json_extract_scalar(s, '$[2]') AS filter_path,
    json_extract_scalar(s, '$[3]') AS filter_equals
  FROM UNNEST(ARRAY[:steps]) AS t (s)
),
-- The range's events of the steps' names (the only scan of {{events}}), each once.
range_events AS (
  {{> rules/range-events.sql}}
),
-- One row per step an event matches (an event can match several steps: the same event twice).
step_events AS (
  SELECT
    s.step,
    coalesce(c.canonical_id, e.sent_user_id) AS user_key,
    from_iso8601_timestamp(e."timestamp") AS event_at,
    {{> rules/breakdown-raw.sql}}
  FROM range_events e
  JOIN steps s
    ON s.step_event = e.name
    AND (s.filter_path IS NULL OR json_extract_scalar(e.properties, s.filter_path) = s.filter_equals)
  LEFT JOIN canonical c ON c.id = e.sent_user_id
),
-- Step 1: the user's first first-step event, and its breakdown (rules/breakdown-kind.sql; ties in
-- time by value, the missing last).
s1 AS (
  SELECT
    user_key,
    event_at AS t1,
    breakdown_raw,
    {{> rules/breakdown-kind.sql}}
  FROM (
    SELECT user_key, event_at, breakdown_raw, row_number() OVER (PARTITION BY user_key ORDER BY event_at, breakdown_raw NULLS LAST) AS rn
    FROM step_events
    WHERE step = 1
  ) firsts
  WHERE rn = 1
),
s2 AS (
  SELECT f.user_key, min(e.event_at) AS t2
  FROM s1 f JOIN step_events e ON e.user_key = f.user_key AND e.step = 2 AND e.event_at > f.t1 AND e.event_at <= f.t1 + INTERVAL :window_days DAY
  GROUP BY f.user_key
),
s3 AS (
  SELECT f.user_key, min(e.event_at) AS t3
  FROM s1 f JOIN s2 p ON p.user_key = f.user_key
  JOIN step_events e ON e.user_key = f.user_key AND e.step = 3 AND e.event_at > p.t2 AND e.event_at <= f.t1 + INTERVAL :window_days DAY
  GROUP BY f.user_key
),
s4 AS (
  SELECT f.user_key, min(e.event_at) AS t4
  FROM s1 f JOIN s3 p ON p.user_key = f.user_key
  JOIN step_events e ON e.user_key = f.user_key AND e.step = 4 AND e.event_at > p.t3 AND e.event_at <= f.t1 + INTERVAL :window_days DAY
  GROUP BY f.user_key
),
s5 AS (
  SELECT f.user_key, min(e.event_at) AS t5
  FROM s1 f JOIN s4 p ON p.user_key = f.user_key
  JOIN step_events e ON e.user_key = f.user_key AND e.step = 5 AND e.event_at > p.t4 AND e.event_at <= f.t1 + INTERVAL :window_days DAY
  GROUP BY f.user_key
),
s6 AS (
  SELECT f.user_key, min(e.event_at) AS t6
  FROM s1 f JOIN s5 p ON p.user_key = f.user_key
  JOIN step_events e ON e.user_key = f.user_key AND e.step = 6 AND e.event_at > p.t5 AND e.event_at <= f.t1 + INTERVAL :window_days DAY
  GROUP BY f.user_key
),
-- The top 10 breakdown lines by users who did the first step (the values and the missing one alike;
-- ties by value, the missing one as the word "unknown", a value before the missing).
-- Every other value is grouped into one line of kind 'other', ranked 12: last. The missing one is
-- never grouped: outside the top 10 it is its own line, ranked 11 (as results' breakdowns keep it).
top_values AS (
  SELECT breakdown_key, breakdown_rank
  FROM (
    SELECT breakdown_key, row_number() OVER (ORDER BY count(*) DESC, coalesce(breakdown_raw, 'unknown'), breakdown_kind DESC) AS breakdown_rank
    FROM s1
    WHERE breakdown_key IS NOT NULL
    GROUP BY breakdown_key, breakdown_kind, breakdown_raw
  ) ranked
  WHERE breakdown_rank <= 10
),
-- One row per user and step reached, twice with a breakdown: in the totals (breakdown_kind and
-- breakdown_value NULL) and in the user's breakdown line. seconds: from the step before (NULL for step 1).
reached AS (
  SELECT
    CASE WHEN scope.kind = 'total' THEN NULL WHEN t.breakdown_rank IS NULL AND u.breakdown_kind = 'value' THEN 'other' ELSE u.breakdown_kind END AS breakdown_kind,
    CASE WHEN scope.kind = 'total' OR t.breakdown_rank IS NULL THEN NULL ELSE u.breakdown_raw END AS breakdown_value,
    CASE
      WHEN scope.kind = 'total' THEN 0
      WHEN t.breakdown_rank IS NOT NULL THEN t.breakdown_rank
      WHEN u.breakdown_kind = 'unknown' THEN 11
      ELSE 12
    END AS breakdown_rank,
    k.step,
    date_diff(
      'millisecond',
      CASE k.step WHEN 2 THEN u.t1 WHEN 3 THEN u.t2 WHEN 4 THEN u.t3 WHEN 5 THEN u.t4 WHEN 6 THEN u.t5 END,
      CASE k.step WHEN 2 THEN u.t2 WHEN 3 THEN u.t3 WHEN 4 THEN u.t4 WHEN 5 THEN u.t5 WHEN 6 THEN u.t6 END
    ) / 1e3 AS seconds
  FROM (
    SELECT f.user_key, f.t1, s2.t2, s3.t3, s4.t4, s5.t5, s6.t6, f.breakdown_raw, f.breakdown_kind, f.breakdown_key
    FROM s1 f
    LEFT JOIN s2 ON s2.user_key = f.user_key
    LEFT JOIN s3 ON s3.user_key = f.user_key
    LEFT JOIN s4 ON s4.user_key = f.user_key
    LEFT JOIN s5 ON s5.user_key = f.user_key
    LEFT JOIN s6 ON s6.user_key = f.user_key
  ) u
  LEFT JOIN top_values t ON t.breakdown_key = u.breakdown_key
  CROSS JOIN UNNEST(ARRAY[1, 2, 3, 4, 5, 6]) AS k (step)
  CROSS JOIN UNNEST(ARRAY['total', 'breakdown']) AS scope (kind)
  WHERE k.step <= CAST(:step_count AS integer)
    AND (scope.kind = 'total' OR u.breakdown_key IS NOT NULL)
    AND CASE k.step WHEN 1 THEN u.t1 WHEN 2 THEN u.t2 WHEN 3 THEN u.t3 WHEN 4 THEN u.t4 WHEN 5 THEN u.t5 ELSE u.t6 END IS NOT NULL
),
-- The exact median of seconds per row (the middle one, or the mean of the middle two), from
-- row_number and count, which both engines compute alike (no approx_percentile; / 2e0 and floor,
-- as 7 / 2 is 3 in Trino and 3.5 in DuckDB).
ranked AS (
  SELECT
    breakdown_kind,
    breakdown_value,
    breakdown_rank,
    step,
    seconds,
    row_number() OVER (PARTITION BY breakdown_kind, breakdown_value, step ORDER BY seconds) AS seconds_rank,
    count(*) OVER (PARTITION BY breakdown_kind, breakdown_value, step) AS reached
  FROM reached
)
SELECT
  breakdown_kind,
  breakdown_value,
  min(breakdown_rank) AS breakdown_rank,
  step,
  count(*) AS users,
  avg(CASE WHEN seconds_rank IN (floor((reached + 1) / 2e0), floor((reached + 2) / 2e0)) THEN seconds END) AS median_seconds
FROM ranked
GROUP BY breakdown_kind, breakdown_value, step
ORDER BY breakdown_rank, breakdown_kind, breakdown_value, step
