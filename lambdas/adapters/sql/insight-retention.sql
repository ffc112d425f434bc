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
--   :project_id, :identities_from_dt (as insight-trends.sql), :data_through
--   :time_zone, :from_day, :to_day, :scan_from_dt, :scan_to_dt (the range's local days in the project's
--                  time zone, and the UTC partitions covering them: rules/range-events.sql)
--   :start_event, :return_event, :events (both: rules/range-events.sql)
--   :interval      day or week (weeks start on Monday; days are the time zone's local days)
WITH
{{> rules/canonical-ids.sql}},
-- The range's start and return events, each once, under the user's canonical ID, with each user's
-- first start event: its time (fixed-width ISO text, so text order is time order) and cohort (the
-- bucket of that event). One pass: the cohorts and the returns below are both read from it, in one
-- grouping, because Trino runs a WITH relation again for each reader, and with it the scans of
-- {{events}} and {{identities}}.
user_events AS (
  SELECT
    user_key,
    name,
    "timestamp",
    bucket,
    min(CASE WHEN name = :start_event THEN "timestamp" END) OVER (PARTITION BY user_key) AS first_at,
    first_value(bucket) OVER (PARTITION BY user_key ORDER BY CASE WHEN name = :start_event THEN 0 ELSE 1 END, "timestamp") AS cohort
  FROM (
    SELECT
      coalesce(c.canonical_id, e.sent_user_id) AS user_key,
      e.name,
      e."timestamp",
      CASE :interval
        WHEN 'day' THEN CAST(e.day AS date)
        ELSE CAST(date_trunc('week', CAST(e.day AS date)) AS date)
      END AS bucket
    FROM (
      {{> rules/range-events.sql}}
    ) e
    LEFT JOIN canonical c ON c.id = e.sent_user_id
  ) resolved
)
-- Per cohort (period NULL): its users, the users with a start event. Per cohort and period: the users
-- who did the return event in that period, at or after their first start. An event both a start and a
-- return (the same event name) counts in both roles. A user counts once per row however often.
SELECT CAST(cohort AS varchar) AS cohort, period, count(DISTINCT user_key) AS users
FROM (
  SELECT
    u.cohort,
    CASE WHEN r.role = 'cohort' THEN CAST(NULL AS bigint) ELSE CAST(date_diff('day', u.cohort, u.bucket) / (CASE :interval WHEN 'day' THEN 1 ELSE 7 END) AS bigint) END AS period,
    u.user_key
  FROM user_events u
  CROSS JOIN UNNEST(ARRAY['cohort', 'return']) AS r (role)
  WHERE u.first_at IS NOT NULL
    AND CASE WHEN r.role = 'cohort' THEN u.name = :start_event AND u."timestamp" = u.first_at ELSE u.name = :return_event AND u."timestamp" >= u.first_at END
) roles
GROUP BY cohort, period
ORDER BY cohort, period NULLS FIRST
