-- Retention (issue 25; docs/api.md "Insights", docs/decisions/insights.md "Retention"): per cohort
-- (the day or week a canonical user FIRST did :start_event in the range) its size, and per period
-- (0 = the cohort's own day or week, 1 the next, ...) the users who did :return_event in it at or
-- after their first start event. A user counts once per period however often they came back.
--
-- ONE SOURCE FOR BOTH ENGINES (docs/decisions/one-query-source.md): the Trino dialect, DuckDB with
-- the Trino-compat macros. Shared rules: rules/canonical-ids.sql (a login after the first start
-- keeps the user's returns under the same user) and rules/range-events.sql (each event once).
--
-- Parameters:
--   :project_id, :identities_from_dt (as insight-trends.sql), :scan_from_dt (the range's first day), :to_dt, :data_through
--   :start_event, :return_event, :events (both: rules/range-events.sql)
--   :interval      day or week (weeks start on Monday, UTC)
WITH
{{> rules/canonical-ids.sql}},
-- The range's start and return events (the only scan of {{events}}), each once.
range_events AS (
  SELECT
    coalesce(c.canonical_id, e.sent_user_id) AS user_key,
    e.name,
    e."timestamp",
    CASE :interval
      WHEN 'day' THEN CAST(e.dt AS date)
      ELSE CAST(date_trunc('week', CAST(e.dt AS date)) AS date)
    END AS bucket
  FROM (
    {{> rules/range-events.sql}}
  ) e
  LEFT JOIN canonical c ON c.id = e.sent_user_id
),
-- Each user's first start event: its time (fixed-width ISO text, so text order is time order) and cohort.
cohorts AS (
  SELECT user_key, first_at, bucket AS cohort
  FROM (
    SELECT user_key, "timestamp" AS first_at, bucket, row_number() OVER (PARTITION BY user_key ORDER BY "timestamp") AS rn
    FROM range_events
    WHERE name = :start_event
  ) firsts
  WHERE rn = 1
),
returns AS (
  SELECT DISTINCT
    c.cohort,
    CAST(date_diff('day', c.cohort, r.bucket) / (CASE :interval WHEN 'day' THEN 1 ELSE 7 END) AS bigint) AS period,
    c.user_key
  FROM cohorts c
  JOIN range_events r ON r.user_key = c.user_key AND r.name = :return_event AND r."timestamp" >= c.first_at
)
SELECT CAST(cohort AS varchar) AS cohort, CAST(NULL AS bigint) AS period, count(*) AS users
FROM cohorts
GROUP BY cohort
UNION ALL
SELECT CAST(cohort AS varchar) AS cohort, period, count(*) AS users
FROM returns
GROUP BY cohort, period
ORDER BY cohort, period NULLS FIRST
